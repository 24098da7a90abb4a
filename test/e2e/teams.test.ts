import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { cliOn } from '../helpers/cli.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { type RunningCluster, startCluster } from '../helpers/server.ts';
import { oneRunningOneWaiting, operator, pdfCreditRace, queueDepthOfOne } from '../helpers/teams.ts';

/**
 * A team's queue depth across API processes: only a cluster has two, sharing the team's line in
 * Redis. The team settings, credits and audit export themselves are test/http/teams.test.ts's,
 * and the concurrency implementations are test/unit/team-queue-depth.test.ts's.
 */
describe(
  'team queue depth in cluster mode (Redis)',
  firstPassOnly('starts the cluster it tests itself'),
  () => {
    it('counts the requests waiting on every api process: one waiting on the second refuses a third on the first', async (t) => {
      const cluster: RunningCluster = await startCluster({ QUIRE_LOG_LEVEL: 'debug', QUIRE_WORKERS: '1' });
      t.after(() => cluster.stop());
      const cli = cliOn({ QUIRE_DATABASE_URL: cluster.databaseUrl, QUIRE_DATA_DIR: cluster.api.dataDir });
      // A key in the cluster's store, which both API processes read (each has a configured key of
      // its own besides).
      const shallow = async () => {
        const key = (await cli('keys', 'create', '--team', 'shallow')).trim();
        await oneRunningOneWaiting(cli, 'shallow');
        return key;
      };
      const [second, key] = await Promise.all([cluster.addApi(), shallow()]);
      await queueDepthOfOne(key, 'shallow', cluster.api, second);
      // Every place in line was given back: the team's waiting set is gone.
      assert.deepEqual(await cluster.redisKeys('slot-waiters:*'), []);

      // Credits against racing PDFs from both API processes, in PostgreSQL.
      const store = await PostgresStore.open(cluster.databaseUrl);
      t.after(() => store.close());
      await pdfCreditRace([cluster.api, second], operator(cli, store), 'pages');
    });
  },
);
