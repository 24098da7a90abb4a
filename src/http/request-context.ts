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
