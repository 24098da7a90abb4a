import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { firstPassOnly } from '../helpers/mode.ts';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import {
  corpusFile,
  parse,
  type RunningCluster,
  type RunningServer,
  repoRoot,
  startCluster,
  startProcess,
} from '../helpers/server.ts';

/**
 * Cluster mode (issue 18) over HTTP against real processes: an `api` process that queues
 * conversions in Redis and `worker` processes that run them, each cluster under a Redis key
 * prefix and a PostgreSQL database of its own. Every wait is on a sign the processes print
 * (debug logs: the api's "conversion queued", a worker's "conversion started" and "conversion
 * cancelled", each with the job's id), never on the clock.
 */

const run = promisify(execFile);

/** Where each server's output ends now, so that a later wait sees only what comes after. */
const marks = (servers: RunningServer[]) => servers.map((s) => s.output().length);

/** The first match of `pattern` in what any of `servers` printed past `from` (their marks). */
function anyOutput(servers: RunningServer[], pattern: RegExp, from: number[]): Promise<RegExpExecArray> {
  return Promise.any(servers.map((s, i) => s.waitForOutput(pattern, from[i])));
}

/** A worker's log line for job `id`, or for any job when `id` is a pattern. */
const logged = (msg: string, id = '[^"]+') => new RegExp(`"jobId":"(${id})"[^\\n]*"msg":"${msg}"`);
/** `n` log lines with message `msg`. */
const times = (msg: string, n: number) => new RegExp(`(?:"msg":"${msg}"[\\s\\S]*){${n}}`);

/**
 * Workers that look for a dead worker's jobs four times a second rather than every 5 s, so that a
 * job whose claim the test has ended is taken up again at once.
 */
const stalledChecks = { QUIRE_CLUSTER_STALLED_CHECK_MS: '250' };
const debug = { QUIRE_LOG_LEVEL: 'debug', QUIRE_WORKERS: '1', ...stalledChecks };

/** A Redis of the test's own on `port`, ready to accept connections; nothing on disk. */
async function startRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const redis = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  redis.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
    if (/Ready to accept connections/.test(output)) redis.emit('ready');
  });
  await once(redis, 'ready');
  return redis;
}

async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as net.AddressInfo;
  probe.close();
  return port;
}

// Each block runs its own cluster, one block at a time: their time is starting processes and
// converting, which on two cores goes no faster side by side (a dead worker's claim is ended by
// the test, not waited for), and eight processes starting at once on a loaded machine were what
// ran past the start bound.
const firstPass = firstPassOnly('starts the clusters it tests itself');
describe('cluster mode', { concurrency: 1, ...firstPass }, () => {
  describe('cluster mode: one api process, two worker processes', { concurrency: 1 }, () => {
    let cluster: RunningCluster;
    let embedded: RunningServer;
    before(async () => {
      [cluster, embedded] = await Promise.all([startCluster(debug, { workers: 2 }), startProcess()]);
    });
    after(async () => {
      await Promise.all([cluster?.stop(), embedded?.stop()]);
    });

    it('converts each format through the queue to the Markdown the embedded mode gives', async () => {
      const cases: [string, RegExp][] = [
        [
          'html/docling-example_01.html',
          /^# Introduction\n\nThis is the first paragraph of the introduction\./,
        ],
        ['docx/mammoth-simple-list.docx', /^- Apple\n- Banana$/],
        ['csv/docling-csv-pipe.csv', /\| 1 \| DD37Cf93aecA6Dc \| Sheryl \| Baxter \| Rasmussen Group \|/],
        ['xlsx/docling-xlsx_comments.xlsx', /^\| Python is great \| {2}\|\n/],
        [
          'pdf/text/doc-multi_page.pdf',
          /^## The Evolution of the Word Processor\n\nThe concept of the word processor/,
        ],
      ];
      // Sent at once to workers that have just started, beside other test files: the deadline
      // is room (the default 30 s ran out twice on a busy 2-core machine), not a claim.
      const options = { timeout: 90_000 };
      await Promise.all(
        cases.map(async ([file, expected]) => {
          const [clustered, alone] = await Promise.all([
            parse(cluster.api, { file: corpusFile(file), options }),
            parse(embedded, { file: corpusFile(file), options }),
          ]);
          assert.equal(clustered.status, 200, `${file}: ${JSON.stringify(clustered.body)}`);
          assert.match(clustered.body.data.markdown, expected, file);
          assert.equal(clustered.body.data.markdown, alone.body.data.markdown, file);
          assert.equal(clustered.body.data.metadata.sourceURL, alone.body.data.metadata.sourceURL);
        }),
      );
      // Each upload left Redis with its job, and each answer once it was read.
      assert.deepEqual(await cluster.redisKeys('upload:*'), []);
      assert.deepEqual(await cluster.redisKeys('result:*'), []);
    });

    it('keeps refusals as they are: a file no converter reads is 400, as embedded', async () => {
      const file = { bytes: new Uint8Array([0, 1, 2, 3, 0xff, 0xfe, 0, 7]), filename: 'blob.bin' };
      const [clustered, alone] = await Promise.all([parse(cluster.api, { file }), parse(embedded, { file })]);
      assert.equal(clustered.status, 400);
      assert.deepEqual(clustered.body, alone.body);
    });

    it('stops the conversion on its worker when the client leaves', async () => {
      const from = marks(cluster.workers);
      const leave = new AbortController();
      const answer = parse(cluster.api, {
        file: { bytes: pagesToRecognise(1000), filename: 'endless.pdf' },
        options: ocrWithin(120_000),
        signal: leave.signal,
      }).then(
        (a) => `answered ${a.status}`,
        (error: Error) => error.name,
      );
      const [, id] = await anyOutput(cluster.workers, logged('conversion started'), from);
      leave.abort();
      assert.equal(await answer, 'AbortError');
      await anyOutput(cluster.workers, logged('conversion cancelled', id), from);
      // The API process has dropped the upload by the time the worker hears of it.
      assert.deepEqual(await cluster.redisKeys(`upload:${id}`), []);
    });

    it('answers 408 at the deadline, and frees the worker for the next request', async () => {
      const late = await parse(cluster.api, {
        file: { bytes: pagesToRecognise(1000), filename: 'endless.pdf' },
        options: ocrWithin(1000),
      });
      assert.equal(late.status, 408);
      assert.equal(late.body.code, 'SCRAPE_TIMEOUT');
      const next = await parse(cluster.api, { file: corpusFile('docx/mammoth-simple-list.docx') });
      assert.equal(next.status, 200);
      assert.match(next.body.data.markdown, /Apple/);
      assert.deepEqual(await cluster.redisKeys('upload:*'), []);
    });

    // Last in this block: it leaves one worker.
    it('retries the job of a worker killed mid-conversion on the other worker', async () => {
      const from = marks(cluster.workers);
      const answer = parse(cluster.api, {
        file: corpusFile('pdf/scanned/scan-mid-receipt.pdf'),
        options: { timeout: 120_000 },
      });
      const [, id] = await anyOutput(cluster.workers, logged('conversion started'), from);
      const victim = cluster.workers.find((w) => logged('conversion started', id!).test(w.output()))!;
      const survivor = cluster.workers.find((w) => w !== victim)!;
      await victim.stop('SIGKILL');
      // Its claim on the job lapses (15 s on the clock; the test ends it now) and the survivor's
      // stalled-job check puts the job back in the queue, where the survivor takes it.
      const taken = survivor.waitForOutput(logged('conversion started', id));
      assert.equal(await cluster.lapseClaim(id!), true, 'the dead worker held a claim');
      await taken;
      const { status, body } = await answer;
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /TECHMART ELECTRONICS/);
      assert.deepEqual(await cluster.redisKeys('upload:*'), []);
    });
  });

  describe('cluster mode: a job whose workers die twice', { concurrency: 1 }, () => {
    let cluster: RunningCluster;
    before(async () => {
      cluster = await startCluster(debug);
    });
    after(async () => {
      await cluster?.stop();
    });

    it('answers a clear 500 rather than running it a third time, or hanging', async () => {
      const answer = parse(cluster.api, {
        file: corpusFile('pdf/scanned/scan-mid-receipt.pdf'),
        options: { timeout: 120_000 },
      });
      const [, id] = await cluster.workers[0]!.waitForOutput(logged('conversion started'));
      await cluster.workers[0]!.stop('SIGKILL');
      // The second worker takes the job up once its first claim has lapsed (15 s on the clock;
      // the test ends it now), and dies with it too.
      const second = await cluster.addWorker();
      const retried = second.waitForOutput(logged('conversion started', id));
      assert.equal(await cluster.lapseClaim(id!), true, 'the first worker held a claim');
      await retried;
      await second.stop('SIGKILL');
      assert.equal(await cluster.lapseClaim(id!), true, 'the second worker held a claim');
      // The third finds it stalled a second time, and BullMQ fails it.
      const third = await cluster.addWorker();
      const { status, body } = await answer;
      assert.equal(status, 500);
      assert.equal(body.code, 'UNKNOWN_ERROR');
      assert.match(body.error, /The conversion was lost: the worker processes that took it stopped/);
      assert.equal(logged('conversion started', id!).test(third.output()), false);
      assert.deepEqual(await cluster.redisKeys('upload:*'), []);
    });
  });

  describe('cluster mode: the shared queue', { concurrency: 1 }, () => {
    let cluster: RunningCluster;
    // Started with no worker: conversions wait in Redis until the test starts one.
    before(async () => {
      cluster = await startCluster(
        // A drain waits for its OCR as long as the request's own 90 s allow, not the default 30 s
        // grace, which a busy machine's OCR outlasts: what is tested is that it waits at all.
        { ...debug, QUIRE_QUEUE_SIZE: '4', QUIRE_TEAM_CONCURRENCY: '10', QUIRE_SHUTDOWN_GRACE_MS: '120000' },
        { workers: 0 },
      );
    });
    after(async () => {
      await cluster?.stop();
    });

    it('takes a job out of the queue when its request times out before a worker took it', async () => {
      const from = cluster.api.output().length;
      const late = await parse(cluster.api, {
        file: { bytes: '<p>Too late.</p>', filename: 'late.html' },
        options: { timeout: 1000 },
      });
      assert.equal(late.status, 408);
      const [, id] = await cluster.api.waitForOutput(logged('conversion queued'), from);
      // Neither the job nor its upload is left for a worker to find.
      assert.deepEqual(await cluster.redisKeys(`conversions:${id}`), []);
      assert.deepEqual(await cluster.redisKeys(`upload:${id}`), []);
    });

    it('is full at QUIRE_QUEUE_SIZE (429), and serves the team with the least queued work first', async () => {
      const from = cluster.api.output().length;
      const { stdout } = await run(
        process.execPath,
        [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', 'newcomer'],
        { env: { ...process.env, QUIRE_DATABASE_URL: cluster.databaseUrl } },
      );
      const newcomer = stdout.trim();
      const html = (text: string) => ({
        bytes: `<html><body><p>${text}</p></body></html>`,
        filename: `${text}.html`,
      });
      // Three files from one team, then one from another, each queued before the next is sent.
      const sent: [string, ReturnType<typeof parse>][] = [];
      for (const [text, key] of [
        ['first', undefined],
        ['second', undefined],
        ['third', undefined],
        ['newcomer', newcomer],
      ] as const) {
        sent.push([text, parse(cluster.api, { file: html(text), key, options: { timeout: 120_000 } })]);
        await cluster.api.waitForOutput(times('conversion queued', sent.length), from);
      }
      const full = await parse(cluster.api, { file: html('fifth') });
      assert.equal(full.status, 429);
      assert.equal(full.headers.get('retry-after'), '5');
      assert.match(full.body.error, /Too many documents are waiting/);

      const worker = await cluster.addWorker();
      for (const [text, answer] of sent) {
        const { status, body } = await answer;
        assert.equal(status, 200, JSON.stringify(body));
        assert.match(body.data.markdown, new RegExp(`^${text}$`));
      }
      // The worker (one conversion at a time) took them by priority: the first file, then the
      // other team's, whose team had nothing queued, before the first team's backlog. Its log
      // comes down another pipe than the answers: wait for the four lines rather than race them.
      await worker.waitForOutput(times('conversion started', 4));
      const order = [...worker.output().matchAll(/"team":"([^"]+)"[^\n]*"msg":"conversion started"/g)].map(
        (m) => m[1],
      );
      assert.deepEqual(order, ['default', 'newcomer', 'default', 'default']);
    });

    it('drains: an api process told to stop answers the request it holds first', async () => {
      // OCR in a worker beside other test files: the deadline is room, not a claim.
      const answer = parse(cluster.api, {
        file: corpusFile('pdf/scanned/scan-mid-receipt.pdf'),
        options: { timeout: 90_000 },
      });
      await cluster.workers[0]!.waitForOutput(times('conversion started', 5));
      const stopped = cluster.api.stop('SIGTERM');
      const { status, body } = await answer;
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /TECHMART ELECTRONICS/);
      assert.equal(await stopped, 0);
    });
  });

  describe('cluster mode: limits two api processes share', { concurrency: 1 }, () => {
    let cluster: RunningCluster;
    let second: RunningServer;
    before(async () => {
      cluster = await startCluster({
        ...debug,
        QUIRE_TEAM_CONCURRENCY: '1',
        QUIRE_RATE_LIMIT_PER_MINUTE: '4',
      });
      second = await cluster.addApi();
    });
    after(async () => {
      await cluster?.stop();
    });

    it("counts a team's concurrency across api processes: the second waits for the first's slot", async () => {
      const leave = new AbortController();
      const holder = parse(cluster.api, {
        file: { bytes: pagesToRecognise(1000), filename: 'holder.pdf' },
        options: ocrWithin(120_000),
        signal: leave.signal,
      }).catch((error: Error) => error.name);
      await cluster.workers[0]!.waitForOutput(logged('conversion started'));
      const queued = parse(second, { file: { bytes: '<p>Second in line.</p>', filename: 'q.html' } });
      await second.waitForOutput(times('conversion waits for a team slot', 1));
      leave.abort();
      const { status, body } = await queued;
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /Second in line\./);
      assert.equal(body.data.metadata.concurrencyLimited, true);
      assert.equal(await holder, 'AbortError');
    });

    it("counts a team's rate across api processes", async () => {
      // Two requests so far (the tests above); two more on either process reach the 4 a minute.
      for (const server of [cluster.api, second]) {
        const { status } = await parse(server, { file: { bytes: '<p>x</p>', filename: 'x.html' } });
        assert.equal(status, 200);
      }
      const refused = await parse(second, { file: { bytes: '<p>x</p>', filename: 'x.html' } });
      assert.equal(refused.status, 429);
      assert.match(refused.body.error, /Rate limit exceeded: at most 4 requests per minute/);
    });
  });

  describe('cluster mode: Redis restarted', { concurrency: 1 }, () => {
    it('fails only the request in flight, within its timeout, and recovers by itself', async () => {
      const port = await freePort();
      let redis = await startRedis(port);
      const cluster = await startCluster({
        ...debug,
        QUIRE_WORKERS: '2',
        QUIRE_REDIS_URL: `redis://127.0.0.1:${port}`,
      });
      try {
        const before = await parse(cluster.api, { file: corpusFile('docx/mammoth-simple-list.docx') });
        assert.equal(before.status, 200);
        const from = marks(cluster.workers);
        const inFlight = parse(cluster.api, {
          file: { bytes: pagesToRecognise(1000), filename: 'endless.pdf' },
          options: ocrWithin(5000),
        });
        await anyOutput(cluster.workers, logged('conversion started'), from);
        // Without persistence a restarted Redis has lost every job and upload.
        redis.kill('SIGKILL');
        await once(redis, 'exit');
        redis = await startRedis(port);
        const { status } = await inFlight;
        assert.ok(status === 408 || status === 500, `in flight: ${status}`);
        // The processes reconnect on their own, and the next requests are answered as before.
        const after = await parse(cluster.api, { file: corpusFile('docx/mammoth-simple-list.docx') });
        assert.equal(after.status, 200, JSON.stringify(after.body));
        assert.match(after.body.data.markdown, /^- Apple\n- Banana$/);
      } finally {
        await cluster.stop();
        redis.kill();
      }
    });
  });

  describe('roles', { concurrency: 1 }, () => {
    it('refuses api and worker roles without Redis, clearly', async () => {
      for (const args of [['src/main.ts'], ['src/cli/quire.ts', 'serve', '--role', 'api']]) {
        const env: NodeJS.ProcessEnv = { ...process.env, QUIRE_REDIS_URL: '' };
        if (args.length === 1) env.QUIRE_ROLE = 'worker';
        const failed = await run(process.execPath, args, { cwd: repoRoot, env }).then(
          () => undefined,
          (error: { code: number; stderr: string }) => error,
        );
        assert.ok(failed, `${args.join(' ')} started`);
        assert.notEqual(failed.code, 0);
        assert.match(failed.stderr, /QUIRE_ROLE=(worker|api) needs cluster mode: set QUIRE_REDIS_URL/);
      }
    });
  });
});
