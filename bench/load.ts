import { type ChildProcess, execFile, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { repoRoot } from './corpus.ts';
import { processTree, readStatusKb, treeCpuSeconds } from './proc.ts';
import { max, mean, nowMs, percentile } from './stats.ts';

/** A server to put under load: a Node entry point started as a child process. */
export interface ServerSpec {
  id: string;
  label: string;
  /** Script path relative to the repository root, run with this Node. */
  script: string;
  /** Extra environment; PORT and HOST are added. */
  env: Record<string, string>;
}

/** Quire from this checkout as a bench starts it: its own data folder and key, warnings only. */
/** A key of team `team` in the Quire data folder `dataDir`, made by Quire's own CLI. */
export async function createTeamKey(dataDir: string, team: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', team],
    { env: { ...process.env, QUIRE_DATA_DIR: dataDir } },
  );
  return stdout.trim();
}

export function quireSpec(dataDir: string, apiKey: string, env: Record<string, string> = {}): ServerSpec {
  return {
    id: 'quire',
    label: 'Quire',
    script: 'src/main.ts',
    env: { QUIRE_DATA_DIR: dataDir, QUIRE_API_KEYS: apiKey, QUIRE_LOG_LEVEL: 'warn', ...env },
  };
}

export interface Upload {
  name: string;
  type: string;
  bytes: Uint8Array;
}

export interface LoadOptions {
  concurrency: number;
  seconds: number;
  /** Unmeasured load first, so both servers are measured warm. */
  warmupSeconds: number;
  uploads: readonly Upload[];
  apiKey: string;
  /** Multipart `options` part. */
  options: string;
}

export interface LoadResult {
  id: string;
  label: string;
  /** Set when the server could not be started or measured. */
  error?: string;
  startupMs?: number;
  requests: number;
  ok: number;
  statuses: Record<string, number>;
  /** Client-side failures (connection reset, timeout), by message. */
  failures: Record<string, number>;
  durationS: number;
  rps: number;
  okRps: number;
  /** Latencies measured (successes and HTTP errors; client-side failures have none). */
  latencySamples: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  meanMs: number | null;
  maxMs: number | null;
  /** Max over 100 ms samples of the server process's VmRSS. */
  peakRssKb: number | null;
  /** Max over the same samples of the summed VmRSS of the server and all its descendants. */
  peakTreeRssKb: number | null;
  /** VmHWM of the server process at the end of the run. */
  vmHwmKb: number | null;
  /** CPU time (user + system) of the server and all its child processes during the measured phase. */
  cpuS: number | null;
  samples: number;
}

class RssSampler {
  peak: number | null = null;
  peakTree: number | null = null;
  samples = 0;
  private readonly pid: number;
  private readonly others: readonly number[];
  private readonly timer: NodeJS.Timeout;
  /** `pid`'s own RSS, and the tree's: its descendants and `others` (companions) with theirs. */
  constructor(pid: number, others: readonly number[] = []) {
    this.pid = pid;
    this.others = others;
    this.timer = setInterval(() => this.sample(), 100);
    this.sample();
  }
  sample(): void {
    const own = readStatusKb(this.pid, 'VmRSS');
    if (own === null) return;
    let tree = own;
    for (const p of processTree(this.pid).slice(1)) tree += readStatusKb(p, 'VmRSS') ?? 0;
    for (const p of this.others.flatMap((o) => processTree(o))) tree += readStatusKb(p, 'VmRSS') ?? 0;
    this.samples++;
    this.peak = Math.max(this.peak ?? 0, own);
    this.peakTree = Math.max(this.peakTree ?? 0, tree);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

// ------------------------------------------------------------------ server lifecycle

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Children still running, killed if the bench exits early. */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

interface Started {
  child: ChildProcess;
  base: string;
  /** Last output of the child, for error messages. */
  tail: () => string;
}

export async function startServer(
  spec: ServerSpec,
  timeoutMs = 30_000,
): Promise<Started & { startupMs: number }> {
  const port = await freePort();
  const t0 = nowMs();
  const child = spawn(process.execPath, [spec.script], {
    cwd: repoRoot,
    env: { ...process.env, ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.on('exit', () => live.delete(child));
  const base = `http://127.0.0.1:${port}`;
  const started: Started = { child, base, tail: () => tail.trim() };
  while (nowMs() - t0 < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${spec.label} exited (${child.exitCode ?? child.signalCode}) before it was healthy: ${tail.trim()}`,
      );
    }
    try {
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return { ...started, startupMs: nowMs() - t0 };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await stopServer(started);
  throw new Error(`${spec.label} was not healthy after ${timeoutMs} ms: ${tail.trim()}`);
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stopServer(s: Started, graceMs = 10_000): Promise<void> {
  const { child } = s;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

// ------------------------------------------------------------------ clients

interface Tally {
  latencies: number[];
  statuses: Record<string, number>;
  failures: Record<string, number>;
  firstStart: number;
  lastEnd: number;
}

async function client(
  base: string,
  opts: LoadOptions,
  start: number,
  deadline: number,
  tally: Tally | null,
): Promise<void> {
  for (let i = start; nowMs() < deadline; i++) {
    const upload = opts.uploads[i % opts.uploads.length]!;
    const form = new FormData();
    form.append('file', new Blob([upload.bytes], { type: upload.type }), upload.name);
    form.append('options', opts.options);
    const t0 = nowMs();
    try {
      const res = await fetch(`${base}/v2/parse`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.apiKey}` },
        body: form,
        signal: AbortSignal.timeout(60_000),
      });
      await res.arrayBuffer();
      const t1 = nowMs();
      if (tally) {
        tally.latencies.push(t1 - t0);
        tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1;
        tally.lastEnd = Math.max(tally.lastEnd, t1);
      }
    } catch (err) {
      const t1 = nowMs();
      if (tally) {
        const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        tally.failures[message] = (tally.failures[message] ?? 0) + 1;
        tally.lastEnd = Math.max(tally.lastEnd, t1);
      }
      // a refused connection must not turn into a busy loop
      await sleep(50);
    }
  }
}

async function phase(base: string, opts: LoadOptions, seconds: number, tally: Tally | null): Promise<void> {
  const deadline = nowMs() + seconds * 1000;
  const step = Math.max(1, Math.floor(opts.uploads.length / opts.concurrency));
  await Promise.all(
    Array.from({ length: opts.concurrency }, (_, i) => client(base, opts, i * step, deadline, tally)),
  );
}

/** A result with no measurements, for a server that could not be run. */
export function unmeasured(spec: ServerSpec, error: string): LoadResult {
  return {
    id: spec.id,
    label: spec.label,
    error,
    requests: 0,
    ok: 0,
    statuses: {},
    failures: {},
    durationS: 0,
    rps: 0,
    okRps: 0,
    latencySamples: 0,
    p50: null,
    p90: null,
    p99: null,
    meanMs: null,
    maxMs: null,
    peakRssKb: null,
    peakTreeRssKb: null,
    vmHwmKb: null,
    cpuS: null,
    samples: 0,
  };
}

/** CPU seconds of each process tree, summed; null when one cannot be read. */
function cpuOf(pids: readonly number[]): number | null {
  let total = 0;
  for (const pid of pids) {
    const s = treeCpuSeconds(pid);
    if (s === null) return null;
    total += s;
  }
  return total;
}

/**
 * Starts the server (after its `companions`, such as a cluster's worker processes, which it needs
 * to answer), loads it for `warmupSeconds` (unmeasured) and then `seconds` with `concurrency`
 * clients, each sending one request at a time, and stops them all. Latency runs from sending the
 * request to having read the whole response; CPU and the tree's RSS count the companions too.
 */
export async function loadTest(
  spec: ServerSpec,
  opts: LoadOptions,
  companionSpecs: readonly ServerSpec[] = [],
): Promise<LoadResult> {
  const companions: Started[] = [];
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    // A bound for a loaded machine, where a cluster's processes start together: not a speed claim.
    for (const companion of companionSpecs) companions.push(await startServer(companion, 60_000));
    server = await startServer(spec, 60_000);
  } catch (err) {
    for (const companion of companions) await stopServer(companion);
    return unmeasured(spec, err instanceof Error ? err.message : String(err));
  }
  const pid = server.child.pid!;
  const pids = [pid, ...companions.map((c) => c.child.pid!)];
  const sampler = new RssSampler(pid, pids.slice(1));
  try {
    if (opts.warmupSeconds > 0) await phase(server.base, opts, opts.warmupSeconds, null);
    const tally: Tally = { latencies: [], statuses: {}, failures: {}, firstStart: nowMs(), lastEnd: 0 };
    const cpu0 = cpuOf(pids);
    await phase(server.base, opts, opts.seconds, tally);
    const cpu1 = cpuOf(pids);
    sampler.sample();
    const vmHwmKb = readStatusKb(pid, 'VmHWM');
    const durationS = Math.max(1e-3, (tally.lastEnd - tally.firstStart) / 1000);
    const ok = Object.entries(tally.statuses)
      .filter(([status]) => status.startsWith('2'))
      .reduce((n, [, count]) => n + count, 0);
    const requests = tally.latencies.length + Object.values(tally.failures).reduce((a, b) => a + b, 0);
    const alive = server.child.exitCode === null && server.child.signalCode === null;
    return {
      id: spec.id,
      label: spec.label,
      ...(alive ? {} : { error: `server exited during the run: ${server.tail()}` }),
      startupMs: server.startupMs,
      requests,
      ok,
      statuses: tally.statuses,
      failures: tally.failures,
      durationS,
      rps: requests / durationS,
      okRps: ok / durationS,
      latencySamples: tally.latencies.length,
      p50: percentile(tally.latencies, 50),
      p90: percentile(tally.latencies, 90),
      p99: percentile(tally.latencies, 99),
      meanMs: mean(tally.latencies),
      maxMs: max(tally.latencies),
      peakRssKb: sampler.peak,
      peakTreeRssKb: sampler.peakTree,
      vmHwmKb,
      cpuS: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null,
      samples: sampler.samples,
    };
  } finally {
    sampler.stop();
    await stopServer(server);
    for (const companion of companions) await stopServer(companion);
  }
}
