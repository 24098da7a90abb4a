/**
 * `work`'s outcome, or a rejection with `reason()` as soon as `signal` aborts, whatever `work` is
 * waiting on (a Redis command retrying through an outage, an event that may never come); then
 * `onAbort` stops or undoes the work, which goes on unobserved. So a request never outlives its
 * deadline on account of what it waits for.
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  reason: () => Error,
  onAbort: () => Promise<unknown> = async () => {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      onAbort().catch(() => {});
      reject(reason());
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
