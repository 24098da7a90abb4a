import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { dash, fmtMs, fmtRatio, table } from './format.ts';
import { quireSpec, startServer, stopServer } from './load.ts';
import { machineFacts } from './machine.ts';
import { processTree, readStatusKb } from './proc.ts';
import { max, median, nowMs, percentile, ratio, supportedPercentiles } from './stats.ts';

// Interact sessions: how long from asking for a browser to driving it, what an idle one costs,
// and how many this machine holds, for Quire (POST /v2/interact, then Playwright through the
// cdpUrl relay) against the bare minimum: Chromium started by hand and Playwright connected to
// it directly, measured in the same run.

// The same binary Quire starts, so that the two sides differ only in what Quire adds.
const chromiumPath = loadConfig().QUIRE_CHROMIUM_PATH;
const apiKey = 'bench-key';

export interface SessionsOptions {
  /** Create-to-usable measurements per side, interleaved. */
  runs: number;
  /** Sessions held at once for the memory and capacity measurement. */
  held: number;
}

export interface Memory {
  rssKb: number;
  pssKb: number;
  processes: number;
}

export interface SessionsResult {
  runs: number;
  quireReadyMs: number[];
  quireCreateMs: number[];
  peerReadyMs: number[];
  quireIdle: Memory[];
  peerIdle: Memory[];
  /** Sessions created and checked usable while all were held. */
  held: number;
  heldWanted: number;
  heldError: string | null;
  heldTotal: Memory | null;
  serverRssKb: { before: number | null; after: number | null };
  freeMbBefore: number;
  freeMbAfter: number;
  error: string | null;
}

// ------------------------------------------------------------------ memory of a process group

function pssKb(pid: number): number {
  try {
    const m = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)\s+kB/m);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * RSS and PSS of a browser and all its processes. RSS counts pages shared between a browser's
 * processes (and between browsers) once per process; PSS splits them, so it is what one more
 * session really costs.
 */
export function browserMemory(pid: number): Memory {
  const pids = processTree(pid);
  let rssKb = 0;
  let pss = 0;
  for (const p of pids) {
    rssKb += readStatusKb(p, 'VmRSS') ?? 0;
    pss += pssKb(p);
  }
  return { rssKb, pssKb: pss, processes: pids.length };
}

const freeMb = () => Math.round(os.freemem() / 2 ** 20);

// ------------------------------------------------------------------ the peer: Chromium by hand

interface BareBrowser {
  child: ChildProcess;
  dir: string;
  endpoint: string;
}

/**
 * What a caller does without Quire: start Chromium headless on a free port with its own
 * profile (and the flags this closed network needs), read DevToolsActivePort.
 */
async function launchBare(): Promise<BareBrowser> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-chromium-'));
  const args = [
    '--headless',
    '--remote-debugging-port=0',
    `--user-data-dir=${dir}`,
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-dev-shm-usage',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    'about:blank',
  ];
  const child = spawn(chromiumPath, args, { detached: true, stdio: 'ignore' });
  const portFile = path.join(dir, 'DevToolsActivePort');
  const deadline = nowMs() + 30_000;
  while (nowMs() < deadline) {
    const [port, wsPath] = fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8').split('\n') : [];
    if (port && wsPath) return { child, dir, endpoint: `ws://127.0.0.1:${port}${wsPath.trim()}` };
    await sleep(10);
  }
  killBare({ child, dir, endpoint: '' });
  throw new Error('bare Chromium did not start within 30 s');
}

function killBare(b: BareBrowser): void {
  try {
    process.kill(-b.child.pid!, 'SIGKILL');
  } catch {
    // gone
  }
  fs.rmSync(b.dir, { recursive: true, force: true });
}

/** Connect Playwright and wait for the first tab: the point where a caller can start work. */
async function usable(endpoint: string): Promise<void> {
  const browser = await chromium.connectOverCDP(endpoint);
  const context = browser.contexts()[0]!;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.evaluate('1 + 1');
  await browser.close();
}

// ------------------------------------------------------------------ Quire

interface Api {
  base: string;
  dataDir: string;
}

async function createQuire(api: Api): Promise<{ id: string; cdpUrl: string; createMs: number }> {
  const t0 = nowMs();
  const res = await fetch(`${api.base}/v2/interact`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ttl: 3600, activityTtl: 3600 }),
  });
  const body = (await res.json()) as { id?: string; cdpUrl?: string; error?: string };
  if (res.status !== 200 || !body.id || !body.cdpUrl) {
    throw new Error(`create answered ${res.status}: ${body.error ?? JSON.stringify(body)}`);
  }
  return { id: body.id, cdpUrl: body.cdpUrl, createMs: nowMs() - t0 };
}

async function deleteQuire(api: Api, id: string): Promise<void> {
  const res = await fetch(`${api.base}/v2/interact/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${apiKey}` },
  });
  await res.arrayBuffer();
}

function sessionPid(api: Api, id: string): number {
  const db = new DatabaseSync(path.join(api.dataDir, 'quire.db'), { readOnly: true });
  try {
    return (db.prepare('SELECT pid FROM sessions WHERE id = ?').get(id) as { pid: number }).pid;
  } finally {
    db.close();
  }
}

// ------------------------------------------------------------------ run

/** Idle memory is read after this settle time: a fresh browser is still loading its first tab. */
const settleMs = 3_000;

export async function runSessionsBench(
  opts: SessionsOptions,
  log: (m: string) => void,
): Promise<SessionsResult> {
  const result: SessionsResult = {
    runs: opts.runs,
    quireReadyMs: [],
    quireCreateMs: [],
    peerReadyMs: [],
    quireIdle: [],
    peerIdle: [],
    held: 0,
    heldWanted: opts.held,
    heldError: null,
    heldTotal: null,
    serverRssKb: { before: null, after: null },
    freeMbBefore: 0,
    freeMbAfter: 0,
    error: null,
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-sessions-'));
  const cap = String(opts.held + 1);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(
      quireSpec(dataDir, apiKey, {
        QUIRE_SESSIONS_MAX: cap,
        QUIRE_SESSIONS_PER_TEAM: cap,
        QUIRE_CHROMIUM_PATH: chromiumPath,
      }),
    );
    const api: Api = { base: server.base, dataDir };
    const serverPid = server.child.pid!;

    // Latency: alternate the two sides so drift in the machine's load hits both alike.
    log(`sessions: create to usable, ${opts.runs} runs per side`);
    for (let i = 0; i < opts.runs + 1; i++) {
      const t0 = nowMs();
      const q = await createQuire(api);
      await usable(q.cdpUrl);
      const quireMs = nowMs() - t0;
      await deleteQuire(api, q.id);
      const t1 = nowMs();
      const bare = await launchBare();
      await usable(bare.endpoint);
      const peerMs = nowMs() - t1;
      killBare(bare);
      // The first of each is a cold start (disk cache, the relay's first connection): not counted.
      if (i === 0) continue;
      result.quireReadyMs.push(quireMs);
      result.quireCreateMs.push(q.createMs);
      result.peerReadyMs.push(peerMs);
    }

    // Idle memory, one browser of each kind at a time.
    log('sessions: idle memory');
    for (let i = 0; i < 3; i++) {
      const q = await createQuire(api);
      await usable(q.cdpUrl);
      const bare = await launchBare();
      await usable(bare.endpoint);
      await sleep(settleMs);
      result.quireIdle.push(browserMemory(sessionPid(api, q.id)));
      result.peerIdle.push(browserMemory(bare.child.pid!));
      killBare(bare);
      await deleteQuire(api, q.id);
    }

    // Capacity: hold many idle sessions, each checked usable, and see what they cost together.
    log(`sessions: holding ${opts.held} sessions`);
    result.serverRssKb.before = readStatusKb(serverPid, 'VmRSS');
    result.freeMbBefore = freeMb();
    const ids: string[] = [];
    try {
      for (let i = 0; i < opts.held; i++) {
        const q = await createQuire(api);
        ids.push(q.id);
        await usable(q.cdpUrl);
        result.held = ids.length;
      }
      // Every one still answers once all are up.
      for (const id of ids) {
        const res = await fetch(`${api.base}/v2/interact/${id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        const body = (await res.json()) as { status?: string };
        if (body.status !== 'active') throw new Error(`session ${id} is ${body.status}`);
      }
      await sleep(settleMs);
      const total: Memory = { rssKb: 0, pssKb: 0, processes: 0 };
      for (const id of ids) {
        const m = browserMemory(sessionPid(api, id));
        total.rssKb += m.rssKb;
        total.pssKb += m.pssKb;
        total.processes += m.processes;
      }
      result.heldTotal = total;
      result.freeMbAfter = freeMb();
      result.serverRssKb.after = readStatusKb(serverPid, 'VmRSS');
    } catch (err) {
      result.heldError = err instanceof Error ? err.message : String(err);
    }
    for (const id of ids) await deleteQuire(api, id);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
    log(`! sessions bench: ${result.error}`);
  } finally {
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return result;
}

// ------------------------------------------------------------------ report

const mb = (kb: number | null | undefined) => (kb == null ? dash : (kb / 1024).toFixed(0));

export function sessionsSection(r: SessionsResult): string[] {
  if (r.error && r.quireReadyMs.length === 0) {
    return ['## Interact sessions', '', `Not measured: ${r.error}`, ''];
  }
  /** A row with both sides and their ratio. */
  const row = (
    label: string,
    quire: number | null,
    peer: number | null,
    show: (x: number | null) => string,
  ) => [label, show(quire), show(peer), fmtRatio(ratio(quire, peer))];
  const latency = (q: number) => percentile(r.quireReadyMs, q);
  const peerLatency = (q: number) => percentile(r.peerReadyMs, q);
  const idle = (xs: Memory[], f: (m: Memory) => number) => median(xs.map(f));
  // Only what the sample count supports: 20 runs give p50 and p90, and then the maximum.
  const shown = supportedPercentiles(Math.min(r.quireReadyMs.length, r.peerReadyMs.length));
  const latencyRows = [
    ...shown.map((p) => row(`create to usable, p${p} (ms)`, latency(p), peerLatency(p), fmtMs)),
    row('create to usable, max (ms)', max(r.quireReadyMs), max(r.peerReadyMs), fmtMs),
    ['of which POST /v2/interact, p50 (ms)', fmtMs(percentile(r.quireCreateMs, 50)), dash, dash],
    row(
      'idle browser, PSS (MB, median)',
      idle(r.quireIdle, (m) => m.pssKb),
      idle(r.peerIdle, (m) => m.pssKb),
      mb,
    ),
    row(
      'idle browser, RSS summed over its processes (MB, median)',
      idle(r.quireIdle, (m) => m.rssKb),
      idle(r.peerIdle, (m) => m.rssKb),
      mb,
    ),
    row(
      'processes per browser (median)',
      idle(r.quireIdle, (m) => m.processes),
      idle(r.peerIdle, (m) => m.processes),
      (x) => (x === null ? dash : String(x)),
    ),
  ];
  const { cores, memGiB } = machineFacts();
  const perHeldPss = r.heldTotal && r.held > 0 ? r.heldTotal.pssKb / r.held : null;
  const serverDelta =
    r.serverRssKb.after !== null && r.serverRssKb.before !== null
      ? r.serverRssKb.after - r.serverRssKb.before
      : null;
  const marginalMb = r.held > 0 ? (r.freeMbBefore - r.freeMbAfter) / r.held : null;
  const heldLines = r.heldTotal
    ? [
        `- Held at once: **${r.held} sessions**, every one created through the API, driven by Playwright through its ` +
          `cdpUrl and still \`active\` at the end: ${r.heldTotal.processes} processes, ${mb(r.heldTotal.pssKb)} MB PSS ` +
          `together (${mb(perHeldPss)} MB per session; PSS falls as more browsers share Chromium's pages). ` +
          `MemAvailable went from ${r.freeMbBefore} to ${r.freeMbAfter} MB, ${marginalMb?.toFixed(0) ?? dash} MB per ` +
          `session; Quire's own RSS changed by ${mb(serverDelta)} MB.`,
        `- At that marginal cost, the ${r.freeMbBefore} MB this ${memGiB.toFixed(0)} GiB machine had ` +
          `available would hold about ${marginalMb && marginalMb > 0 ? Math.floor(r.freeMbBefore / marginalMb) : dash} ` +
          'idle sessions (before `QUIRE_SESSIONS_MIN_FREE_MB` keeps its reserve); busy pages need CPU, of which it has ' +
          `${cores} cores, so \`QUIRE_SESSIONS_MAX\` (20 by default) is the practical cap.`,
      ]
    : [`- Holding ${r.heldWanted} sessions failed after ${r.held}: ${r.heldError ?? 'unknown error'}`];
  return [
    '## Interact sessions',
    '',
    `Create to usable: from the request for a browser to Playwright (playwright-core) having its first tab and ` +
      `evaluating in it; ${shown.map((p) => `p${p}`).join(', ')} and max of ${r.runs} runs per side (n = ${r.runs}: more ` +
      'percentiles need more runs, `QUIRE_BENCH_SESSION_RUNS`), interleaved, after one unmeasured cold start each. ' +
      'Quire: `POST /v2/interact`, then `connectOverCDP(cdpUrl)` through the relay and its firewall (the browser also ' +
      'runs behind the egress proxy). Peer: the bare minimum without Quire, `chromium --headless ' +
      '--remote-debugging-port=0` with a fresh profile started by the bench, DevToolsActivePort read, Playwright ' +
      'connected to it directly. Idle memory: a browser showing about:blank 3 s after connecting, summed over its ' +
      'process tree (PSS splits shared pages between processes, so it is what one more browser costs).',
    '',
    table(
      [
        '',
        'Quire',
        'bare Chromium + Playwright',
        'Quire / peer (both: browser started and driven, same steps)',
      ],
      latencyRows,
    ),
    '',
    ...heldLines,
    ...(r.error ? [`- Error: ${r.error}`] : []),
    '',
  ];
}
