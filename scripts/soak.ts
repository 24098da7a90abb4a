import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { limits } from '../src/limits.ts';
import { residentBytes } from '../src/pipeline/worker-pool.ts';
import { type RunningServer, startServer } from '../test/helpers/server.ts';
import { Random } from './hostile/mutate.ts';

/**
 * A soak of the embedded mode against a real server: for `minutes` (or for a fixed number of
 * `requests`, the test's sample), clients of two teams send every corpus format with every
 * option (outputs, main content, tag filters, PDF modes and page limits, pictures inline), while
 * one browser session or two at a time is created, driven over CDP and ended (deleted, or left to
 * its idle timeout). Measured: answers by status (no 5xx), the resident memory of the server and
 * its conversion workers (the slope after warm-up), its file descriptors, temporary files and
 * browser processes left at the end (none), and how often a worker process was replaced.
 *
 *   npm run soak -- [--minutes 30 | --requests N] [--clients 4] [--seed 1]
 */

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpusRoot = path.resolve(process.env.QUIRE_CORPUS_DIR || path.join(repoRoot, '../shared/corpus'));
/** Bigger corpus files cost whole seconds each and make the load lumpy, not more varied. */
const maxUploadBytes = 3_000_000;
const sampleMs = 2_000;

export interface SoakOptions {
  /** Send parses for this long (`npm run soak`)... */
  minutes?: number;
  /**
   * ...or send exactly this many (test/e2e/soak.test.ts): each is drawn from the seed and its
   * own index, so that the same requests go out whichever client sends them.
   */
  requests?: number;
  clients?: number;
  seed?: number;
  /** Each parse's `timeout`, the warm-up's too (default 120 s): the test's sample gives a loaded machine more. */
  requestTimeoutMs?: number;
  /** A round of sessions starts after every this many parses answered (default 40). */
  sessionEvery?: number;
  /**
   * The share of sessions left to their idle timeout rather than deleted (default 0.3). Each
   * one waits out a real activityTtl of 10 s, so the test's sample leaves none.
   */
  idleShare?: number;
  /** Part of the run not counted in the memory slope (default: a fifth, at least 30 s). */
  warmupMinutes?: number;
  log?: (line: string) => void;
}

export interface FdCount {
  total: number;
  byKind: Record<string, number>;
}

export interface SoakReport {
  minutes: number;
  clients: number;
  /** Parses answered, the warm-up's included (every format once, before the baseline is taken). */
  requests: number;
  warmupRequests: number;
  statuses: Record<string, number>;
  /** Refusals by status and code (`400 UNPARSABLE_DOCUMENT`). */
  refusals: Record<string, number>;
  /** Answers with a status of 500 or more. */
  serverErrors: number;
  /** Requests that got no answer (connection reset, refused). */
  clientFailures: Record<string, number>;
  byFormat: Record<string, number>;
  /** `expiredBeforeUse`: reached by its client only after its activityTtl had ended it (a loaded machine). */
  sessions: {
    created: number;
    deleted: number;
    expired: number;
    expiredBeforeUse: number;
    failures: Record<string, number>;
  };
  rss: {
    /** [minutes since start, server MB, server + workers MB] */
    samples: [number, number, number][];
    /** Least-squares slope after warm-up, MB per minute. */
    slopeMbPerMin: number | null;
    serverSlopeMbPerMin: number | null;
    peakMb: number;
  };
  fds: { baseline: FdCount; end: FdCount; leaked: number };
  /** Files left in the server's TMPDIR and session folders left in its data folder. */
  tempFilesLeft: string[];
  sessionFoldersLeft: string[];
  /** Processes still running whose command line names the server's data folder (browsers). */
  browsersLeft: number[];
  workerStarts: number;
  workerRestarts: number;
  /** When each replacement worker was first seen (minutes into the run). */
  workerReplacedAt: number[];
  /** The server's warnings and errors (its JSON log lines at warn and above), the last 30. */
  serverWarnings: string[];
}

interface CorpusUpload {
  format: string;
  name: string;
  bytes: Uint8Array;
}

function corpusUploads(): CorpusUpload[] {
  const out: CorpusUpload[] = [];
  const walk = (format: string, folder: string, depth: number): void => {
    for (const e of fs.readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, e.name);
      if (e.isDirectory() && depth < 1) walk(format, file, depth + 1);
      if (!e.isFile() || /\.(md|txt|json)$/.test(e.name) || /^(SOURCES|README)/i.test(e.name)) continue;
      const size = fs.statSync(file).size;
      if (size === 0 || size > maxUploadBytes) continue;
      // The modern main-content pages are stored gzipped; a client uploads the page.
      const gzipped = e.name.endsWith('.gz');
      const bytes = gzipped ? gunzipSync(fs.readFileSync(file)) : fs.readFileSync(file);
      out.push({ format, name: gzipped ? e.name.slice(0, -3) : e.name, bytes });
    }
  };
  for (const format of fs.readdirSync(corpusRoot).sort()) {
    const folder = path.join(corpusRoot, format);
    if (fs.statSync(folder).isDirectory()) walk(format, folder, 0);
  }
  // The main-content sets are hundreds of web pages: a sample keeps HTML from crowding out the rest.
  const pages = out.filter((u) => u.format.startsWith('maincontent'));
  return [...out.filter((u) => !u.format.startsWith('maincontent')), ...pages.filter((_, i) => i % 20 === 0)];
}

const outputs = ['markdown', 'html', 'rawHtml', 'links', 'images'] as const;

/** Random parse options: every option a client may combine, PDFs bounded so OCR stays a minority. */
function randomOptions(rnd: Random, format: string, timeout: number): Record<string, unknown> {
  const formats = outputs.filter(() => rnd.next() < 0.4);
  const options: Record<string, unknown> = {
    formats: formats.length > 0 ? formats : ['markdown'],
    onlyMainContent: rnd.next() < 0.7,
    removeBase64Images: rnd.next() < 0.7,
    timeout,
  };
  if (rnd.next() < 0.15) options.includeTags = rnd.pick([['p', 'h1', 'h2'], ['main', 'article'], ['table']]);
  if (rnd.next() < 0.15)
    options.excludeTags = rnd.pick([['nav', 'footer'], ['.sidebar', '#comments'], ['img']]);
  if (rnd.next() < 0.1) options.zeroDataRetention = true;
  if (format === 'pdf') {
    const mode = rnd.pick(['fast', 'fast', 'auto', 'auto', 'ocr'] as const);
    const pdf: Record<string, unknown> = { type: 'pdf', mode };
    if (mode === 'ocr' || rnd.next() < 0.5) pdf.maxPages = 1 + rnd.int(mode === 'ocr' ? 1 : 5);
    if (rnd.next() < 0.2) pdf.pageMarkers = true;
    if (rnd.next() < 0.2) pdf.pages = true;
    if (rnd.next() < 0.1) pdf.blocks = true;
    options.parsers = [pdf];
  }
  return options;
}

// ------------------------------------------------------------------ HTTP without fetch's pool

/**
 * Requests go through one keep-alive agent the soak owns, so that at the end its connections
 * can be closed and the server's sockets counted without the client's still open.
 */
async function request(
  base: string,
  agent: http.Agent,
  method: string,
  route: string,
  key: string,
  body?: FormData | object,
): Promise<{ status: number; body: Buffer }> {
  let payload = Buffer.alloc(0);
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body instanceof FormData) {
    const encoded = new Request('http://soak.invalid/', { method: 'POST', body });
    payload = Buffer.from(await encoded.arrayBuffer());
    headers['content-type'] = encoded.headers.get('content-type')!;
  } else if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body));
    headers['content-type'] = 'application/json';
  }
  headers['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${route}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(300_000, () => req.destroy(new Error('no answer within 300 s')));
    req.on('error', reject);
    req.end(payload);
  });
}

function codeOf(body: Buffer): string {
  try {
    return String((JSON.parse(body.toString()) as { code?: unknown }).code ?? '');
  } catch {
    return '';
  }
}

// ------------------------------------------------------------------ /proc

function children(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').split(' '))
      .filter((c) => c.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** The server's conversion workers: its children that run this Node (browsers and OCR are not). */
function workerPids(server: number): number[] {
  return children(server).filter((pid) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/exe`) === fs.realpathSync(process.execPath);
    } catch {
      return false;
    }
  });
}

function countFds(pid: number): FdCount {
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const kind =
      /^(socket|pipe|anon_inode):/.exec(target)?.[1] ?? (target.startsWith('/') ? 'file' : 'other');
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    total++;
  }
  return { total, byKind };
}

/** Processes whose command line names `folder` (session browsers run with their profile in it). */
function processesNaming(folder: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(folder)) out.push(Number(entry));
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

function filesUnder(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .map((e) => path.join(e.parentPath, e.name));
}

/** Least-squares slope of y over x; null with fewer than three points. */
function slope(points: readonly [number, number][]): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? null : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}

/**
 * Whether `state` holds within `ms`, looked at every `everyMs`: what /proc shows and a session's
 * recorded status have no event to wait on.
 */
async function until(state: () => boolean | Promise<boolean>, ms: number, everyMs = 50): Promise<boolean> {
  for (const end = performance.now() + ms; ; ) {
    if (await state()) return true;
    if (performance.now() >= end) return false;
    await sleep(everyMs);
  }
}

/**
 * The server's sockets on its listening port other than the listener: its end of client
 * connections, which it closes once it has read the client's close.
 */
function clientConnections(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = fs.readFileSync(table, 'latin1').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // local_address is hex ip:port; st 0A is LISTEN; the inode is the tenth field.
      if (f.length > 9 && Number.parseInt(f[1]!.split(':')[1]!, 16) === port && f[3] !== '0A')
        inodes.add(f[9]!);
    }
  }
  let held = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode && inodes.has(inode)) held++;
    } catch {
      // Closed meanwhile.
    }
  }
  return held;
}

// ------------------------------------------------------------------ the run

/** A page for the session browsers to load, on loopback (allowed by QUIRE_SESSIONS_ALLOWED_HOSTS). */
async function testSite(): Promise<{ url: string; close: () => void }> {
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>soak</title><p id="p">a page for the soak</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`,
    close: () => {
      site.closeAllConnections();
      site.close();
    },
  };
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  if ((opts.minutes === undefined) === (opts.requests === undefined))
    throw new Error('a soak runs for `minutes` or for a number of `requests`, one of the two');
  const log = opts.log ?? (() => {});
  const clients = opts.clients ?? 4;
  const seed = opts.seed ?? 1;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 120_000;
  const rnd = new Random(seed);
  const sessionEvery = opts.sessionEvery ?? 40;
  const idleShare = opts.idleShare ?? 0.3;
  const uploads = corpusUploads();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-soak-tmp-'));
  const site = await testSite();
  const server: RunningServer = await startServer({
    QUIRE_WORKERS: '2',
    TMPDIR: tmp,
    QUIRE_SESSIONS_ALLOWED_HOSTS: '127.0.0.1',
    QUIRE_SESSIONS_PER_TEAM: '2',
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients + 4 });
  const pid = server.process.pid!;
  const port = Number(new URL(server.url).port);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', 'soak-other'],
    { env: { ...process.env, QUIRE_DATA_DIR: server.dataDir } },
  );
  const keys = [server.key, stdout.trim()];
  const statuses: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  const clientFailures: Record<string, number> = {};
  const byFormat: Record<string, number> = {};
  const sessions = {
    created: 0,
    deleted: 0,
    expired: 0,
    expiredBeforeUse: 0,
    failures: {} as Record<string, number>,
  };
  const count = (tally: Record<string, number>, key: string) => {
    tally[key] = (tally[key] ?? 0) + 1;
  };

  // Parses answered, and the session rounds waiting for a number of them.
  let answered = 0;
  const waiting = new Set<{ n: number; resolve: () => void }>();
  const answer = () => {
    answered++;
    for (const w of waiting)
      if (answered >= w.n) {
        waiting.delete(w);
        w.resolve();
      }
  };
  const parseOnce = async (upload: CorpusUpload, key: string, options: Record<string, unknown>) => {
    const form = new FormData();
    form.append('options', JSON.stringify(options));
    form.append('file', new Blob([upload.bytes as Uint8Array<ArrayBuffer>]), upload.name);
    try {
      const res = await request(server.url, agent, 'POST', '/v2/parse', key, form);
      count(statuses, String(res.status));
      count(byFormat, upload.format);
      answer();
      if (res.status !== 200) count(refusals, `${res.status} ${codeOf(res.body)}`);
      if (res.status >= 500)
        log(`! ${res.status} for ${upload.format}/${upload.name}: ${res.body.toString().slice(0, 300)}`);
    } catch (error) {
      count(clientFailures, String(error).slice(0, 120));
    }
  };

  /** One session: created, a page loaded over CDP, then deleted or left to its idle timeout. */
  const sessionOnce = async (key: string, leaveToExpire: boolean): Promise<void> => {
    // A deleted session's idle timeout is far past what its client takes on a loaded machine.
    const created = await request(server.url, agent, 'POST', '/v2/interact', key, {
      ttl: 600,
      activityTtl: leaveToExpire ? 10 : 300,
    });
    if (created.status !== 200) {
      count(sessions.failures, `create ${created.status}`);
      return;
    }
    sessions.created++;
    const session = JSON.parse(created.body.toString()) as { id: string; cdpUrl: string };
    try {
      const browser = await chromium.connectOverCDP(session.cdpUrl, { timeout: 60_000 });
      const page = browser.contexts()[0]?.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(site.url, { timeout: 60_000 });
      if ((await page.textContent('#p')) !== 'a page for the soak') count(sessions.failures, 'page text');
      await browser.close();
    } catch (error) {
      // What the server says of the session, once any ending has finished: a browser that died
      // shows its close reason, and a session its client reached only after its activityTtl
      // (a loaded machine) ended as it should. An ending waits up to the browser's close grace
      // before the session is recorded as destroyed, so the wait here is longer than that.
      let state: { status?: string; closeReason?: string } = {};
      await until(
        async () => {
          const got = await request(server.url, agent, 'GET', `/v2/interact/${session.id}`, key);
          state = JSON.parse(got.body.toString()) as typeof state;
          return state.status === 'destroyed';
        },
        limits.browserCloseGraceMs + 20_000,
        500,
      );
      if (/\(activityTtl\)/.test(state.closeReason ?? '')) {
        sessions.expiredBeforeUse++;
        return;
      }
      const message = String(error)
        .split('\n')[0]!
        .replace(/ws:\/\/\S+/g, '<cdpUrl>')
        .slice(0, 200);
      count(
        sessions.failures,
        `cdp: ${message} (session ${state.status}${state.closeReason ? `, ${state.closeReason}` : ''})`,
      );
      return;
    }
    if (!leaveToExpire) {
      const deleted = await request(server.url, agent, 'DELETE', `/v2/interact/${session.id}`, key);
      if (deleted.status === 200) sessions.deleted++;
      else count(sessions.failures, `delete ${deleted.status}`);
      return;
    }
    const expired = await until(
      async () => {
        const got = await request(server.url, agent, 'GET', `/v2/interact/${session.id}`, key);
        return JSON.parse(got.body.toString()).status === 'destroyed';
      },
      60_000,
      500,
    );
    if (expired) sessions.expired++;
    else count(sessions.failures, 'did not expire');
  };

  // Warm-up before the baseline: every format once, and one session, so that what is opened once
  // and kept (the egress proxy's socket, the store's files) is already in the baseline.
  const length = opts.minutes === undefined ? `${opts.requests} parses` : `${opts.minutes} min`;
  log(`soak: ${uploads.length} corpus files, ${clients} clients, ${length}, server pid ${pid}`);
  for (const format of new Set(uploads.map((u) => u.format)))
    await parseOnce(uploads.find((u) => u.format === format)!, keys[0]!, {
      formats: ['markdown'],
      timeout: requestTimeoutMs,
    });
  await sessionOnce(keys[1]!, false);
  const warmupRequests = answered;
  agent.destroy();
  // Counted once the server has closed its end of the warm-up's connections.
  await until(() => clientConnections(pid, port) === 0, 20_000);
  const baseline = countFds(pid);
  const startWorkers = new Set(workerPids(pid));
  const seenWorkers = new Set(startWorkers);

  const started = performance.now();
  const minutesNow = () => (performance.now() - started) / 60_000;
  const deadline = opts.minutes === undefined ? Number.POSITIVE_INFINITY : started + opts.minutes * 60_000;
  const limit = opts.requests ?? Number.POSITIVE_INFINITY;
  let sent = 0;
  const more = () => sent < limit && performance.now() < deadline;
  const samples: [number, number, number][] = [];
  const workerReplacedAt: number[] = [];
  const sampler = setInterval(() => {
    const workers = workerPids(pid);
    for (const w of workers) {
      if (!seenWorkers.has(w)) workerReplacedAt.push(minutesNow());
      seenWorkers.add(w);
    }
    const own = residentBytes(pid) / 2 ** 20;
    samples.push([minutesNow(), own, own + workers.reduce((s, w) => s + residentBytes(w), 0) / 2 ** 20]);
  }, sampleMs);

  const client = async () => {
    while (more()) {
      const index = sent++;
      const mine = new Random((Math.imul(seed, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
      const upload = mine.pick(uploads);
      await parseOnce(upload, keys[index % 2]!, randomOptions(mine, upload.format, requestTimeoutMs));
    }
  };
  let clientsDone = false;
  /** Resolves once `n` parses are answered (true), or once the clients have stopped short of it. */
  const answers = (n: number) =>
    new Promise<boolean>((resolve) => {
      if (answered >= n) return resolve(true);
      if (clientsDone) return resolve(false);
      waiting.add({ n, resolve: () => resolve(answered >= n) });
    });
  // A round after every `sessionEvery` answers: one session, then two at once, by turns.
  const sessionLoop = async () => {
    for (let n = 0; await answers(warmupRequests + (n + 1) * sessionEvery); n++) {
      await Promise.all([
        sessionOnce(keys[n % 2]!, rnd.next() < idleShare),
        ...(n % 2 === 1 ? [sessionOnce(keys[(n + 1) % 2]!, false)] : []),
      ]);
    }
  };
  const progress = setInterval(() => {
    const last = samples.at(-1);
    log(
      `  ${minutesNow().toFixed(1)} min: ${JSON.stringify(statuses)}, sessions ${sessions.created}, RSS ${last?.[2].toFixed(0)} MB`,
    );
  }, 30_000);
  try {
    const loop = sessionLoop();
    await Promise.all(Array.from({ length: clients }, client));
    clientsDone = true;
    for (const w of waiting) w.resolve();
    waiting.clear();
    await loop;
  } finally {
    clearInterval(sampler);
    clearInterval(progress);
  }

  // The end: no session left, no client connection open; what the server still holds is its own.
  for (const key of keys) {
    const listed = await request(server.url, agent, 'GET', '/v2/interact?status=active', key);
    for (const s of (JSON.parse(listed.body.toString()) as { sessions: { id: string }[] }).sessions)
      await request(server.url, agent, 'DELETE', `/v2/interact/${s.id}`, key);
  }
  agent.destroy();
  site.close();
  const runFolder = path.join(server.dataDir, 'sessions', 'run');
  // Ended sessions' browsers exit and their folders go as their endings finish.
  await until(
    () =>
      clientConnections(pid, port) === 0 &&
      countFds(pid).total <= baseline.total &&
      processesNaming(server.dataDir).every((p) => p === pid || seenWorkers.has(p)) &&
      filesUnder(runFolder).length === 0,
    limits.browserCloseGraceMs + 20_000,
  );
  const end = countFds(pid);
  const browsersLeft = processesNaming(server.dataDir).filter((p) => p !== pid && !seenWorkers.has(p));
  const minutes = opts.minutes ?? minutesNow();
  const report: SoakReport = {
    minutes,
    clients,
    requests: answered,
    warmupRequests,
    statuses,
    refusals,
    serverErrors: Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((n, [, c]) => n + c, 0),
    clientFailures,
    byFormat,
    sessions,
    rss: {
      samples,
      ...slopes(samples, opts.warmupMinutes ?? Math.max(0.5, minutes / 5)),
      peakMb: samples.reduce((m, [, , all]) => Math.max(m, all), 0),
    },
    fds: { baseline, end, leaked: Math.max(0, end.total - baseline.total) },
    // Counted once the server has stopped (below): while it runs it holds its own socket there.
    tempFilesLeft: [],
    sessionFoldersLeft: filesUnder(runFolder),
    browsersLeft,
    workerStarts: seenWorkers.size,
    workerRestarts: seenWorkers.size - startWorkers.size,
    workerReplacedAt,
    serverWarnings: server
      .output()
      .split('\n')
      .filter((line) => /"level":(4|5|6)0/.test(line))
      .slice(-30)
      .map((line) => line.slice(0, 500)),
  };
  await server.stop();
  report.tempFilesLeft = filesUnder(tmp);
  fs.rmSync(tmp, { recursive: true, force: true });
  return report;
}

function slopes(samples: readonly [number, number, number][], warmup: number) {
  const after = samples.filter(([t]) => t >= warmup);
  return {
    slopeMbPerMin: slope(after.map(([t, , all]) => [t, all])),
    serverSlopeMbPerMin: slope(after.map(([t, own]) => [t, own])),
  };
}

/** The report as Markdown, for bench/RESULTS.md. */
export function soakSection(r: SoakReport): string {
  const fmt = (x: number | null) => (x === null ? '–' : x.toFixed(2));
  const statuses = Object.entries(r.statuses)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  return [
    '## Soak',
    '',
    `\`npm run soak\` (scripts/soak.ts): ${Number(r.minutes.toFixed(1))} min of ${r.clients} clients of two teams sending every corpus ` +
      'format with random options (outputs, main content, tag filters, PDF modes and page limits, pictures inline), ' +
      'beside one or two browser sessions at a time created, driven over CDP and ended, against one server in the ' +
      'embedded mode with two conversion workers.',
    '',
    '| measure | value |',
    '| --- | --- |',
    `| requests (by status) | ${r.requests} (${statuses}) |`,
    `| refusals | ${
      Object.entries(r.refusals)
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ') || 'none'
    } |`,
    `| 5xx answers; requests without an answer | ${r.serverErrors}; ${Object.values(r.clientFailures).reduce((a, b) => a + b, 0)} |`,
    `| sessions created / deleted / ended by idle timeout (of which before their client got to them) / failures | ${r.sessions.created} / ${r.sessions.deleted} / ${r.sessions.expired + r.sessions.expiredBeforeUse} (${r.sessions.expiredBeforeUse}) / ${Object.values(r.sessions.failures).reduce((a, b) => a + b, 0)} |`,
    `| RSS slope after warm-up, server + workers (server alone), MB/min | ${fmt(r.rss.slopeMbPerMin)} (${fmt(r.rss.serverSlopeMbPerMin)}) |`,
    `| peak RSS, server + workers, MB | ${r.rss.peakMb.toFixed(0)} |`,
    `| file descriptors at start / end (leaked) | ${r.fds.baseline.total} / ${r.fds.end.total} (${r.fds.leaked}) |`,
    `| temporary files, session folders, browser processes left | ${r.tempFilesLeft.length}, ${r.sessionFoldersLeft.length}, ${r.browsersLeft.length} |`,
    `| worker processes replaced | ${r.workerRestarts} |`,
    '',
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      requests: { type: 'string' },
      clients: { type: 'string', default: '4' },
      seed: { type: 'string', default: '1' },
    },
  });
  const report = await runSoak({
    ...(values.requests === undefined
      ? { minutes: Number(values.minutes ?? 30) }
      : { requests: Number(values.requests) }),
    clients: Number(values.clients),
    seed: Number(values.seed),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const out = path.join(repoRoot, 'bench/out');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'soak.json'), `${JSON.stringify(report, null, 1)}\n`);
  process.stdout.write(soakSection(report));
  const leaks =
    report.fds.leaked +
    report.tempFilesLeft.length +
    report.sessionFoldersLeft.length +
    report.browsersLeft.length;
  process.exitCode = report.serverErrors > 0 || leaks > 0 ? 1 : 0;
}
