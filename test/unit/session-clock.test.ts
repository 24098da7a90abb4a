import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { SessionClock } from '../../src/sessions/session-clock.ts';
import type { SessionRecord } from '../../src/store/store.ts';

const s = 1000;
/** The store write of last activity is batched to one per 2 s (limits.ts, activityFlushMs). */
const flushMs = 2 * s;

/** A session record created now (the mocked now), with these lifetimes in seconds. */
function record(ttlS: number, activityTtlS: number): SessionRecord {
  const now = Date.now();
  return {
    id: 'session',
    team: 'team',
    status: 'active',
    createdAt: new Date(now).toISOString(),
    lastActivity: new Date(now).toISOString(),
    expiresAt: new Date(now + ttlS * s).toISOString(),
    ttlS,
    activityTtlS,
    streamWebView: true,
    profileName: null,
    profileWriter: false,
    nodeId: 'node',
    pid: null,
    closedAt: null,
    closeReason: null,
  };
}

/** A clock on `rec` whose expiries and flushes are recorded with the (mocked) time they came at. */
function clockOn(rec: SessionRecord) {
  const start = Date.now();
  const expired: { at: number; reason: string }[] = [];
  const flushed: { at: number; lastActivity: string }[] = [];
  const clock = new SessionClock(rec, {
    expire: (reason) => expired.push({ at: Date.now() - start, reason }),
    flush: () => flushed.push({ at: Date.now() - start, lastActivity: rec.lastActivity }),
  });
  return { clock, expired, flushed };
}

describe('a session’s clock (ttl, activityTtl, activity flushes) on mocked timers', () => {
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.UTC(2030, 0, 1) });
  });
  afterEach(() => {
    mock.timers.reset();
  });

  it('ends a session ttl seconds after it was created, however busy it is', () => {
    const { clock, expired } = clockOn(record(60, 20));
    clock.start();
    // Activity every 5 s keeps the activityTtl of 20 s from ever running out.
    for (let at = 5 * s; at < 60 * s; at += 5 * s) {
      mock.timers.tick(5 * s);
      clock.touch();
    }
    mock.timers.tick(5 * s - 1);
    assert.deepEqual(expired, [], 'not before its ttl');
    mock.timers.tick(1);
    assert.deepEqual(expired, [{ at: 60 * s, reason: 'its ttl of 60 s ran out' }]);
    mock.timers.tick(3600 * s);
    assert.equal(expired.length, 1, 'once');
  });

  it('ends an idle session activityTtl seconds after its last activity', () => {
    const { clock, expired } = clockOn(record(600, 10));
    clock.start();
    mock.timers.tick(10 * s - 1);
    assert.deepEqual(expired, []);
    mock.timers.tick(1);
    assert.deepEqual(expired, [{ at: 10 * s, reason: 'no activity for 10 s (activityTtl)' }]);
  });

  it('re-arms on activity: the activityTtl counts from the last activity', () => {
    const rec = record(600, 10);
    const { clock, expired } = clockOn(rec);
    clock.start();
    mock.timers.tick(6 * s);
    clock.touch();
    assert.equal(rec.lastActivity, new Date(Date.UTC(2030, 0, 1) + 6 * s).toISOString());
    // Past the first deadline (10 s): the timer set for it finds activity since, and waits on.
    mock.timers.tick(10 * s - 1);
    assert.deepEqual(expired, []);
    mock.timers.tick(1);
    assert.deepEqual(expired, [{ at: 16 * s, reason: 'no activity for 10 s (activityTtl)' }]);
  });

  it('whichever comes first: an activityTtl past the ttl never outlives it', () => {
    const { clock, expired } = clockOn(record(30, 3600));
    clock.start();
    mock.timers.tick(30 * s);
    assert.deepEqual(expired, [{ at: 30 * s, reason: 'its ttl of 30 s ran out' }]);
  });

  it('counts from start, and a session already past its time when it starts ends at once', () => {
    const rec = record(30, 10);
    const { clock, expired } = clockOn(rec);
    // Launching took 40 s of the clock: nothing ran out meanwhile, since the clock had not started.
    mock.timers.tick(40 * s);
    assert.deepEqual(expired, []);
    clock.start();
    mock.timers.tick(0);
    assert.deepEqual(expired, [{ at: 40 * s, reason: 'its ttl of 30 s ran out' }]);
  });

  it('writes last activity to the store at most every 2 s, and only after activity', () => {
    const rec = record(600, 300);
    const { clock, flushed } = clockOn(rec);
    clock.start();
    mock.timers.tick(10 * s);
    assert.deepEqual(flushed, [], 'no activity, no write');
    // Four touches within 2 s are one write, 2 s after the first, of the latest activity.
    for (let i = 0; i < 4; i++) {
      clock.touch();
      mock.timers.tick(s / 2);
    }
    assert.deepEqual(flushed, [
      { at: 12 * s, lastActivity: new Date(Date.UTC(2030, 0, 1) + 11.5 * s).toISOString() },
    ]);
    // The next touch starts the next 2 s.
    mock.timers.tick(3 * s);
    clock.touch();
    mock.timers.tick(flushMs - 1);
    assert.equal(flushed.length, 1);
    mock.timers.tick(1);
    assert.deepEqual(flushed[1], {
      at: 17 * s,
      lastActivity: new Date(Date.UTC(2030, 0, 1) + 15 * s).toISOString(),
    });
    mock.timers.tick(60 * s);
    assert.equal(flushed.length, 2);
  });

  it('stops: no expiry and no pending write after stop, and start does not restart it', () => {
    const { clock, expired, flushed } = clockOn(record(60, 10));
    clock.start();
    clock.touch();
    clock.stop();
    mock.timers.tick(120 * s);
    assert.deepEqual([expired, flushed], [[], []]);
    clock.start();
    clock.touch();
    mock.timers.tick(120 * s);
    assert.deepEqual([expired, flushed], [[], []]);
  });
});
