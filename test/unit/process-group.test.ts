import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { groupGone, liveGroupMembers } from '../../src/sessions/process-group.ts';

/** A process group of a shell and the two sleeps it started, as a browser leads its helpers. */
async function startGroup(): Promise<number> {
  const leader = spawn('sh', ['-c', 'sleep 60 & sleep 60 & echo started; wait'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await once(leader.stdout!, 'data');
  return leader.pid!;
}

describe('process groups (src/sessions/process-group.ts)', () => {
  it('lists a group’s live processes, and resolves once a killed group has gone', async () => {
    const pgid = await startGroup();
    try {
      assert.equal(liveGroupMembers(pgid).length, 3);
      assert.equal(await groupGone(pgid, 50), false, 'a running group is not gone');
    } finally {
      process.kill(-pgid, 'SIGKILL');
    }
    assert.equal(await groupGone(pgid, 60_000), true);
    assert.deepEqual(liveGroupMembers(pgid), []);
  });
});
