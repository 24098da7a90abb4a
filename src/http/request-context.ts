import type { FastifyRequest } from 'fastify';
import type { Caller } from '../pipeline/convert-to-answer.ts';
import type { AuditEvent, KeyOwner } from '../store/store.ts';

/** What a request carries between hooks once it is authenticated. */
declare module 'fastify' {
  interface FastifyRequest {
    principal: KeyOwner | undefined;
    /** Parts of the audit event known only inside the handler. */
    audit:
      | Partial<
          Pick<AuditEvent, 'action' | 'username' | 'filename' | 'format' | 'bytes' | 'zeroDataRetention'>
        >
      | undefined;
  }
}

/** The conversion's caller for an authenticated request: its team and key, log and audit event. */
export function callerOf(request: FastifyRequest): Caller {
  const principal = request.principal!;
  return { team: principal.team, keyId: principal.keyId, log: request.log, audit: request.audit };
}
