// When a cluster node counts another as lost: its registry entry in Redis must stay missing for
// 4 s as this node sees it (limits.ts, nodeLostAfterMs: a Redis restarted without persistence
// loses every entry at once, and each live node writes its own back within a heartbeat). On the
// machine's Redis, under a prefix of this test's own, with a clock the test moves.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ClusterNodes } from '../../src/sessions/cluster-nodes.ts';
import { redisUrl } from '../helpers/server.ts';

describe('cluster nodes: a node is lost once its entry has been missing for 4 s', () => {
  const redis = new Redis(redisUrl);
  const prefix = `quire-test-nodes-${Math.random().toString(36).slice(2)}`;
  after(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts from when it first saw the entry missing; an entry that comes back resets it', async () => {
    let now = 1_000_000;
    const nodes = new ClusterNodes(redis, prefix, 'b', 'key-b', () => now);
    // Its own id is never lost, nor a node whose entry is there.
    await redis.set(`${prefix}:node:c`, JSON.stringify({ url: null, instance: 'i', keyId: 'k', beat: 1 }));
    assert.deepEqual(await nodes.lost(['a', 'b', 'c']), []);
    now += 4000 - 1;
    assert.deepEqual(await nodes.lost(['a', 'b', 'c']), []);
    now += 1;
    assert.deepEqual(await nodes.lost(['a', 'b', 'c']), ['a']);

    // Back (a live node rewrote it after a Redis restart): not lost, and its count starts over.
    await redis.set(`${prefix}:node:a`, JSON.stringify({ url: null, instance: 'i', keyId: 'k', beat: 1 }));
    assert.deepEqual(await nodes.lost(['a', 'c']), []);
    await redis.del(`${prefix}:node:a`);
    assert.deepEqual(await nodes.lost(['a', 'c']), []);
    now += 4000 - 1;
    assert.deepEqual(await nodes.lost(['a', 'c']), []);
    now += 1;
    assert.deepEqual(await nodes.lost(['a', 'c']), ['a']);
  });
});
