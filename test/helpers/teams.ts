import assert from 'node:assert/strict';
import { limits } from '../../src/limits.ts';
import { createApiKey } from '../../src/store/api-keys.ts';
import type { Store } from '../../src/store/store.ts';
import type { HttpTarget, InProcessApp } from './app.ts';
import type { Cli } from './cli.ts';
import { ocrWithin, pagesToRecognise } from './pdf.ts';
import { parse } from './server.ts';

/**
 * What the team tests share, in-process (test/http/teams.test.ts) and against a cluster
 * (test/e2e/teams.test.ts): the checks made through the `quire` CLI, as an operator runs it.
 */

/** An HTML upload whose text and file name are `text`. */
export const html = (text: string) => ({
  bytes: `<html><body><p>${text}</p></body></html>`,
  filename: `${text}.html`,
});

/**
 * What a team test does to a team's store: `cli`, the `quire` CLI, for what an operator does
 * (settings, credits, the audit export); `key` and `balance`, for setup and for looking, in this
 * process on the same store, which spares a process start each (seconds of CPU on a busy machine;
 * `keys create` and `teams show` have tests of their own).
 */
export interface Operator {
  cli: Cli;
  /** A new key of `team`, labelled when `label` is given. */
  key(team: string, label?: string): Promise<string>;
  /** `team`'s credit balance as `teams show` prints it: a number, or `unlimited`. */
  balance(team: string): Promise<string>;
}

export function operator(cli: Cli, store: Store): Operator {
  return {
    cli,
    key: async (team, label) => (await createApiKey(store, team, label ?? null)).key,
    balance: async (team) => String((await store.getTeam(team))?.credits ?? 'unlimited'),
  };
}

/** Audit events of `team` as `audit export` prints them, one JSON object a line. */
export async function exported(
  cli: Cli,
  team: string,
  since = '2000-01-01',
): Promise<Record<string, unknown>[]> {
  const out = await cli('audit', 'export', '--since', since, '--team', team);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * 20 parses at once against a balance of 5, each of a document that costs 1: exactly 5 answer,
 * the rest get the contract's 402, and the balance ends at 0, never below.
 */
export async function creditRace(
  target: HttpTarget,
  { cli, key: keyOf, balance }: Operator,
  team: string,
): Promise<void> {
  const key = await keyOf(team);
  await cli('teams', 'credit', team, '--set', '5');
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => parse(target, { file: html(`race ${i}`), key })),
  );
  const statuses = answers.map((a) => a.status);
  assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(' '));
  assert.equal(statuses.filter((s) => s === 402).length, 15, statuses.join(' '));
  for (const a of answers.filter((x) => x.status === 402)) assert.deepEqual(Object.keys(a.body), ['error']);
  for (const a of answers.filter((x) => x.status === 200)) assert.equal(a.body.data.metadata.creditsUsed, 1);
  assert.equal(await balance(team), '0');
}

/**
 * 20 parses at once of 3-page PDFs (4 credits each) against a balance of 10, from `targets` in
 * turn: the pages served are never more than the balance paid for. Every answer's credits are
 * 1 plus the pages it parsed; together they are what the balance lost, and at most 10; the
 * rest are refused with 402.
 */
export async function pdfCreditRace(
  targets: HttpTarget[],
  { cli, key: keyOf, balance }: Operator,
  team: string,
): Promise<void> {
  const key = await keyOf(team);
  await cli('teams', 'credit', team, '--set', '10');
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      parse(targets[i % targets.length]!, {
        file: { bytes: pagesToRecognise(3), filename: `race-${i}.pdf` },
        key,
      }),
    ),
  );
  const served = answers.filter((a) => a.status === 200);
  assert.ok(served.length > 0 && served.length < 20, answers.map((a) => a.status).join(' '));
  for (const a of answers.filter((x) => x.status !== 200))
    assert.equal(a.status, 402, JSON.stringify(a.body));
  let paid = 0;
  for (const a of served) {
    const { creditsUsed, numPages, totalPages } = a.body.data.metadata;
    assert.equal(totalPages, 3);
    assert.equal(creditsUsed, 1 + numPages);
    // A document cut short by the balance says so.
    if (numPages < 3) assert.match(a.body.data.warning, /credits paid for \d of the document's 3 pages/);
    paid += creditsUsed;
  }
  assert.ok(paid <= 10, `served ${paid} credits of work against a balance of 10`);
  assert.equal(Number(await balance(team)), 10 - paid);
}

/** Settings written with `teams set` read back as written and hold the team's requests to them. */
export async function settingsRoundTrip(
  target: HttpTarget,
  { cli, key: keyOf }: Operator,
  team: string,
): Promise<void> {
  const key = await keyOf(team);
  assert.match(
    await cli(
      'teams',
      'set',
      team,
      '--concurrency',
      '3',
      '--queue-depth',
      '0',
      '--rate',
      '2',
      '--key-rate',
      '5',
      '--audit',
      'off',
      '--zdr',
      'forbidden',
    ),
    new RegExp(
      `^${team} {2}concurrency=3 {2}queue-depth=0 {2}rate=2/min {2}key-rate=5/min {2}audit=off {2}zdr=forbidden {2}credits=unlimited$`,
      'm',
    ),
  );
  assert.equal(
    await cli('teams', 'show', team),
    `team ${team}\nconcurrency 3\nqueue-depth 0\nrate 2/min\nkey-rate 5/min\naudit off\nzdr forbidden\ncredits unlimited\n`,
  );
  assert.match(await cli('teams', 'list'), new RegExp(`^${team} .*queue-depth=0 .*zdr=forbidden`, 'm'));

  const forbidden = await parse(target, { file: html('zdr'), options: { zeroDataRetention: true }, key });
  assert.equal(forbidden.status, 403);
  assert.deepEqual(forbidden.body, {
    success: false,
    error:
      'Zero Data Retention (ZDR) is not enabled for your team. Contact support@firecrawl.com to enable this feature.',
  });
  assert.equal((await parse(target, { file: html('plain'), key })).status, 200);
  // The third request in the minute: over the team's 2.
  const over = await parse(target, { file: html('third'), key });
  assert.equal(over.status, 429);
  assert.deepEqual(Object.keys(over.body), ['error']);
  assert.match(over.body.error, /at most 2 requests per minute, and 5 per key/);
  // Audit off: none of the three wrote an event.
  assert.deepEqual(await exported(cli, team), []);
}

/** The 429 a request gets when its team already has its queue depth of requests waiting. */
export const queueFull = (concurrency: number, queueDepth: number) => ({
  error: `Concurrency limit exceeded: your team's queue is full (it runs ${concurrency} at once and ${queueDepth} may wait). Please retry after ${limits.teamQueueFullRetryS}s.`,
});

/** Sets `team` to concurrency 1 and queue depth 1 with the CLI. */
export async function oneRunningOneWaiting(cli: Cli, team: string): Promise<void> {
  assert.match(
    await cli('teams', 'set', team, '--concurrency', '1', '--queue-depth', '1'),
    / {2}concurrency=1 {2}queue-depth=1 {2}/,
  );
}

/** Where a team's requests go: Quire, in this process or as a server, and its log. */
export type Watched = HttpTarget & Pick<InProcessApp, 'waitForOutput'>;

/** A request holding its team's only slot, and its client leaving; resolves once it has left. */
export type Holder = { leave(): Promise<void> };

/**
 * A parse of `key` that holds a slot of its team until its client leaves (an OCR run far longer
 * than the test), over `fetch` with an abort signal: a server process sees its socket close.
 */
export function holdSlot(target: HttpTarget, key: string): Holder {
  const leave = new AbortController();
  const holder = parse(target, {
    file: { bytes: pagesToRecognise(1000), filename: 'holder.pdf' },
    options: ocrWithin(120_000),
    key,
    signal: leave.signal,
  }).catch((error: Error) => error.name);
  return {
    async leave() {
      leave.abort();
      assert.equal(await holder, 'AbortError');
    },
  };
}

/**
 * With `key`'s team at concurrency 1 and queue depth 1, one parse holding the slot (`hold`'s)
 * and one in line, a third is refused with the contract's 429 and Retry-After; once both are
 * done, the next runs without waiting. The holder and the third go to `first`, the one in line
 * and the last to `second` (in a cluster, another API process).
 */
export async function queueDepthOfOne(
  key: string,
  team: string,
  first: Watched,
  second: Watched,
  hold: (target: HttpTarget, key: string) => Holder = holdSlot,
): Promise<void> {
  const submitted = first.waitForOutput(new RegExp(`"team":"${team}".*"msg":"conversion submitted"`));
  const holder = hold(first, key);
  await submitted;
  const waits = second.waitForOutput(
    new RegExp(`"team":"${team}".*"msg":"conversion waits for a team slot"`),
  );
  const queued = parse(second, { file: html('queued'), key });
  await waits;

  const refused = await parse(first, { file: html('refused'), key });
  assert.equal(refused.status, 429);
  assert.deepEqual(refused.body, queueFull(1, 1));
  assert.equal(refused.headers.get('retry-after'), String(limits.teamQueueFullRetryS));
  // The team's methods see both, from either process.
  assert.deepEqual((await getJson(first, '/v2/concurrency-check', key)).body, {
    success: true,
    concurrency: 1,
    maxConcurrency: 1,
  });
  assert.deepEqual((await getJson(second, '/v2/team/queue-status', key)).body, {
    success: true,
    jobsInQueue: 2,
    activeJobsInQueue: 1,
    waitingJobsInQueue: 1,
    maxConcurrency: 1,
    mostRecentSuccess: null,
  });

  await holder.leave();
  const inLine = await queued;
  assert.equal(inLine.status, 200, JSON.stringify(inLine.body));
  assert.match(inLine.body.data.markdown, /queued/);
  assert.equal(inLine.body.data.metadata.concurrencyLimited, true);
  // Slot and place in line both given back: the next neither waits nor is refused.
  const next = await parse(second, { file: html('next'), key });
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.match(next.body.data.markdown, /next/);
  assert.equal(next.body.data.metadata.concurrencyLimited, false);
  assert.deepEqual((await getJson(first, '/v2/concurrency-check', key)).body, {
    success: true,
    concurrency: 0,
    maxConcurrency: 1,
  });
}

/** What "unlimited" reads as where the SDKs need an integer: the largest exact JSON integer. */
const UNLIMITED = 9007199254740991;

/** A GET of `path` with `key`, its status and JSON body. */
async function getJson(target: HttpTarget, path: string, key: string) {
  const res = await target.fetch(path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/**
 * The team usage endpoints over a fresh team: two labelled keys spend 2 and 4 credits (two HTML
 * pages, a 3-page PDF); the credits read back this month, by month, by key; a balance set with
 * the CLI reads back as what remains; no model ran, so no tokens.
 */
export async function usageReport(target: HttpTarget, op: Operator, team: string): Promise<void> {
  const alpha = await op.key(team, 'alpha');
  const beta = await op.key(team, 'beta');
  for (const text of ['first', 'second'])
    assert.equal((await parse(target, { file: html(text), key: alpha })).status, 200);
  const pdf = await parse(target, { file: { bytes: pagesToRecognise(3), filename: 'three.pdf' }, key: beta });
  assert.equal(pdf.body.data.metadata.creditsUsed, 4);

  const credits = await getJson(target, '/v2/team/credit-usage', alpha);
  assert.equal(credits.status, 200);
  const { billingPeriodStart, billingPeriodEnd, ...rest } = credits.body.data;
  assert.deepEqual(rest, { remainingCredits: UNLIMITED, unlimited: true, planCredits: null, creditsUsed: 6 });
  // The calendar month (UTC) that holds now.
  assert.match(billingPeriodStart, /^\d{4}-\d\d-01T00:00:00\.000Z$/);
  assert.match(billingPeriodEnd, /^\d{4}-\d\d-01T00:00:00\.000Z$/);
  const start = new Date(billingPeriodStart);
  assert.ok(start.getTime() <= Date.now() && Date.now() < Date.parse(billingPeriodEnd));
  start.setUTCMonth(start.getUTCMonth() + 1);
  assert.equal(start.toISOString(), billingPeriodEnd);

  const monthly = await getJson(target, '/v2/team/credit-usage/historical', beta);
  assert.deepEqual(monthly.body, {
    success: true,
    periods: [{ startDate: billingPeriodStart, endDate: null, creditsUsed: 6 }],
  });
  const byKey = await getJson(target, '/v2/team/credit-usage/historical?byApiKey=true', beta);
  assert.deepEqual(byKey.body.periods, [
    { startDate: billingPeriodStart, endDate: null, apiKey: 'alpha', creditsUsed: 2 },
    { startDate: billingPeriodStart, endDate: null, apiKey: 'beta', creditsUsed: 4 },
  ]);
  const bad = await getJson(target, '/v2/team/credit-usage/historical?byApiKey=yes', beta);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /query\.byApiKey/);

  const tokens = await getJson(target, '/v2/team/token-usage', alpha);
  assert.deepEqual(tokens.body, {
    success: true,
    data: {
      remainingTokens: UNLIMITED,
      unlimited: true,
      planTokens: null,
      billingPeriodStart,
      billingPeriodEnd,
      tokensUsed: 0,
    },
  });
  assert.deepEqual((await getJson(target, '/v2/team/token-usage/historical', alpha)).body, {
    success: true,
    periods: [{ startDate: billingPeriodStart, endDate: null, tokensUsed: 0 }],
  });

  await op.cli('teams', 'credit', team, '--set', '10');
  const metered = await getJson(target, '/v2/team/credit-usage', alpha);
  assert.equal(metered.body.data.remainingCredits, 10);
  assert.equal(metered.body.data.unlimited, false);

  // Nothing running or waiting; the last answer was just now.
  const queue = await getJson(target, '/v2/team/queue-status', alpha);
  const { mostRecentSuccess, ...counts } = queue.body;
  assert.deepEqual(counts, {
    success: true,
    jobsInQueue: 0,
    activeJobsInQueue: 0,
    waitingJobsInQueue: 0,
    maxConcurrency: 2,
  });
  assert.ok(Date.now() - Date.parse(mostRecentSuccess) < 60 * 60 * 1000, mostRecentSuccess);
}
