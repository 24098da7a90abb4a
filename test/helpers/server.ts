import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { HttpTarget } from './app.ts';
import { forBlock } from './block-resource.ts';
import { createDatabase } from './postgres.ts';
import { testEnv } from './test-env.ts';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const corpusDir = process.env.QUIRE_CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus');

export interface RunningServer extends HttpTarget {
  url: string;
  key: string;
  dataDir: string;
  /**
   * In the cluster pass (QUIRE_TEST_CLUSTER=1), the PostgreSQL database holding the cluster's
   * keys, teams and sessions (what the embedded mode keeps in `dataDir`): the `quire` CLI reaches
   * them with QUIRE_DATABASE_URL set to it (storeEnv).
   */
  databaseUrl?: string;
  /** The process started: in the cluster pass, the `api` process. */
  process: ChildProcess;
  /**
   * The process whose children are the conversion workers: `process` itself in the embedded
   * mode, the `worker` process in the cluster pass.
   */
  conversionProcess: ChildProcess;
  output: () => string;
  /**
   * The first match of `pattern` (not global) in what the server has printed, as soon as it is
   * printed: a sign of what the server is doing, without polling or sleeping. Rejects if the
   * server exits first. With `from`, only what was printed past that many characters counts.
   */
  waitForOutput(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Servers still running when the test file's process ends (a test that failed before its own
 * cleanup) are told to shut down, so none outlives the suite.
 */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

/** The machine's Redis (npm test starts it: scripts/start-services.sh). */
export const redisUrl = 'redis://127.0.0.1:6379';

/**
 * Start Quire as `npm start` does (startProcess). With QUIRE_TEST_CLUSTER=1 in the environment
 * of the tests, the same server is a cluster instead: an `api` process (the one returned) and a
 * `worker` process on Redis and a PostgreSQL database of their own, so that a test file written
 * for the embedded mode runs unchanged against cluster mode (package.json's second test pass).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  if (process.env.QUIRE_TEST_CLUSTER !== '1') return startProcess(env);
  const cluster = await startCluster(env);
  const merged = mergeOutput([cluster.api, ...cluster.workers]);
  return {
    ...cluster.api,
    ...merged,
    databaseUrl: cluster.databaseUrl,
    conversionProcess: cluster.workers[0]!.process,
    stop: async (signal) => (await cluster.stop(signal))[0] ?? null,
  };
}

/**
 * What several processes print, as one: `output()` holds every process's lines in the order they
 * arrived (what each printed while starting first), and `waitForOutput` resolves on a match in
 * any of them. A cluster's conversions run in its worker, so what a test waits for (a converter's
 * log line, a background job's end) may be printed there rather than by the API process.
 */
function mergeOutput(servers: RunningServer[]): Pick<RunningServer, 'output' | 'waitForOutput'> {
  return watchOutput(
    servers.map((s) => s.process),
    servers.map((s) => s.output()).join(''),
  );
}

/**
 * What `processes` print on stdout and stderr, after `printed`, and a wait for a pattern in it
 * that rejects when any of them exits before the pattern is printed.
 */
function watchOutput(
  processes: ChildProcess[],
  printed = '',
): Pick<RunningServer, 'output' | 'waitForOutput'> {
  let output = printed;
  const streams = processes.flatMap((p) => [p.stdout!, p.stderr!]);
  for (const stream of streams) {
    stream.on('data', (d: Buffer) => {
      output += d.toString();
    });
  }
  return {
    output: () => output,
    waitForOutput(pattern, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output.slice(from));
          if (!match) return;
          stopWatching();
          resolve(match);
        };
        const exited = (code: number | null) => {
          stopWatching();
          reject(new Error(`a server process exited with ${code} before printing ${pattern}:\n${output}`));
        };
        const stopWatching = () => {
          for (const stream of streams) stream.off('data', check);
          for (const p of processes) p.off('exit', exited);
        };
        // Registered after the listeners that append to `output`, so each check sees the new data.
        for (const stream of streams) stream.on('data', check);
        for (const p of processes) p.once('exit', exited);
        check();
        // Settled already when the output held the pattern; otherwise nothing more will come.
        const gone = processes.find((p) => p.exitCode !== null);
        if (gone) exited(gone.exitCode);
      });
    },
  };
}

export interface RunningCluster {
  api: RunningServer;
  workers: RunningServer[];
  /** The Redis key prefix every process of this cluster shares, and no other test's does. */
  prefix: string;
  databaseUrl: string;
  /** Starts one more worker process (QUIRE_ROLE=worker) with the cluster's settings and `env`. */
  addWorker(env?: Record<string, string>): Promise<RunningServer>;
  /** Starts one more API process (QUIRE_ROLE=api) with the cluster's settings and `env`. */
  addApi(env?: Record<string, string>): Promise<RunningServer>;
  /** The Redis keys under the cluster's prefix matching `pattern` (after the prefix and its colon). */
  redisKeys(pattern: string): Promise<string[]>;
  /**
   * Ends a dead worker's claim on conversion `jobId` now, as its lapse would 15 s later (the
   * claim is a Redis key with that expiry, renewed only by a live worker): the test moves that
   * clock rather than waiting for it. Resolves to whether there was a claim to end.
   */
  lapseClaim(jobId: string): Promise<boolean>;
  /** Stops the API process, then the workers (the exit codes in that order), and drops the cluster's data. */
  stop(signal?: NodeJS.Signals): Promise<(number | null)[]>;
}

/**
 * A cluster on this machine: one `api` process and `workers` worker processes, each on a port of
 * its own, sharing Redis under a key prefix of their own (so that test files running in parallel
 * never meet) and a fresh PostgreSQL database.
 */
export async function startCluster(
  env: Record<string, string> = {},
  { workers = 1 }: { workers?: number } = {},
): Promise<RunningCluster> {
  const prefix = `quire-test-${Math.random().toString(36).slice(2)}`;
  const database = env.QUIRE_DATABASE_URL ? undefined : await createDatabase();
  const shared = {
    QUIRE_REDIS_URL: redisUrl,
    QUIRE_REDIS_PREFIX: prefix,
    QUIRE_DATABASE_URL: database?.url ?? env.QUIRE_DATABASE_URL!,
    ...env,
  };
  const redis = new Redis(shared.QUIRE_REDIS_URL);
  const started: RunningServer[] = [];
  const apis: RunningServer[] = [];
  const addWorker = async (more: Record<string, string> = {}) => {
    const worker = await startProcess({ ...shared, QUIRE_ROLE: 'worker', ...more });
    started.push(worker);
    return worker;
  };
  // Each API process holds sessions under a node id of its own (the default, the host name, is
  // one machine's: a second process with it is refused at start).
  let apiCount = 0;
  const nodeId = () => `${prefix}-api-${++apiCount}`;
  const addApi = async (more: Record<string, string> = {}) => {
    const api = await startProcess({ QUIRE_NODE_ID: nodeId(), ...shared, QUIRE_ROLE: 'api', ...more });
    apis.push(api);
    return api;
  };
  // Together: each start is seconds of module loading.
  const starts = await Promise.allSettled([
    startProcess({ QUIRE_NODE_ID: nodeId(), ...shared, QUIRE_ROLE: 'api' }),
    ...Array.from({ length: workers }, () => addWorker()),
  ]);
  const failed = starts.find((r) => r.status === 'rejected');
  if (failed) {
    for (const r of starts) if (r.status === 'fulfilled') await r.value.stop();
    redis.disconnect();
    await database?.drop();
    throw failed.reason;
  }
  const api = (starts[0] as PromiseFulfilledResult<RunningServer>).value;
  return {
    api,
    workers: started,
    prefix,
    databaseUrl: shared.QUIRE_DATABASE_URL,
    addWorker,
    addApi,
    async redisKeys(pattern) {
      return redis.keys(`${prefix}:${pattern}`);
    },
    async lapseClaim(jobId) {
      // BullMQ's lock key for a job of the `conversions` queue (src/pipeline/redis-queue.ts).
      return (await redis.del(`${prefix}:conversions:${jobId}:lock`)) === 1;
    },
    async stop(signal) {
      const codes = [await api.stop(signal)];
      for (const other of apis) await other.stop(signal);
      for (const worker of started) codes.push(await worker.stop(signal));
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await database?.drop();
      return codes;
    },
  };
}

/**
 * Start Quire as a real process on a free port, as `npm start` does, with its own data
 * folder and a known key, and wait until it says where it listens.
 */
export async function startProcess(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
  const key = `test-key-${Math.random().toString(36).slice(2)}`;
  const child = spawn(process.execPath, [path.join(repoRoot, 'src/main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...testEnv(dataDir, key),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const watched = watchOutput([child]);
  const output = watched.output;
  const url = await new Promise<string>((resolve, reject) => {
    // A bound for a loaded machine, not a speed claim: a start loads every module, and in cluster
    // mode two processes start at once (load averages of 15 on 2 cores took a pair past 30 s).
    const timer = setTimeout(() => {
      // Not left running: nobody would stop it, and its open pipes would keep the test file alive.
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
      reject(new Error(`server did not start:\n${output()}`));
    }, 60_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(output());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output()}`)));
  });
  return {
    url,
    key,
    dataDir,
    fetch: (at, init) => fetch(`${url}${at}`, init),
    process: child,
    conversionProcess: child,
    ...watched,
    stop(signal = 'SIGTERM') {
      // Already gone (it exited, or a test killed it).
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        child.once('exit', (code) => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          resolve(code);
        });
        child.kill(signal);
      });
    },
  };
}

export interface ParseCall {
  file?: { bytes: Uint8Array | string; filename?: string; type?: string };
  options?: unknown;
  /** Send options as a JSON part (content type application/json) rather than a text field. */
  optionsAsJsonPart?: boolean;
  key?: string | null;
  /** Aborting it leaves: the client goes away mid-request. */
  signal?: AbortSignal;
}

/** POST /v2/parse the way a client would, returning status and parsed body. */
export async function parse(
  server: HttpTarget,
  call: ParseCall,
): Promise<{ status: number; body: Record<string, any>; headers: Headers }> {
  const form = new FormData();
  if (call.options !== undefined) {
    const text = typeof call.options === 'string' ? call.options : JSON.stringify(call.options);
    if (call.optionsAsJsonPart) form.append('options', new Blob([text], { type: 'application/json' }));
    else form.append('options', text);
  }
  if (call.file) {
    const blob = new Blob([call.file.bytes as Uint8Array<ArrayBuffer> | string], {
      type: call.file.type ?? '',
    });
    form.append('file', blob, call.file.filename ?? 'upload');
  }
  const key = call.key === undefined ? server.key : call.key;
  const res = await server.fetch('/v2/parse', {
    method: 'POST',
    body: form,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    signal: call.signal,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

export function corpusFile(relative: string): { bytes: Uint8Array; filename: string } {
  return { bytes: fs.readFileSync(path.join(corpusDir, relative)), filename: path.basename(relative) };
}

/**
 * One server for a whole `describe` block: started before its tests, stopped after.
 * The getter is read inside tests, once the server exists.
 */
export function useServer(env: Record<string, string> = {}): () => RunningServer {
  return forBlock(
    () => startServer(env),
    (server) => server.stop(),
    'the server',
  );
}

/**
 * The environment that points the `quire` CLI (keys, teams, audit) at `server`'s store: its data
 * folder, and in the cluster pass its PostgreSQL database, where a cluster keeps keys and teams.
 */
export function storeEnv(server: Pick<RunningServer, 'dataDir' | 'databaseUrl'>): Record<string, string> {
  return {
    QUIRE_DATA_DIR: server.dataDir,
    ...(server.databaseUrl ? { QUIRE_DATABASE_URL: server.databaseUrl } : {}),
  };
}
