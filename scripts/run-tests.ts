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
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suiteCompileCache } from '../test/helpers/test-env.ts';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

interface Pass {
  name: 'embedded' | 'cluster';
  env: Record<string, string>;
  files: string[];
}

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

/** The counts in a TAP report's closing comments. */
function readTapCounts(tap: string): Counts {
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
  return {
    passed: count('pass'),
    // A cancelled test (its file's process ended, or it ran past its timeout) did not pass.
    failed: count('fail') + count('cancelled'),
    skipped: count('skipped') + count('todo'),
  };
}

/**
 * How long a pass may print nothing before it counts as hung: a test file that leaves a handle
 * open (a server, a socket, a timer) never exits, and node's runner waits for it for ever. No
 * test may take past --test-timeout (2 minutes); the longest hook, the soak's, takes under one.
 */
const silentLimitMs = 10 * 60_000;

/**
 * One pass of node's test runner: its spec report to our output, its TAP report counted.
 *
 * Without --test-force-exit: with it and more than one file at a time, a file's process exits
 * while its last results are still on their way to the runner, which then counts fewer tests
 * than ran and says nothing (nodejs/node#64833; here a fixture file lost 30 of its 88 tests). So
 * each test file closes what it opened, and a pass that goes silent is ended and fails.
 */
function runPass(pass: Pass): Promise<Counts & { code: number }> {
  const tapFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-tests-')), 'report.tap');
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-concurrency=2',
      // A bound for a hung test on a loaded machine; no test is written to take near it.
      '--test-timeout=120000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      ...pass.files,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { NODE_COMPILE_CACHE: suiteCompileCache, ...process.env, ...pass.env },
      // Its own process group, so that a hung pass is ended with every process it started.
      detached: true,
    },
  );
  let hung = false;
  let silence: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(silence);
    silence = setTimeout(() => {
      hung = true;
      console.error(
        `\n# ${pass.name} pass: nothing reported for ${silentLimitMs / 60_000} minutes: a test file did not exit (a handle left open?); ending the pass`,
      );
      process.kill(-child.pid!, 'SIGKILL');
    }, silentLimitMs);
  };
  watch();
  // Its own group hears no Ctrl-C from the terminal: pass it on.
  const forward = (signal: NodeJS.Signals) => process.kill(-child.pid!, signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  child.stdout!.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    watch();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(silence);
      process.off('SIGINT', forward).off('SIGTERM', forward);
      const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
      fs.rmSync(path.dirname(tapFile), { recursive: true, force: true });
      const counts = readTapCounts(tap);
      // A runner that died without a report failed, whatever it counted.
      const failedRun = hung || code !== 0 || signal !== null;
      resolve({
        ...counts,
        failed: counts.failed + (failedRun && counts.failed === 0 ? 1 : 0),
        code: code ?? 1,
      });
    });
  });
}

const total: Counts = { passed: 0, failed: 0, skipped: 0 };
for (const pass of passes) {
  if (only && pass.name !== only) continue;
  if (pass.files.length === 0) continue;
  console.log(`\n# ${pass.name} pass: ${pass.files.join(' ')}\n`);
  const counts = await runPass(pass);
  console.log(
    `\n# ${pass.name} pass: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
  );
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
