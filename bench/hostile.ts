import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostileCases } from '../scripts/hostile/index.ts';
import { repoRoot } from './corpus.ts';
import { dash, fmtMs, fmtRatio, table } from './format.ts';
import { createTeamKey, quireSpec, startServer, stopServer } from './load.ts';
import { postParse } from './post-parse.ts';
import { max, nowMs, percentile, ratio, supportedPercentiles } from './stats.ts';

// Fairness under attack: a second team's small parses, unloaded and while another team sends the
// generated hostile set (scripts/hostile) in a loop, on the same server with its default pool
// (one worker per core) and default team concurrency (as many parses as there are workers).

const apiKey = 'bench-key';
/** The hostile team's per-request deadline, as the hostile test sends them. */
const hostileTimeoutMs = 10_000;
/** A page of the size a small parse has: a heading, a few paragraphs, a list, a link. */
const smallPage =
  '<html><head><title>Small</title></head><body><article><h1>A small page</h1>' +
  '<p>Quire converts documents to Markdown. '.repeat(20) +
  '</p><ul><li>one</li><li>two</li><li>three</li></ul><p><a href="/next">next</a></p></article></body></html>';

export interface HostileBenchOptions {
  /** Small parses measured per phase at least (p99 needs 200). */
  samples: number;
  /** One small parse starts this long after the one before started (or when it ends, if later). */
  paceMs: number;
  /** Hostile clients per loaded phase: each sends the set one file after another. */
  hostileClients: readonly number[];
  /**
   * A loaded phase lasts until the hostile set has been sent once in all and the samples are in,
   * or this many seconds, whichever comes first.
   */
  maxPhaseSeconds: number;
}

export interface Phase {
  hostileClients: number;
  latenciesMs: number[];
  /** Statuses of the small parses (all 200 is the goal). */
  statuses: Record<string, number>;
  /** Hostile uploads answered during the phase, by status. */
  hostileStatuses: Record<string, number>;
  seconds: number;
}

export interface HostileBenchResult {
  workers: number;
  cases: number;
  phases: Phase[];
  error: string | null;
}

/**
 * The hostile team's clients in a child process (bench/hostile-attack.ts), so that reading their
 * answers, some of them tens of megabytes, never delays this process's timing of the small parses.
 */
function startAttack(base: string, clients: number) {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bench/hostile-attack.ts')], {
    env: {
      ...process.env,
      QUIRE_ATTACK_URL: base,
      QUIRE_ATTACK_KEY: apiKey,
      QUIRE_ATTACK_CLIENTS: String(clients),
      QUIRE_ATTACK_TIMEOUT_MS: String(hostileTimeoutMs),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const listeners: ((status: number) => void)[] = [];
  const ready = new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      if (line.startsWith('ready')) resolve();
      else for (const l of listeners) l(Number(line));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    ready,
    onStatus: (listener: (status: number) => void) => listeners.push(listener),
    /** Lets each client finish the upload it is on, as the loop did before. */
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function runHostileBench(
  opts: HostileBenchOptions,
  log: (line: string) => void,
): Promise<HostileBenchResult> {
  const workers = os.availableParallelism();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-hostile-'));
  const cases = hostileCases.length;
  const server = await startServer(quireSpec(dataDir, apiKey, { QUIRE_WORKERS: String(workers) }));
  const result: HostileBenchResult = { workers, cases, phases: [], error: null };
  try {
    const smallKey = await createTeamKey(dataDir, 'small');
    const small = () =>
      postParse(server.base, smallKey, Buffer.from(smallPage), 'small.html', { timeout: 120_000 });
    for (let i = 0; i < 20; i++) await small();

    for (const hostileClients of [0, ...opts.hostileClients]) {
      const phase: Phase = { hostileClients, latenciesMs: [], statuses: {}, hostileStatuses: {}, seconds: 0 };
      let answered = 0;
      const attack = hostileClients > 0 ? startAttack(server.base, hostileClients) : undefined;
      attack?.onStatus((status) => {
        phase.hostileStatuses[status] = (phase.hostileStatuses[status] ?? 0) + 1;
        answered++;
      });
      // Let the attack take the workers before measuring.
      if (attack) {
        await attack.ready;
        await sleep(2_000);
      }
      const started = nowMs();
      // Paced, so that the samples spread over the whole hostile set rather than its first file.
      const done = () =>
        phase.latenciesMs.length >= opts.samples && (hostileClients === 0 || answered >= cases);
      while (!done() && nowMs() - started < opts.maxPhaseSeconds * 1000) {
        const t0 = nowMs();
        const status = await small().catch(() => 0);
        phase.latenciesMs.push(nowMs() - t0);
        phase.statuses[status] = (phase.statuses[status] ?? 0) + 1;
        await sleep(Math.max(0, opts.paceMs - (nowMs() - t0)));
      }
      phase.seconds = (nowMs() - started) / 1000;
      await attack?.stop();
      result.phases.push(phase);
      log(
        `  ${hostileClients} hostile client(s): ${phase.latenciesMs.length} small parses, p50 ${fmtMs(percentile(phase.latenciesMs, 50))} ms, p99 ${fmtMs(percentile(phase.latenciesMs, 99))} ms`,
      );
    }
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return result;
}

export function hostileSection(r: HostileBenchResult): string[] {
  const unloaded = r.phases.find((p) => p.hostileClients === 0);
  if (!unloaded)
    return ['## Fairness under hostile uploads', '', `Not measured: ${r.error ?? 'no phases'}`, ''];
  const loaded = r.phases.filter((p) => p.hostileClients > 0);
  const shown = supportedPercentiles(Math.min(...r.phases.map((p) => p.latenciesMs.length)), [50, 99]);
  const statuses = (s: Record<string, number>) =>
    Object.entries(s)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ') || dash;
  const column = (p: Phase) =>
    p.hostileClients === 0
      ? 'unloaded'
      : `${p.hostileClients} hostile client${p.hostileClients === 1 ? '' : 's'}`;
  const rows = [
    ...shown.flatMap((q) => [
      [`small parse p${q} (ms)`, ...r.phases.map((p) => fmtMs(percentile(p.latenciesMs, q)))],
      [
        `p${q} against unloaded`,
        dash,
        ...loaded.map((p) =>
          fmtRatio(ratio(percentile(p.latenciesMs, q), percentile(unloaded.latenciesMs, q))),
        ),
      ],
    ]),
    ['small parse max (ms)', ...r.phases.map((p) => fmtMs(max(p.latenciesMs)))],
    ['small parses measured (n)', ...r.phases.map((p) => String(p.latenciesMs.length))],
    ['small parses by status', ...r.phases.map((p) => statuses(p.statuses))],
    ['hostile uploads answered, by status', dash, ...loaded.map((p) => statuses(p.hostileStatuses))],
  ];
  return [
    '## Fairness under hostile uploads',
    '',
    `One server (${r.workers} conversion workers, the default team concurrency). Team "small" sends a 2 KB HTML page, ` +
      'one request at a time, paced, and its latency (send to last byte) is measured with no other load, then while ' +
      `another team sends the ${r.cases} generated hostile files (scripts/hostile: bombs, deep nesting, huge declared ` +
      `sizes, repeated pictures, OCR floods, ...; \`markdown\` and \`html\`, a ${hostileTimeoutMs / 1000} s timeout) ` +
      'in a loop, from one client and from as many clients as there are workers, until the whole set has been sent ' +
      'once. Goal: p99 within 3× of unloaded.',
    '',
    table(['', ...r.phases.map(column)], rows),
    '',
    ...(r.error ? [`Error: ${r.error}`, ''] : []),
  ];
}
