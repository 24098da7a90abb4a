// A session's ttl and activityTtl against real browsers, on a clock the test moves: the app is
// built in this process (startApp) with a TestClock for its sessions, so that an expiry comes when
// the test says, not after a minute of waiting, and its time is exact. The app listens on a
// loopback port only for the live view's WebSocket. How the clock counts is unit-tested in
// test/unit/session-clock.test.ts; here, that its expiry ends a real browser and tells its viewers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type InProcessApp, startApp } from '../helpers/app.ts';
import {
  api,
  createSession,
  isRunning,
  openLiveSocket,
  recordedPid,
  sessionFolder,
  TestClock,
} from '../helpers/sessions.ts';

const s = 1000;

describe('interact sessions on a clock the test moves (the app in-process, real browsers)', () => {
  const clock = new TestClock();
  let target: InProcessApp;
  /** Where the app listens, for WebSockets (inject() carries no upgrade). */
  let origin: string;
  before(async () => {
    // One session at a time: the last test is about that cap. Info logs say when a session ended.
    target = await startApp({ QUIRE_LOG_LEVEL: 'info', QUIRE_SESSIONS_MAX: '1' }, { sessionTimers: clock });
    await target.app.server.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(target.app.server.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await target?.close();
  });

  /** The log line of the session's end, from what is written after this call: ask before the tick. */
  const destroyed = (id: string) =>
    target.waitForOutput(
      new RegExp(`"sessionId":"${id}"[^\\n]*"msg":"session destroyed"`),
      target.output().length,
    );
  const shown = async (id: string) => (await api(target, 'GET', `/v2/interact/${id}`)).body;

  it('ends an idle session exactly activityTtl after create answered, and its browser with it', async () => {
    const created = await createSession(target, { activityTtl: 10 });
    const pid = await recordedPid(target, created.id);
    assert.ok(isRunning(pid));
    clock.tick(10 * s - 1);
    assert.equal((await shown(created.id)).status, 'active', 'not before its activityTtl');

    const ended = destroyed(created.id);
    clock.tick(1);
    await ended;
    const record = await shown(created.id);
    assert.equal(record.status, 'destroyed');
    assert.equal(record.closeReason, 'no activity for 10 s (activityTtl)');
    assert.equal(Date.parse(record.closedAt) - Date.parse(record.createdAt), 10 * s);
    assert.equal(isRunning(pid), false, 'the browser was ended');
    assert.equal(fs.existsSync(sessionFolder(target, created.id)), false, 'its folder was removed');
  });

  it('an open live viewer keeps a session past its activityTtl', async () => {
    const created = await createSession(target, { activityTtl: 10, ttl: 3600 });
    const viewer = await openLiveSocket(created.liveViewUrl, origin);
    try {
      // The viewer is counted once the server has said its mode.
      await viewer.message('mode');
      clock.tick(60 * s);
      const watched = await shown(created.id);
      assert.equal(watched.status, 'active', watched.closeReason);
      // Its last activity moved on with the clock: the open viewer counts as activity all along.
      assert.ok(
        Date.parse(watched.lastActivity) - Date.parse(watched.createdAt) > 50 * s,
        watched.lastActivity,
      );
    } finally {
      viewer.ws.close();
      await api(target, 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('ends a session ttl seconds after it was created, even while a viewer keeps it active, and tells the viewer', async () => {
    const created = await createSession(target, { ttl: 60, activityTtl: 20 });
    const viewer = await openLiveSocket(created.liveViewUrl, origin);
    await viewer.message('mode');
    clock.tick(60 * s - 1);
    const before = await shown(created.id);
    assert.equal(before.status, 'active');
    assert.equal(Date.parse(before.expiresAt) - Date.parse(before.createdAt), 60 * s);
    // The viewer's activity went on past the activityTtl of 20 s: the ttl ends it, not idleness.
    assert.ok(Date.parse(before.lastActivity) - Date.parse(before.createdAt) > 20 * s, before.lastActivity);

    const ended = destroyed(created.id);
    const told = viewer.message('ended');
    clock.tick(1);
    await ended;
    assert.equal((await told).reason, 'its ttl of 60 s ran out');
    const record = await shown(created.id);
    assert.equal(record.closeReason, 'its ttl of 60 s ran out');
    assert.equal(record.closedAt, before.expiresAt);
  });

  it('QUIRE_SESSIONS_MAX caps the node’s sessions with 429 and Retry-After before launching anything; execute is off by default', async () => {
    const first = await createSession(target);
    try {
      const over = await api(target, 'POST', '/v2/interact', {});
      assert.equal(over.status, 429);
      assert.deepEqual(over.body, {
        error:
          'This server holds its maximum number of concurrent browser sessions (1). Please retry after a session ends.',
      });
      assert.equal(over.headers.get('retry-after'), '30');
      const active = (await api(target, 'GET', '/v2/interact?status=active')).body.sessions;
      assert.deepEqual(
        active.map((one: { id: string }) => one.id),
        [first.id],
      );
      // Nothing of the refused one was launched: the run folder holds the first session's only.
      assert.deepEqual(fs.readdirSync(path.join(target.dataDir, 'sessions', 'run')), [first.id]);

      // Execute is off unless the operator turns it on.
      const execute = await api(target, 'POST', `/v2/interact/${first.id}/execute`, { code: 'return 1' });
      assert.equal(execute.status, 403);
      assert.deepEqual(execute.body, {
        success: false,
        error:
          "Execute is turned off on this server: it runs the caller's code on the host. The operator turns it on with QUIRE_SESSIONS_EXECUTE=true.",
      });
    } finally {
      await api(target, 'DELETE', `/v2/interact/${first.id}`);
    }
    // The slot is free again.
    const next = await createSession(target);
    assert.equal((await api(target, 'DELETE', `/v2/interact/${next.id}`)).status, 200);
  });
});
