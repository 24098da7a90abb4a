import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { limits } from '../../src/limits.ts';
import { mayRaisePriority } from '../../src/process-priority.ts';
import { embeddedOnly, inClusterPass } from '../helpers/mode.ts';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { parse, type RunningServer, useServer } from '../helpers/server.ts';
import { childrenOf, niceOf, otherTeamKey, waitFor } from '../helpers/sessions.ts';
import { Site } from '../helpers/site.ts';

/**
 * The fair queue over a server's real pool of conversion processes: one team's long conversions
 * do not starve another team's, and they run in the background. The queue's order itself (shares,
 * worker time, keys, the reserve, aborts) is test/unit/fair-queue.test.ts's, on a moved clock.
 * Nothing here waits on time: each step waits for the log line that says the conversion before
 * it is in the queue, and a long conversion ends when its client leaves.
 */

/**
 * Resolves on the next line saying a conversion of `team` is in the queue (embedded: submitted to
 * the pool, which queues it at once; a cluster: added to BullMQ). Call it before sending.
 */
function queued(server: RunningServer, team: string): Promise<RegExpExecArray> {
  const message = inClusterPass ? 'conversion queued' : 'conversion submitted';
  return server.waitForOutput(new RegExp(`"team":"${team}".*"msg":"${message}".*`), server.output().length);
}

/**
 * A conversion that holds its worker until its client leaves (`signal`): a thousand pages read by
 * OCR one after another, far past any test; sent once the previous one is queued, so they queue
 * in order.
 */
async function longConversions(server: RunningServer, count: number, signal: AbortSignal) {
  const sent: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const inQueue = queued(server, 'default');
    const answer = parse(server, {
      file: { bytes: pagesToRecognise(1000), filename: 'long.pdf' },
      options: ocrWithin(300_000),
      signal,
    });
    // Settled either way when the client leaves; the test looks only at whether it has.
    answer.catch(() => {});
    sent.push(answer);
    await inQueue;
  }
  return sent;
}

/** Marks in `settled` which of `promises` have finished, either way. */
function watch(promises: Promise<unknown>[]): boolean[] {
  const settled = promises.map(() => false);
  for (const [i, p] of promises.entries()) {
    const done = () => {
      settled[i] = true;
    };
    p.then(done, done);
  }
  return settled;
}

/** A small page, for team `key`, with a timeout far shorter than the long conversions' own. */
function smallParse(server: RunningServer, key: string, text: string) {
  return parse(server, {
    file: { bytes: `<html><body><h1>${text}</h1><p>Small page.</p></body></html>`, filename: 'small.html' },
    options: { timeout: 240_000 },
    key,
  });
}

describe('fair queue on one worker', () => {
  const server = useServer({
    QUIRE_WORKERS: '1',
    QUIRE_SPARE_WORKERS: '2',
    QUIRE_TEAM_CONCURRENCY: '8',
    QUIRE_LOG_LEVEL: 'debug',
  });

  it('gives the worker a long conversion frees to a waiting team before the team that held it', async () => {
    const otherKey = await otherTeamKey(server(), 'other');
    const leaves = new AbortController();
    const stays = new AbortController();
    const [first] = await longConversions(server(), 1, leaves.signal);
    const behind = await longConversions(server(), 2, stays.signal);
    const settled = watch(behind);
    // Team other arrives last, behind two of team default's conversions.
    const inQueue = queued(server(), 'other');
    const small = smallParse(server(), otherKey, 'Hello');
    await inQueue;
    // The first one's client leaves: its conversion ends, and the worker is free again.
    leaves.abort();
    const answer = await small;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.match(answer.body.data.markdown, /# Hello/);
    await assert.rejects(first!, { name: 'AbortError' });
    // First come, first served would have run both queued conversions (minutes each) first.
    assert.deepEqual(settled, [false, false], 'team default’s queued conversions still wait or run');
    stays.abort();
    await Promise.allSettled(behind);
  });
});

describe('fair queue on two workers', () => {
  // A reserve far longer than this file, so a busy machine cannot make it lapse.
  const server = useServer({
    QUIRE_WORKERS: '2',
    QUIRE_SPARE_WORKERS: '2',
    QUIRE_TEAM_CONCURRENCY: '8',
    QUIRE_FAIR_RESERVE_MS: '600000',
    QUIRE_LOG_LEVEL: 'debug',
  });

  // First: it looks at the pool's processes before any of them has run a task.
  it('runs a long conversion at a lower CPU priority, its OCR included, and the API process at its own', async (t) => {
    if (!mayRaisePriority) {
      t.skip('this process may not raise a priority back, so Quire never lowers one');
      return;
    }
    const stop = new AbortController();
    const [long] = await longConversions(server(), 1, stop.signal);
    const pool = server().conversionProcess.pid!;
    const worker = await waitFor('a worker to start OCR', async () =>
      childrenOf(pool).find((pid) => childrenOf(pid).length > 0),
    );
    // Checked once backgroundAfterMs has passed; until then the conversion is in the foreground.
    await waitFor('the conversion to go to the background', async () =>
      niceOf(worker) === limits.backgroundNice ? true : undefined,
    );
    // The pool sets the worker's threads, then its children, so this process may look in between;
    // and each page's OCR is a process of its own, which may end before it is looked at.
    await waitFor('the OCR it runs to go to the background too', async () => {
      const ocr = childrenOf(worker)[0];
      try {
        return ocr !== undefined && niceOf(ocr) === limits.backgroundNice ? true : undefined;
      } catch {
        return undefined;
      }
    });
    assert.equal(niceOf(server().process.pid!), 0, 'the API process keeps its priority');
    const spare = childrenOf(pool).filter((pid) => pid !== worker);
    assert.ok(spare.length > 0);
    // Never given a task, they loaded in the background and wait there: each task starts in the foreground.
    for (const pid of spare)
      assert.equal(niceOf(pid), limits.backgroundNice, 'idle workers wait in the background');
    stop.abort();
    await long!.catch(() => {});
  });

  it(
    'keeps a worker free for a team between two requests while another team floods the rest',
    embeddedOnly(
      "the reserve holds a worker of one process's pool for a team served a moment ago; a cluster's jobs go by their BullMQ priority, and the README says no worker is held back there",
    ),
    async () => {
      const otherKey = await otherTeamKey(server(), 'other');
      // Team other has just been served and holds nothing now.
      assert.equal((await smallParse(server(), otherKey, 'First')).status, 200);
      const flood = new AbortController();
      const long = await longConversions(server(), 2, flood.signal);
      const settled = watch(long);

      // Without the reserve both workers run team default's conversions until their clients
      // leave, and this parse answers 408 at its own timeout.
      const submitted = queued(server(), 'other');
      const second = await smallParse(server(), otherKey, 'Second');
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.match(second.body.data.markdown, /# Second/);
      assert.deepEqual(settled, [false, false], 'team default’s conversions still hold a worker or wait');
      const [line] = await submitted;
      assert.match(line, /"queue":\{"busy":1,"waiting":1,/, 'one long conversion runs, the other waits');
      flood.abort();
      await Promise.allSettled(long);
    },
  );
});

describe("a job's pages on one worker", () => {
  const site = new Site();
  const server = useServer({
    QUIRE_WORKERS: '1',
    QUIRE_SPARE_WORKERS: '0',
    QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
    // Info, for the line each job logs as it finishes.
    QUIRE_LOG_LEVEL: 'info',
  });
  before(() => site.listen());
  after(() => site.close());

  it('converts a batch scrape’s pages in the background and the next request in the foreground', async (t) => {
    if (!mayRaisePriority) {
      t.skip('this process may not raise a priority back, so Quire never lowers one');
      return;
    }
    site.page('/quay', '<h1>Quay</h1><p>The quay is where the boats tie up for the night.</p>');
    const [worker] = childrenOf(server().conversionProcess.pid!);
    assert.ok(worker, 'the pool has its one worker');
    assert.equal((await smallParse(server(), server().key, 'Before')).status, 200);
    assert.equal(niceOf(worker), 0, 'a request’s conversion runs in the foreground');

    const finished = server().waitForOutput(
      /"status":"completed".*"msg":"job finished"/,
      server().output().length,
    );
    const started = await fetch(`${server().url}/v2/batch/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server().key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: [`${site.url}/quay`], formats: ['markdown'] }),
    });
    assert.equal(started.status, 200, await started.clone().text());
    await finished;
    assert.equal(niceOf(worker), limits.backgroundNice, 'nobody waits on a job’s page: it yields the CPU');

    assert.equal((await smallParse(server(), server().key, 'After')).status, 200);
    assert.equal(niceOf(worker), 0, 'the next request’s conversion is in the foreground again');
  });
});
