import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { JobRunner } from '../../src/jobs/job-runner.ts';
import type { MonitorRecord } from '../../src/jobs/monitors/monitor-store.ts';
import { cronFromText, nextRun, readSchedule, runsPerMonth } from '../../src/jobs/monitors/schedule.ts';
import { MonitorScheduler } from '../../src/jobs/monitors/scheduler.ts';
import type { Credits } from '../../src/quota/credits.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createDatabase } from '../helpers/postgres.ts';

/** Monitors' schedules read from words and cron, and a due check started once by two processes racing for it. */

describe('monitor schedules', () => {
  it('reads schedules written in words as cron expressions', () => {
    const cases: [string, string | undefined][] = [
      ['every 15 minutes', '*/15 * * * *'],
      ['Every 2 hours', '0 */2 * * *'],
      ['every 120 minutes', '0 */2 * * *'],
      ['hourly', '0 * * * *'],
      ['daily', '0 0 * * *'],
      ['daily at 9:30', '30 9 * * *'],
      ['every day at 5pm', '0 17 * * *'],
      ['weekdays at 8am', '0 8 * * 1-5'],
      ['every monday at 17:30', '30 17 * * 1'],
      ['weekly on fridays at noon', '0 12 * * 5'],
      ['weekly', '0 0 * * 1'],
      ['monthly on the 1st at midnight', '0 0 1 * *'],
      ['every 90 minutes', undefined],
      ['daily at 25:00', undefined],
      ['monthly on the 31st', undefined],
      ['every blue moon', undefined],
    ];
    for (const [text, cron] of cases) assert.equal(cronFromText(text), cron, text);
  });

  it('finds the next run in the schedule’s time zone, and how often it runs in a month', () => {
    const schedule = readSchedule(
      { cron: '0 9 * * *', timezone: 'Europe/Paris' },
      new Date('2030-06-01T00:00:00Z'),
    );
    // 9:00 in Paris is 7:00 UTC in summer, 8:00 in winter.
    assert.equal(nextRun(schedule, new Date('2030-06-01T00:00:00Z')), '2030-06-01T07:00:00.000Z');
    assert.equal(nextRun(schedule, new Date('2030-12-01T00:00:00Z')), '2030-12-01T08:00:00.000Z');
    assert.equal(Math.round(runsPerMonth(schedule, new Date('2030-06-01T00:00:00Z'))!), 30);
  });

  it('refuses schedules that run too often, never parse, or name no time zone', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const refused = (given: object, pattern: RegExp) =>
      assert.throws(
        () => readSchedule(given, now),
        (e: Error & { status?: number }) => e.status === 400 && pattern.test(e.message),
      );
    refused({ cron: '* * * * *' }, /more often than every 5 minutes/);
    refused({ cron: '0,2 9 * * *' }, /more often than every 5 minutes/);
    refused({ cron: '0 9 * *' }, /five fields/);
    refused({ cron: '0 99 * * *' }, /not a valid cron expression/);
    refused({ cron: '0 9 * * *', timezone: 'Atlantis/Capital' }, /timezone is not a time zone/);
    refused({}, /cron expression \(cron\) or words \(text\)/);
  });
});

/** Two schedulers on one store, as two API processes of a cluster would be, racing for a due monitor. */
async function raceForADueMonitor(open: () => Promise<Store>): Promise<void> {
  const stores = [await open(), await open()];
  try {
    const kicked: string[] = [];
    const due = '2030-01-01T00:30:00.000Z';
    const monitor: MonitorRecord = {
      id: '0190a5d2-0000-7000-8000-00000000a001',
      team: 'team-a',
      keyId: 'key-1',
      name: 'race',
      status: 'active',
      schedule: JSON.stringify({ cron: '*/30 * * * *', timezone: 'UTC' }),
      targets: JSON.stringify([
        { id: 't', type: 'scrape', urls: ['https://example.com/'], scrapeOptions: {} },
      ]),
      webhook: null,
      retentionDays: 30,
      goal: null,
      judgeEnabled: false,
      base: 'http://localhost:3002',
      nextRunAt: due,
      lastRunAt: null,
      currentCheckId: null,
      lastCheckSummary: null,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
    };
    await stores[0]!.monitors.createMonitor(monitor);
    const schedulers = stores.map(
      (store) =>
        new MonitorScheduler({
          jobs: store.jobs,
          monitors: store.monitors,
          runner: { kick: (id: string) => kicked.push(id) } as unknown as JobRunner,
          credits: { reserve: async () => ({ release: async () => {} }) } as unknown as Credits,
          webhooks: undefined,
          now: () => Date.parse('2030-01-01T00:31:00.000Z'),
          log: { info: () => {}, warn: () => {} },
        }),
    );
    await Promise.all(schedulers.map((s) => s.look()));
    const checks = await stores[0]!.monitors.listChecks(monitor.id, 10, 0);
    assert.equal(checks.length, 1, 'one check, whichever process started it');
    assert.equal(kicked.length, 1, "one job, the check's one target");
    const after = await stores[1]!.monitors.getMonitor(monitor.id);
    assert.equal(after?.currentCheckId, checks[0]!.id);
    assert.equal(after?.nextRunAt, '2030-01-01T01:00:00.000Z');
    await Promise.all(schedulers.map((s) => s.close()));
  } finally {
    for (const store of stores) await store.close();
  }
}

describe('a due monitor seen by two processes', () => {
  it('starts one check on SQLite', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-monitors-')), 'quire.db');
    await raceForADueMonitor(async () => new SqliteStore(file));
  });
  it('starts one check on PostgreSQL', async () => {
    const database = await createDatabase();
    try {
      await raceForADueMonitor(() => PostgresStore.open(database.url));
    } finally {
      await database.drop();
    }
  });
});
