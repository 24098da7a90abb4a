import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';

/**
 * A store that cannot be reached right now (PostgreSQL down, restarting, or cut off) fails the
 * request with a 503 the caller may retry, rather than a 500 that reads as a bug: the same
 * request succeeds once the database is back, with nothing to fix on either side.
 */

/** Node's socket errors for a peer that refuses, resets, or cannot be found or reached. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
/**
 * PostgreSQL's SQLSTATEs for the same: class 08 (connection exception), and the server shutting
 * down or starting (57P01-57P03); too many connections (53300) passes once others finish.
 */
const sqlStates = /^(08...|57P0[123]|53300)$/;
/** What node-postgres itself throws when a connection drops or cannot be made in time. */
const clientMessages = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout)/;

function unreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && (socketCodes.has(code) || sqlStates.test(code))) return true;
  if (clientMessages.test(error.message)) return true;
  // A connect that tried each address (IPv6 and IPv4) fails with all of their errors.
  return error instanceof AggregateError && error.errors.some(unreachable);
}

/** The 503 for an error that means the store cannot be reached now, or undefined for any other error. */
export function storeUnavailable(error: unknown): ApiError | undefined {
  if (!unreachable(error)) return undefined;
  return new ApiError(
    503,
    undefined,
    'The database Quire keeps its keys and teams in cannot be reached; try again shortly.',
    {
      headers: { 'retry-after': String(limits.storeUnavailableRetryS) },
    },
  );
}
