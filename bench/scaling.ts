import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../test/helpers/postgres.ts';
import { redisUrl } from '../test/helpers/server.ts';
import { table } from './format.ts';
import {
  type LoadOptions,
  type LoadResult,
  loadTest,
  quireSpec,
  type ServerSpec,
  type Upload,
} from './load.ts';
import { supportedPercentiles } from './stats.ts';

/**
 * Scaling (issue 18): the same closed-loop load of mixed documents against the embedded mode with
 * 1, 2 and 4 conversion processes and against cluster mode (one `api` process, Redis, PostgreSQL)
 * with 1, 2 and 4 `worker` processes of one conversion process each, on this one machine; then
 * cluster mode overloaded (many more clients than its queue holds), where the only refusals may
 * be 429s and every request must be answered. Redis and PostgreSQL are the machine's
 * (scripts/start-services.sh); each cluster has a key prefix and a database of its own.
 */

export interface ScalingOptions {
  uploads: readonly Upload[];
  apiKey: string;
  seconds: number;
  warmupSeconds: number;
  concurrency: number;
  workers: readonly number[];
  /** The overload run: this many clients against a queue of `overloadQueue` jobs. */
  overloadClients: number;
  overloadQueue: number;
}

export interface ScalingRow {
  mode: 'embedded' | 'cluster';
  /** Conversion processes: QUIRE_WORKERS (embedded), or worker processes of one each (cluster). */
  workers: number;
  result: LoadResult;
}

export interface ScalingResult {
  options: Omit<ScalingOptions, 'uploads' | 'apiKey'> & { files: number; kinds: string[] };
  rows: ScalingRow[];
  overload: LoadResult;
  cores: number;
}

/** A cluster of one api process and `workers` worker processes on a fresh prefix and database. */
async function clusterSpecs(
  dataDir: string,
  apiKey: string,
  workers: number,
  env: Record<string, string>,
): Promise<{ api: ServerSpec; workers: ServerSpec[]; drop: () => Promise<void> }> {
  const database = await createDatabase();
  const shared = {
    QUIRE_REDIS_URL: redisUrl,
    QUIRE_REDIS_PREFIX: `quire-bench-${Math.random().toString(36).slice(2)}`,
    QUIRE_DATABASE_URL: database.url,
    ...env,
  };
  return {
    api: { ...quireSpec(dataDir, apiKey, { ...shared, QUIRE_ROLE: 'api' }), label: 'Quire cluster api' },
    workers: Array.from({ length: workers }, (_, i) => ({
      ...quireSpec(path.join(dataDir, `worker-${i}`), apiKey, {
        ...shared,
        QUIRE_ROLE: 'worker',
        QUIRE_WORKERS: '1',
      }),
      id: `worker-${i}`,
      label: `Quire cluster worker ${i}`,
    })),
    drop: database.drop,
  };
}

export async function runScalingBench(
  opts: ScalingOptions,
  log: (line: string) => void,
): Promise<ScalingResult> {
  const load: LoadOptions = {
    concurrency: opts.concurrency,
    seconds: opts.seconds,
    warmupSeconds: opts.warmupSeconds,
    uploads: opts.uploads,
    apiKey: opts.apiKey,
    options: '{"formats":["markdown"]}',
  };
  // One team sends everything here: its concurrency must not be what limits the pool.
  const common = { QUIRE_TEAM_CONCURRENCY: String(opts.concurrency), QUIRE_FAIR_RESERVE_MS: '0' };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-scaling-'));
  const rows: ScalingRow[] = [];
  const report = (row: ScalingRow) => {
    const r = row.result;
    log(
      `  ${row.mode} ${row.workers}: ${r.error ? `error ${r.error.slice(0, 200)}; ` : ''}${r.okRps.toFixed(1)} ok/s, p50 ${r.p50?.toFixed(0)} ms, p99 ${r.p99?.toFixed(0)} ms`,
    );
  };
  try {
    for (const workers of opts.workers) {
      log(`scaling: embedded, ${workers} conversion processes`);
      const embedded = quireSpec(path.join(dataDir, `embedded-${workers}`), opts.apiKey, {
        ...common,
        QUIRE_WORKERS: String(workers),
      });
      rows.push({ mode: 'embedded', workers, result: await loadTest(embedded, load) });
      report(rows.at(-1)!);

      log(`scaling: cluster, ${workers} worker processes`);
      const cluster = await clusterSpecs(
        path.join(dataDir, `cluster-${workers}`),
        opts.apiKey,
        workers,
        common,
      );
      try {
        rows.push({ mode: 'cluster', workers, result: await loadTest(cluster.api, load, cluster.workers) });
      } finally {
        await cluster.drop();
      }
      report(rows.at(-1)!);
    }
    log(`scaling: cluster overloaded, ${opts.overloadClients} clients, queue of ${opts.overloadQueue}`);
    const workers = Math.max(...opts.workers.filter((w) => w <= os.availableParallelism()), 1);
    const cluster = await clusterSpecs(path.join(dataDir, 'overload'), opts.apiKey, workers, {
      ...common,
      QUIRE_TEAM_CONCURRENCY: String(opts.overloadClients),
      QUIRE_QUEUE_SIZE: String(opts.overloadQueue),
    });
    let overload: LoadResult;
    try {
      overload = await loadTest(cluster.api, { ...load, concurrency: opts.overloadClients }, cluster.workers);
    } finally {
      await cluster.drop();
    }
    log(`  statuses ${JSON.stringify(overload.statuses)}, failures ${JSON.stringify(overload.failures)}`);
    const { uploads, apiKey, ...rest } = opts;
    return {
      options: {
        ...rest,
        files: uploads.length,
        kinds: [...new Set(uploads.map((u) => path.extname(u.name)))],
      },
      rows,
      overload,
      cores: os.availableParallelism(),
    };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const ms = (v: number | null) => (v === null ? '–' : v.toFixed(0));
/** A percentile where the row's sample count supports it (see supportedPercentiles), else why not. */
const shownPercentile = (r: LoadResult, p: number, value: number | null) =>
  supportedPercentiles(r.latencySamples, [p]).length > 0 ? ms(value) : `– (${r.latencySamples} answers)`;

export function scalingSection(result: ScalingResult): string[] {
  const { options: o, rows, overload } = result;
  const embedded = (workers: number) =>
    rows.find((r) => r.mode === 'embedded' && r.workers === workers)?.result;
  const lines = rows.map(({ mode, workers, result: r }) => {
    const peer = mode === 'cluster' ? embedded(workers) : undefined;
    return [
      mode,
      String(workers),
      r.error ? `error: ${r.error.replace(/\s+/g, ' ').slice(0, 120)}` : r.okRps.toFixed(1),
      shownPercentile(r, 50, r.p50),
      shownPercentile(r, 90, r.p90),
      shownPercentile(r, 99, r.p99),
      String(r.latencySamples),
      r.cpuS === null || r.ok === 0 ? '–' : ((r.cpuS * 1000) / r.ok).toFixed(0),
      peer && peer.okRps > 0 && !r.error ? `${(r.okRps / peer.okRps).toFixed(2)}×` : '–',
    ];
  });
  const answered = Object.values(overload.statuses).reduce((a, b) => a + b, 0);
  const other = Object.entries(overload.statuses).filter(([s]) => s !== '200' && s !== '429');
  const lost = Object.values(overload.failures).reduce((a, b) => a + b, 0);
  return [
    '## Scaling: embedded mode against cluster mode',
    '',
    `${o.concurrency} concurrent clients of one team, each sending \`POST /v2/parse\` (markdown) one after another for ` +
      `${o.seconds} s after ${o.warmupSeconds} s unmeasured, cycling over ${o.files} corpus files (${o.kinds.join(', ')}: ` +
      'every format but the scanned and big PDFs, whose OCR and hundreds of pages would make one file the measure). ' +
      'Embedded: one process with QUIRE_WORKERS conversion processes. Cluster: one `api` process and that many `worker` ' +
      'processes of one conversion process each, through the machine’s Redis (BullMQ) and PostgreSQL. ' +
      `Both on this machine’s ${result.cores} cores, so past ${result.cores} conversion processes neither mode can go faster: ` +
      'the rows past that show the cost of more processes, not of more machines. CPU per answer counts every process of the ' +
      'mode (api, workers and their conversion processes; not Redis or PostgreSQL).',
    '',
    table(
      [
        'mode',
        'conversion processes',
        'answers/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'latencies',
        'CPU ms / answer',
        'cluster / embedded answers/s',
      ],
      lines,
    ),
    '',
    `Overload: ${o.overloadClients} clients against a cluster whose queue holds ${o.overloadQueue} jobs ` +
      `(QUIRE_QUEUE_SIZE), for ${o.seconds} s: ${answered} requests answered, ${overload.statuses['200'] ?? 0} with 200 ` +
      `and ${overload.statuses['429'] ?? 0} with 429 (queue full, with Retry-After)` +
      (other.length > 0
        ? `; other statuses: ${other.map(([s, n]) => `${n}× ${s}`).join(', ')}`
        : ', and no other status') +
      `; ${lost} requests got no answer${lost > 0 ? ` (${Object.keys(overload.failures).join('; ')})` : ''}. ` +
      `p50 ${shownPercentile(overload, 50, overload.p50)} ms, p99 ${shownPercentile(overload, 99, overload.p99)} ms over all answers.`,
    '',
  ];
}
