/**
 * Runs the suite's two passes and ends with one line over both that CI reads:
 * `N passed, N failed, N skipped`.
 *
 *  1. every layer against the embedded mode: test/unit (modules in-process), test/http (the API
 *     built in the test's process, requests through Fastify's inject()) and test/e2e (real
 *     processes and sockets);
 *  2. test/e2e again with QUIRE_TEST_CLUSTER=1, where each server a test starts is a cluster (an
 *     api and a worker process on Redis and PostgreSQL): only there is the cluster's process
 *     boundary what runs, so only there does the second pass add anything.
 *
 * Usage: node scripts/run-tests.ts [--pass embedded|cluster] [file or glob ...]
 */
import fs from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { suiteCompileCache } from '../test/helpers/test-env.ts';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

interface Pass {
  name: 'embedded' | 'cluster';
  env: Record<string, string>;
  /** Globs or files, in the order their files start. */
  files: string[];
}

const repoRoot = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const passArg = args.indexOf('--pass');
const only = passArg >= 0 ? args.splice(passArg, 2)[1] : undefined;
if (only !== undefined && only !== 'embedded' && only !== 'cluster') {
  console.error(`--pass takes embedded or cluster, not ${only}`);
  process.exit(2);
}
const chosen = args;

const passes: Pass[] = [
  {
    name: 'embedded',
    env: {},
    files:
      chosen.length > 0
        ? chosen
        : ['test/unit/**/*.test.ts', 'test/http/**/*.test.ts', 'test/e2e/**/*.test.ts'],
  },
  {
    name: 'cluster',
    env: { QUIRE_TEST_CLUSTER: '1' },
    files: chosen.length > 0 ? chosen.filter((f) => f.startsWith('test/e2e')) : ['test/e2e/**/*.test.ts'],
  },
];

/**
 * The files of `patterns`, each pattern's in turn, by name within one. Tried the other way (the
 * e2e layer first, larger files first) the pass took no less time, and on a loaded machine the
 * browser-heavy files then ran side by side and starved each other past their timeouts.
 */
function startOrder(patterns: string[]): string[] {
  const seen = new Set<string>();
  const ordered: string[] = [];
  for (const pattern of patterns) {
    const files = fs
      .globSync(pattern, { cwd: repoRoot })
      .map((file) => path.resolve(repoRoot, file))
      .filter((file) => !seen.has(file))
      .sort();
    for (const file of files) {
      seen.add(file);
      ordered.push(file);
    }
  }
  return ordered;
}

/**
 * How long a pass may report nothing before it counts as hung: a test file that leaves a handle
 * open (a server, a socket, a timer) never exits, and node's runner waits for it for ever. No
 * test may take past the per-test timeout (2 minutes); the longest hook, the soak's, under one.
 */
const silentLimitMs = 10 * 60_000;

/**
 * One pass of node's test runner, its files in processes of their own, two at a time, its spec
 * report to our output.
 *
 * Without forceExit: with it and more than one file at a time, a file's process exits while its
 * last results are still on their way to the runner, which then counts fewer tests than ran and
 * says nothing (nodejs/node#64833; here a fixture file lost 30 of its 88 tests). So each test
 * file closes what it opened, and a pass that goes silent is ended and fails.
 */
async function runPass(pass: Pass): Promise<Counts> {
  const files = startOrder(pass.files);
  if (files.length === 0) throw new Error(`no test file matches ${pass.files.join(' ')}`);
  const stop = new AbortController();
  let hung = false;
  let silence: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(silence);
    silence = setTimeout(() => {
      hung = true;
      console.error(
        `\n# ${pass.name} pass: nothing reported for ${silentLimitMs / 60_000} minutes: a test file did not exit (a handle left open?); ending the pass`,
      );
      stop.abort();
    }, silentLimitMs);
  };
  watch();

  const stream = run({
    files,
    concurrency: 2,
    // A bound for a hung test on a loaded machine; no test is written to take near it.
    timeout: 120_000,
    signal: stop.signal,
    env: { NODE_COMPILE_CACHE: suiteCompileCache, ...process.env, ...pass.env },
  });
  let counts: Counts | undefined;
  const fileTimes: { file: string; ms: number }[] = [];
  stream.on('data', watch);
  stream.on('test:summary', (summary) => {
    // One summary per file, then the pass's own, the one without a file.
    if (summary.file !== undefined) {
      fileTimes.push({ file: path.relative(repoRoot, summary.file), ms: summary.duration_ms });
      return;
    }
    const { tests, passed, skipped, todo } = summary.counts;
    // Whatever did not pass and was not skipped failed: a cancelled test too (its file's process
    // ended, or it ran past its timeout).
    counts = { passed, failed: tests - passed - skipped - todo, skipped: skipped + todo };
  });
  await new Promise<void>((resolve, reject) => {
    stream.compose(spec).on('end', resolve).on('error', reject).pipe(process.stdout, { end: false });
  });
  clearTimeout(silence);
  printSlowest(pass.name, fileTimes);
  // A pass that ended without its summary, or was ended, failed whatever it counted.
  if (!counts) return { passed: 0, failed: 1, skipped: 0 };
  return hung && counts.failed === 0 ? { ...counts, failed: 1 } : counts;
}

/** The files that took longest, so the next person to speed up the suite starts with data. */
function printSlowest(passName: string, fileTimes: { file: string; ms: number }[]): void {
  const slowest = fileTimes.sort((a, b) => b.ms - a.ms).slice(0, 8);
  console.log(`\n# ${passName} pass: slowest files`);
  for (const { file, ms } of slowest) console.log(`#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
}

const total: Counts = { passed: 0, failed: 0, skipped: 0 };
for (const pass of passes) {
  if (only && pass.name !== only) continue;
  if (pass.files.length === 0) continue;
  console.log(`\n# ${pass.name} pass: ${pass.files.join(' ')}\n`);
  const started = performance.now();
  const counts = await runPass(pass);
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(
    `\n# ${pass.name} pass: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped in ${seconds} s`,
  );
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
