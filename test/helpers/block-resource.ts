import { after, before } from 'node:test';

/**
 * Something a whole `describe` block (or file) shares: started before its tests, stopped after.
 * The getter is read inside tests, once it exists; `what` names it when a test reads it too early.
 */
export function forBlock<T>(
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
  what: string,
): () => T {
  let started: T | undefined;
  before(async () => {
    started = await start();
  });
  after(async () => {
    if (started !== undefined) await stop(started);
  });
  return () => {
    if (started === undefined) throw new Error(`${what} is not running`);
    return started;
  };
}
