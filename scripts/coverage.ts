/**
 * Line coverage of src/ per folder over the whole suite: runs scripts/run-tests.ts (both passes,
 * or what its arguments choose) with NODE_V8_COVERAGE set, so that every process the tests start
 * (test files, servers, conversion workers, the CLI) records what it ran, then has c8 read those
 * records. Prints one row per folder of src/ and writes them as JSON for a later comparison.
 * Every process also loads coverage-preload.ts, so that one ended by SIGTERM still records.
 *
 * Usage: node scripts/coverage.ts [--out coverage.json] [--against earlier.json] [run-tests arguments]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);

function option(name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
}
const out = option('--out') ?? path.join(repoRoot, 'coverage/by-folder.json');
const against = option('--against');

interface Lines {
  covered: number;
  total: number;
}

/** The folder a source file counts under: src/<folder>, or src itself for its top-level files. */
function folderOf(file: string): string {
  const parts = path.relative(repoRoot, file).split(path.sep);
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const records = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-coverage-'));
const tests = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/run-tests.ts'), ...args], {
  cwd: repoRoot,
  stdio: 'inherit',
  env: {
    ...process.env,
    NODE_V8_COVERAGE: records,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${path.join(repoRoot, 'scripts/coverage-preload.ts')}`,
  },
});
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-coverage-report-'));
const c8 = spawnSync(
  process.execPath,
  [
    path.join(repoRoot, 'node_modules/c8/bin/c8.js'),
    'report',
    `--temp-directory=${records}`,
    `--report-dir=${reportDir}`,
    '--reporter=json-summary',
    '--all',
    '--src=src',
    '--include=src/**',
    '--exclude-after-remap=false',
  ],
  { cwd: repoRoot, stdio: 'inherit' },
);
if (c8.status !== 0) process.exit(c8.status ?? 1);

const summary = JSON.parse(fs.readFileSync(path.join(reportDir, 'coverage-summary.json'), 'utf8')) as Record<
  string,
  { lines: Lines }
>;
const byFolder: Record<string, Lines> = {};
for (const [file, { lines }] of Object.entries(summary)) {
  if (file === 'total') continue;
  const folder = folderOf(file);
  const sum = byFolder[folder] ?? { covered: 0, total: 0 };
  sum.covered += lines.covered;
  sum.total += lines.total;
  byFolder[folder] = sum;
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(byFolder, null, 2)}\n`);
fs.rmSync(records, { recursive: true, force: true });
fs.rmSync(reportDir, { recursive: true, force: true });

const earlier = against ? (JSON.parse(fs.readFileSync(against, 'utf8')) as Record<string, Lines>) : undefined;
const percent = (l: Lines | undefined) => (l && l.total > 0 ? ((100 * l.covered) / l.total).toFixed(1) : '–');
console.log(`\n| folder | lines | covered %${earlier ? ' | before % |' : ' |'}`);
console.log(`|---|---|---|${earlier ? '---|' : ''}`);
for (const folder of Object.keys(byFolder).sort()) {
  const now = byFolder[folder]!;
  console.log(
    `| ${folder} | ${now.total} | ${percent(now)}${earlier ? ` | ${percent(earlier[folder])} |` : ' |'}`,
  );
}
process.exit(tests.status ?? 1);
