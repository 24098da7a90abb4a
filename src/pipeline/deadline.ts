import { ApiError } from '../errors.ts';

/**
 * Cancel the work when the deadline passes or the client goes away, whichever comes first.
 * Time spent waiting for a slot or a worker counts, as the contract's timeout does.
 */
export interface Deadline {
  signal: AbortSignal;
  /** Milliseconds left before the deadline. */
  remaining: () => number;
  /** The 408 this request answers once its time is up. */
  expired: () => ApiError;
  done: () => void;
}

/** What closes when the client goes away: a request's socket. */
export interface Closable {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/**
 * `operation` names the request in the 408's message: "parse", "scrape". Without a client (the
 * command line) there is nobody to watch, only the time.
 */
export function deadline(ms: number, operation: string, client?: Closable): Deadline {
  const controller = new AbortController();
  const ends = performance.now() + ms;
  const expired = () =>
    new ApiError(408, 'SCRAPE_TIMEOUT', `The ${operation} did not finish within its timeout of ${ms} ms.`);
  const timer = setTimeout(() => controller.abort(expired()), ms);
  // Until we answer, a closed socket means the client has gone and the work is wasted.
  const onClose = () => controller.abort(new Error('client gone'));
  client?.once('close', onClose);
  return {
    signal: controller.signal,
    remaining: () => ends - performance.now(),
    expired,
    done: () => {
      clearTimeout(timer);
      client?.off('close', onClose);
    },
  };
}

/** Why the work stopped: the deadline's 408 when it passed, else the client left (nobody hears it). */
export function stopped(clock: Deadline): Error {
  return clock.signal.reason instanceof ApiError ? clock.signal.reason : clock.expired();
}
