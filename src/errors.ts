import { randomUUID } from 'node:crypto';
import { limits } from './limits.ts';

/** Error codes Quire answers with; the first two are the contract's own. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNKNOWN_ERROR'
  | 'BAD_REQUEST_INVALID_JSON'
  | 'UNSUPPORTED_FILE_TYPE'
  | 'PARSE_UNSUPPORTED_OPTIONS'
  | 'NOT_IMPLEMENTED'
  | 'SCRAPE_TIMEOUT'
  | 'NOT_FOUND'
  | 'UNPARSABLE_DOCUMENT'
  | 'ENCRYPTED_DOCUMENT'
  | 'RESOURCE_LIMIT'
  | 'UNAUTHORIZED'
  // Upstream's scrape codes, for what a fetched URL can do wrong.
  | 'SCRAPE_DNS_RESOLUTION_ERROR'
  | 'SCRAPE_SSL_ERROR'
  | 'SCRAPE_SITE_ERROR'
  | 'SCRAPE_UNSUPPORTED_FILE_ERROR'
  | 'SCRAPE_ACTION_ERROR'
  | 'SCRAPE_UNSUPPORTED_OPTIONS'
  // Upstream's map timeout.
  | 'MAP_TIMEOUT';

/**
 * An error whose status, code and message are meant for the caller. Anything else that
 * reaches the error handler is a bug and becomes a 500 with an error id.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode | undefined,
    message: string,
    extra: { details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }

  /** The body the contract prescribes for this status. */
  body(): Record<string, unknown> {
    // 402 and 429 carry `error` only, as the contract's tables say.
    if (this.status === 402 || this.status === 429) return { error: this.message };
    const body: Record<string, unknown> = { success: false };
    if (this.code && this.status !== 401 && this.status !== 403) body.code = this.code;
    body.error = this.message;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export const badRequest = (message: string, details?: unknown) =>
  new ApiError(400, 'BAD_REQUEST', message, { details });

/** A team whose credit balance cannot pay for a document (the contract's 402: `error` only). */
export const paymentRequired = () =>
  new ApiError(
    402,
    undefined,
    "Insufficient credits to perform this request: payment is required to access this resource. Ask the operator to add credits to your team's balance.",
  );

/** Upstream's 403 for a request that asks for zero data retention where the team forbids it. */
export const zdrForbidden = () =>
  new ApiError(
    403,
    undefined,
    'Zero Data Retention (ZDR) is not enabled for your team. Contact support@firecrawl.com to enable this feature.',
  );

/** JSON nested past `limits.jsonDepth`, refused before it is parsed. */
export const tooDeep = (what: string) =>
  badRequest(`${what} nests arrays and objects more than ${limits.jsonDepth} levels deep.`);

export function unknownErrorBody(): { errorId: string; body: Record<string, unknown> } {
  const errorId = randomUUID();
  return {
    errorId,
    body: {
      success: false,
      code: 'UNKNOWN_ERROR',
      error: `An unexpected error occurred. Please check the server logs for details. Error ID: ${errorId}`,
    },
  };
}
