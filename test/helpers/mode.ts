/**
 * Which pass of `npm test` this is. package.json runs the whole suite twice: once against the
 * embedded mode (one process, SQLite), then with QUIRE_TEST_CLUSTER=1, where every server a test
 * starts through startServer is a cluster (an `api` and a `worker` process on Redis and
 * PostgreSQL). The options below are node:test's `{ skip }`: a test or block left out of the
 * cluster pass is reported as skipped, with its reason, never left out silently. (A skipped
 * `describe` does not run its body at all: its servers are never started.)
 */
export const inClusterPass = process.env.QUIRE_TEST_CLUSTER === '1';

/**
 * For behaviour that only the embedded mode has, by design (the reason says which and why): in
 * the cluster pass the test is skipped with that reason.
 */
export function embeddedOnly(reason: string): { skip?: string } {
  return inClusterPass ? { skip: `embedded mode only: ${reason}` } : {};
}

/**
 * For tests that gain nothing from the cluster pass (the reason says why: they start no server
 * through startServer, or they start the cluster they test themselves), so they run once.
 */
export function firstPassOnly(reason: string): { skip?: string } {
  return inClusterPass ? { skip: `runs in the first pass only: ${reason}` } : {};
}
