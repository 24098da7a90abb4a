import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/api-keys.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { startApp, useApp } from '../helpers/app.ts';
import { Site } from '../helpers/site.ts';

/**
 * Monitors through the HTTP contract in-process, on a clock the test moves: a monitor that runs
 * on its schedule, detects a change on a page the test edits, calls a webhook receiver on
 * loopback, lists its checks and their pages; pause, resume, validation and deletion.
 */

interface Check {
  id: string;
  status: string;
  trigger: string;
  summary: { totalPages: number; same: number; changed: number; new: number; removed: number; error: number };
  targetResults: { targetId: string; type: string; expectedJobs?: string[] }[];
  actualCredits: number | null;
  pages?: { url: string; status: string; diff: { text: string } | null; statusCode: number | null }[];
  next?: string | null;
}

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

describe('monitors', () => {
  const site = new Site();
  const receiver = new Site();
  let now = T0;
  let article = '<h1>Tide tables</h1><p>High water is at 06:10 on Monday, the ferry sails an hour after.</p>';
  const hooks: { body: string; signature: string | undefined }[] = [];
  const hookWaiters: ((n: number) => void)[] = [];
  const app = useApp(
    { QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_LOG_LEVEL: 'info', QUIRE_WEBHOOK_SECRET: 'tide-secret' },
    { monitorClock: () => now },
  );
  before(async () => {
    site.on('/tides', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><title>Tides</title></head><body>${article}</body></html>`),
    );
    site.page(
      '/harbour',
      '<h1>Harbour</h1><p>The harbour office opens at eight and closes at six every day.</p>',
    );
    receiver.on('/hook', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push({
          body: Buffer.concat(chunks).toString('utf8'),
          signature: req.headers['x-firecrawl-signature'] as string | undefined,
        });
        res.writeHead(200).end();
        for (const wake of hookWaiters) wake(hooks.length);
      });
    });
    await Promise.all([site.listen(), receiver.listen()]);
  });
  after(async () => {
    await site.close();
    await receiver.close();
  });

  /** Resolves once `n` webhook deliveries have arrived (subscribe before causing them). */
  const deliveries = (n: number) =>
    new Promise<void>((resolve) => {
      if (hooks.length >= n) return resolve();
      hookWaiters.push((count) => {
        if (count >= n) resolve();
      });
    });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app().fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${app().key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { success: boolean; data: any; error?: string },
    };
  };
  const checkFinished = () =>
    app().waitForOutput(
      /"check":"([^"]+)","status":"(\w+)"[^\n]*"msg":"monitor check finished"/,
      app().output().length,
    );

  let monitorId = '';
  const targets = () => [{ type: 'scrape', id: 'pages', urls: [`${site.url}/tides`, `${site.url}/harbour`] }];

  it('creates a monitor whose schedule, read from words, runs on the clock; its first check finds the pages new', async () => {
    const created = await call('POST', '/v2/monitor', {
      name: 'Tide pages',
      schedule: { text: 'every 30 minutes', timezone: 'Europe/Paris' },
      targets: targets(),
      webhook: {
        url: `${receiver.url}/hook`,
        events: ['changed', 'completed'],
        metadata: { desk: 'harbour' },
      },
      origin: 'js-sdk@4.42.0',
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const monitor = created.body.data;
    monitorId = monitor.id;
    assert.deepEqual(monitor.schedule, {
      cron: '*/30 * * * *',
      timezone: 'Europe/Paris',
      text: 'every 30 minutes',
    });
    assert.equal(monitor.status, 'active');
    assert.equal(monitor.nextRunAt, '2030-01-01T00:30:00.000Z');
    assert.equal(monitor.retentionDays, 30);
    // Two pages, 48 checks a day, 30 days.
    assert.equal(monitor.estimatedCreditsPerMonth, 2 * 48 * 30);

    const finished = checkFinished();
    const hooked = deliveries(2);
    now = T0 + 30 * 60_000;
    const [, checkId, status] = await finished;
    assert.equal(status, 'completed');
    await hooked;
    const check = (await call('GET', `/v2/monitor/${monitorId}/checks/${checkId}`)).body.data as Check;
    assert.equal(check.trigger, 'scheduled');
    assert.deepEqual(check.summary, { totalPages: 2, same: 0, changed: 0, new: 2, removed: 0, error: 0 });
    assert.equal(check.actualCredits, 2);
    assert.equal(check.targetResults[0]!.targetId, 'pages');
    assert.deepEqual(check.pages!.map((p) => [new URL(p.url).pathname, p.status]).sort(), [
      ['/harbour', 'new'],
      ['/tides', 'new'],
    ]);
    const after = (await call('GET', `/v2/monitor/${monitorId}`)).body.data;
    assert.equal(after.nextRunAt, '2030-01-01T01:00:00.000Z');
    assert.equal(after.lastRunAt, '2030-01-01T00:30:00.000Z');
    assert.equal(after.currentCheckId, null);
    assert.deepEqual(after.lastCheckSummary, check.summary);
    const types = hooks.map((h) => JSON.parse(h.body).type).sort();
    assert.deepEqual(types, ['monitor.changed', 'monitor.completed']);
  });

  it('detects a change on a page, with its diff, and tells the webhook, signed', async () => {
    article = '<h1>Tide tables</h1><p>High water is at 07:25 on Monday, the ferry sails an hour after.</p>';
    const before = hooks.length;
    now = T0 + 40 * 60_000;
    const finished = checkFinished();
    const hooked = deliveries(before + 2);
    const run = await call('POST', `/v2/monitor/${monitorId}/run`, {});
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.data.trigger, 'manual');
    const [, checkId] = await finished;
    await hooked;
    const check = (await call('GET', `/v2/monitor/${monitorId}/checks/${checkId}`)).body.data as Check;
    assert.deepEqual(check.summary, { totalPages: 2, same: 1, changed: 1, new: 0, removed: 0, error: 0 });
    const tides = check.pages!.find((p) => p.url.endsWith('/tides'))!;
    assert.equal(tides.status, 'changed');
    assert.match(tides.diff!.text, /-High water is at 06:10/);
    assert.match(tides.diff!.text, /\+High water is at 07:25/);
    const changed = hooks.slice(before).find((h) => JSON.parse(h.body).type === 'monitor.changed')!;
    const payload = JSON.parse(changed.body);
    assert.equal(payload.id, monitorId);
    assert.deepEqual(payload.metadata, { desk: 'harbour' });
    assert.equal(payload.data[0].checkId, checkId);
    assert.deepEqual(
      payload.data[0].pages.map((p: { url: string; status: string }) => [new URL(p.url).pathname, p.status]),
      [['/tides', 'changed']],
    );
    const expected = createHmac('sha256', 'tide-secret').update(changed.body).digest('hex');
    assert.equal(changed.signature, `sha256=${expected}`);
    // The schedule is where it was: a manual run does not move it.
    assert.equal(
      (await call('GET', `/v2/monitor/${monitorId}`)).body.data.nextRunAt,
      '2030-01-01T01:00:00.000Z',
    );
  });

  it('lists checks newest first and pages a check by status, with next', async () => {
    const finished = checkFinished();
    const hooked = deliveries(hooks.length + 1);
    now = T0 + 60 * 60_000;
    const [, checkId] = await finished;
    await hooked;
    // Nothing changed: `completed` only.
    assert.equal(JSON.parse(hooks.at(-1)!.body).type, 'monitor.completed');
    const checks = (await call('GET', `/v2/monitor/${monitorId}/checks`)).body.data as Check[];
    assert.equal(checks.length, 3);
    assert.equal(checks[0]!.id, checkId);
    assert.deepEqual(checks[0]!.summary, {
      totalPages: 2,
      same: 2,
      changed: 0,
      new: 0,
      removed: 0,
      error: 0,
    });
    const one = (await call('GET', `/v2/monitor/${monitorId}/checks?limit=1&offset=1`)).body.data as Check[];
    assert.deepEqual(
      one.map((c) => c.id),
      [checks[1]!.id],
    );
    const paged = (await call('GET', `/v2/monitor/${monitorId}/checks/${checks[1]!.id}?limit=1`)).body;
    assert.equal(paged.data.pages.length, 1);
    assert.match(
      paged.data.next,
      new RegExp(`/v2/monitor/${monitorId}/checks/${checks[1]!.id}\\?skip=1&limit=1$`),
    );
    const changed = (await call('GET', `/v2/monitor/${monitorId}/checks/${checks[1]!.id}?status=changed`))
      .body.data;
    assert.deepEqual(
      changed.pages.map((p: { status: string }) => p.status),
      ['changed'],
    );
    assert.equal(changed.next, null);
  });

  it('pauses and resumes, renames, and refuses a run while one is running', async () => {
    const paused = await call('PATCH', `/v2/monitor/${monitorId}`, { status: 'paused', name: 'Tides only' });
    assert.equal(paused.status, 200);
    assert.equal(paused.body.data.status, 'paused');
    assert.equal(paused.body.data.nextRunAt, null);
    assert.equal(paused.body.data.name, 'Tides only');
    const resumed = await call('PATCH', `/v2/monitor/${monitorId}`, {
      status: 'active',
      schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
    });
    // 2030-01-01 is a Tuesday; the next Monday is the 7th.
    assert.equal(resumed.body.data.nextRunAt, '2030-01-07T09:00:00.000Z');
    const listed = (await call('GET', '/v2/monitor')).body.data as { id: string }[];
    assert.deepEqual(
      listed.map((m) => m.id),
      [monitorId],
    );
  });

  it('refuses what it cannot do, naming the field, and answers 404 for monitors that are not yours', async () => {
    const refused = async (body: unknown, pattern: RegExp) => {
      const res = await call('POST', '/v2/monitor', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error!, pattern);
    };
    const base = { name: 'x', schedule: { text: 'hourly' }, targets: targets() };
    await refused({ ...base, schedule: { text: 'every 2 minutes' } }, /more often than every 5 minutes/);
    await refused({ ...base, schedule: { text: 'whenever' } }, /body\.schedule\.text could not be read/);
    await refused(
      { ...base, schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } },
      /timezone is not a time zone/,
    );
    await refused(
      { ...base, targets: [{ type: 'search', queries: ['tides'] }] },
      /search targets need a search engine/,
    );
    await refused({ ...base, notification: { email: { enabled: true } } }, /Quire sends no email/);
    await refused({ ...base, judgeEnabled: true }, /body\.judgeEnabled/);
    await refused({ ...base, targets: [] }, /body\.targets must hold at least one target/);
    await refused(
      { ...base, webhook: { url: `${receiver.url}/hook`, events: ['page'] } },
      /body\.webhook\.events\[0\]/,
    );
    assert.equal((await call('GET', '/v2/monitor/0190a5d2-0000-7000-8000-000000000000')).status, 404);
  });

  it("skips a check when the team's balance is empty, saying why", async () => {
    const store = new SqliteStore(path.join(app().dataDir, 'quire.db'));
    try {
      const { key } = await createApiKey(store, 'thrifty');
      // Before the team's first request: the app keeps a team's settings once read.
      await store.updateTeam('thrifty', { credits: 0 });
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const created = await app().fetch('/v2/monitor', {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'x', schedule: { text: 'hourly' }, targets: targets() }),
      });
      const { data } = (await created.json()) as { data: { id: string } };
      const run = await app().fetch(`/v2/monitor/${data.id}/run`, { method: 'POST', headers, body: '{}' });
      assert.equal(run.status, 200);
      const check = ((await run.json()) as { data: Check & { error: string; finishedAt: string } }).data;
      assert.equal(check.status, 'skipped_no_credits');
      assert.equal(check.actualCredits, 0);
      assert.match(check.error, /no credits left/);
      // Nothing runs: the monitor is free for its next check.
      const monitor = await app().fetch(`/v2/monitor/${data.id}`, { headers });
      assert.equal(
        ((await monitor.json()) as { data: { currentCheckId: string | null } }).data.currentCheckId,
        null,
      );
    } finally {
      await store.close();
    }
  });

  it('deletes a monitor with its checks', async () => {
    assert.deepEqual((await call('DELETE', `/v2/monitor/${monitorId}`)).body, { success: true });
    const gone = await call('GET', `/v2/monitor/${monitorId}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { success: false, error: 'Monitor not found' });
    assert.equal((await call('GET', `/v2/monitor/${monitorId}/checks`)).status, 404);
  });
});

describe('a monitor across a restart', () => {
  it('keeps its schedule in the store: the restarted process runs the check that fell due', async () => {
    const site = new Site();
    site.page('/notice', '<h1>Notice</h1><p>The lock is closed for repairs until the end of the month.</p>');
    await site.listen();
    let now = T0;
    // A data folder of the test's own: each app removes only its own when it closes.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-restart-'));
    const key = 'test-key-restart';
    const env = {
      QUIRE_DATA_DIR: dataDir,
      QUIRE_API_KEYS: key,
      QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
      QUIRE_LOG_LEVEL: 'info',
    };
    const first = await startApp(env, { monitorClock: () => now });
    try {
      const res = await first.fetch('/v2/monitor', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Lock notices',
          schedule: { cron: '0 6 * * *' },
          targets: [{ type: 'scrape', urls: [`${site.url}/notice`] }],
        }),
      });
      const { data } = (await res.json()) as { data: { id: string; nextRunAt: string } };
      assert.equal(data.nextRunAt, '2030-01-01T06:00:00.000Z');
      await first.close();
      // Down over the due time; up again after it.
      now = T0 + 7 * 3_600_000;
      const second = await startApp(env, { monitorClock: () => now });
      try {
        const finished = second.waitForOutput(
          /"check":"([^"]+)","status":"(\w+)"[^\n]*"msg":"monitor check finished"/,
        );
        // An in-process app starts (its scheduler too) with its first request, as a server does when it listens.
        assert.equal((await second.fetch('/health')).status, 200);
        const [, checkId, status] = await finished;
        assert.equal(status, 'completed');
        const check = (await (
          await second.fetch(`/v2/monitor/${data.id}/checks/${checkId}`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as { data: { trigger: string; scheduledFor: string; summary: { new: number } } };
        assert.equal(check.data.trigger, 'scheduled');
        assert.equal(check.data.scheduledFor, '2030-01-01T06:00:00.000Z');
        assert.equal(check.data.summary.new, 1);
      } finally {
        await second.close();
      }
    } finally {
      await site.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
