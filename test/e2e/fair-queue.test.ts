import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { limits } from '../../src/limits.ts';
import { FairQueue, type WorkerSlot } from '../../src/pipeline/fair-queue.ts';
import { mayRaisePriority } from '../../src/process-priority.ts';
import { embeddedOnly, firstPassOnly } from '../helpers/mode.ts';
import { corpusFile, parse, type RunningServer, repoRoot, startServer, storeEnv } from '../helpers/server.ts';
import { childrenOf, niceOf, waitFor } from '../helpers/sessions.ts';

const run = promisify(execFile);

/** Creates a key for `team` in the server's store (in the cluster pass, the cluster's PostgreSQL). */
async function keyFor(server: RunningServer, team: string): Promise<string> {
  const cli = await run(
    process.execPath,
    [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', team],
    { env: { ...process.env, ...storeEnv(server) } },
  );
  return cli.stdout.trim();
}

/** A 352-page book OCR'd page by page runs far past any timeout used here. */
function slowParse(server: { url: string; key: string }, timeout: number, controller: AbortController) {
  return fetchParse(
    server,
    corpusFile('pdf/big/pjs-freeculture-352p.pdf'),
    { parsers: [{ type: 'pdf', mode: 'ocr' }], timeout },
    server.key,
    controller,
  );
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

/** Resolves once the server has logged `count` conversions submitted for `team`. */
async function submitted(output: () => string, team: string, count: number): Promise<void> {
  const pattern = new RegExp(`"team":"${team}".*"msg":"conversion submitted"`, 'g');
  while ((output().match(pattern)?.length ?? 0) < count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const reserveIsLocal = embeddedOnly(
  "the reserve holds a worker of one process's pool for a team served a moment ago; a cluster's jobs go by their BullMQ priority, and the README says no worker is held back there",
);

describe('fair queue', () => {
  it('gives a free worker to a waiting team before the team that holds it gets another', async () => {
    // One worker, so the order in which conversions get it is the whole story.
    const server = await startServer({
      QUIRE_WORKERS: '1',
      QUIRE_TEAM_CONCURRENCY: '8',
      QUIRE_LOG_LEVEL: 'debug',
    });
    try {
      const otherKey = await keyFor(server, 'other');
      // Each of team default's conversions holds the worker until its own deadline, never less.
      const first = slowParse(server, 3000, new AbortController());
      await submitted(server.output, 'default', 1);
      const later = new AbortController();
      const queued = [slowParse(server, 60_000, later), slowParse(server, 60_000, later)];
      const settled = watch(queued);
      await submitted(server.output, 'default', 3);

      // Team other arrives last, behind two of team default's conversions.
      const small = await parse(server, {
        file: { bytes: '<html><body><h1>Hello</h1><p>Small page.</p></body></html>', filename: 'small.html' },
        key: otherKey,
      });
      assert.equal(small.status, 200, JSON.stringify(small.body));
      assert.match(small.body.data.markdown, /# Hello/);
      assert.equal((await first).status, 408, 'the first slow conversion ran to its own deadline');
      // First come, first served would have run both queued conversions (a minute each) first.
      assert.deepEqual(
        settled,
        [false, false],
        'team default’s queued conversions are still waiting or running',
      );
      later.abort();
      await Promise.allSettled(queued);
    } finally {
      await server.stop();
    }
  });

  it(
    'keeps a worker free for a team between two requests while another team floods the rest',
    reserveIsLocal,
    async () => {
      // A reserve far longer than this test, so a busy machine cannot make it lapse.
      const server = await startServer({
        QUIRE_WORKERS: '2',
        QUIRE_TEAM_CONCURRENCY: '8',
        QUIRE_FAIR_RESERVE_MS: '600000',
        QUIRE_LOG_LEVEL: 'debug',
      });
      try {
        const otherKey = await keyFor(server, 'other');
        const small = (text: string) =>
          parse(server, {
            file: {
              bytes: `<html><body><h1>${text}</h1><p>Small page.</p></body></html>`,
              filename: 'small.html',
            },
            options: { timeout: 30_000 },
            key: otherKey,
          });
        // Team other has just been served and holds nothing now.
        assert.equal((await small('First')).status, 200);
        const flood = new AbortController();
        const slow = [slowParse(server, 100_000, flood), slowParse(server, 100_000, flood)];
        const settled = watch(slow);
        await submitted(server.output, 'default', 2);

        // Without the reserve both workers run team default's book until its 100 s deadline,
        // and this parse answers 408 after 30 s.
        const second = await small('Second');
        assert.equal(second.status, 200, JSON.stringify(second.body));
        assert.match(second.body.data.markdown, /# Second/);
        assert.deepEqual(settled, [false, false], 'team default’s conversions still hold a worker or wait');
        // The server writes its log asynchronously: the answer can arrive before the line that
        // the request logged on its way in.
        await submitted(server.output, 'other', 2);
        const line = server
          .output()
          .split('\n')
          .filter((l) => l.includes('"team":"other"') && l.includes('conversion submitted'))
          .at(-1);
        assert.match(line ?? '', /"queue":\{"busy":1,"waiting":1,/, 'one book runs, the other waits');
        flood.abort();
        await Promise.allSettled(slow);
      } finally {
        await server.stop();
      }
    },
  );
});

describe('long conversions in the background', () => {
  it('runs a long conversion at a lower CPU priority, its OCR included, and the API process at its own', async (t) => {
    if (!mayRaisePriority) {
      t.skip('this process may not raise a priority back, so Quire never lowers one');
      return;
    }
    const server = await startServer({ QUIRE_WORKERS: '2' });
    try {
      const stop = new AbortController();
      const book = slowParse(server, 100_000, stop);
      const worker = await waitFor('a worker to start OCR', async () =>
        childrenOf(server.conversionProcess.pid!).find((pid) => childrenOf(pid).length > 0),
      );
      // Checked once backgroundAfterMs has passed; until then the conversion is in the foreground.
      await waitFor('the conversion to go to the background', async () =>
        niceOf(worker) === limits.backgroundNice ? true : undefined,
      );
      const ocr = await waitFor('an OCR process', async () => childrenOf(worker)[0]);
      assert.equal(niceOf(ocr), limits.backgroundNice, 'the OCR it runs is in the background too');
      assert.equal(niceOf(server.process.pid!), 0, 'the API process keeps its priority');
      const spare = childrenOf(server.conversionProcess.pid!).filter((pid) => pid !== worker);
      assert.ok(spare.length > 0);
      // Never given a task, they loaded in the background and wait there: each task starts in the foreground.
      for (const pid of spare)
        assert.equal(niceOf(pid), limits.backgroundNice, 'idle workers wait in the background');
      stop.abort();
      await book.catch(() => {});
    } finally {
      await server.stop();
    }
  });
});

/** A queue on a hand-driven clock: `advance` moves time and runs what came due. */
function queueOnFakeClock(slots: number, reserveMs: number) {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const queue = new FairQueue({
    slots,
    maxWaiting: 100,
    usageHalfLifeMs: 60_000,
    reserveMs,
    now: () => now,
    later: (fn, ms) => {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
  });
  const granted: string[] = [];
  const ask = (team: string): Promise<WorkerSlot> =>
    queue.acquire({ team, key: `${team}-key` }, new AbortController().signal).then((slot) => {
      granted.push(team);
      return slot;
    });
  const advance = async (ms: number) => {
    now += ms;
    for (const t of timers.filter((t) => t.at <= now)) {
      timers = timers.filter((x) => x !== t);
      t.fn();
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, ask, advance, granted };
}

describe('fair queue reserve', firstPassOnly('the queue alone on a hand-driven clock, no server'), () => {
  it('lets a lone team use every worker', async () => {
    const { ask, granted } = queueOnFakeClock(3, 5000);
    await Promise.all([ask('a'), ask('a'), ask('a')]);
    assert.deepEqual(granted, ['a', 'a', 'a']);
  });

  it('holds the last worker for a recently served team, then hands it on when the window ends', async () => {
    const { queue, ask, advance, granted } = queueOnFakeClock(2, 5000);
    (await ask('b')).release();
    await ask('a');
    const second = ask('a');
    await advance(0);
    assert.deepEqual(granted, ['b', 'a'], 'team a’s second conversion waits while b may come back');
    assert.deepEqual(queue.stats(), { busy: 1, waiting: 1, teams: 1 });
    await advance(4999);
    assert.equal(granted.length, 2);
    await advance(1);
    await second;
    assert.deepEqual(granted, ['b', 'a', 'a'], 'team b stayed away: a takes the worker');
  });

  it('gives the held worker to the team it was held for', async () => {
    const { ask, advance, granted } = queueOnFakeClock(2, 5000);
    (await ask('b')).release();
    await ask('a');
    void ask('a');
    await advance(1000);
    await ask('b');
    assert.deepEqual(granted, ['b', 'a', 'b']);
  });

  it('holds at most all workers but one, however many teams were seen', async () => {
    const { ask, advance, granted } = queueOnFakeClock(3, 5000);
    for (const team of ['b', 'c', 'd', 'e']) (await ask(team)).release();
    await ask('a');
    void ask('a');
    void ask('a');
    await advance(0);
    assert.deepEqual(granted.slice(4), ['a'], 'two workers held for four idle teams');
  });

  it('holds nothing with the reserve off', async () => {
    const { ask, granted } = queueOnFakeClock(2, 0);
    (await ask('b')).release();
    await Promise.all([ask('a'), ask('a')]);
    assert.deepEqual(granted, ['b', 'a', 'a']);
  });
});

async function fetchParse(
  server: { url: string },
  file: { bytes: Uint8Array; filename: string },
  options: unknown,
  key: string,
  controller: AbortController,
): Promise<{ status: number }> {
  const form = new FormData();
  form.append('options', JSON.stringify(options));
  form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.filename);
  const res = await fetch(`${server.url}/v2/parse`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  await res.arrayBuffer();
  return { status: res.status };
}
