import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConvertChild, isFinding, type Outcome, type Upload } from './hostile/convert-child.ts';
import { type Mutated, mutate, Random } from './hostile/mutate.ts';

/**
 * A mutation fuzzer over the shared corpus: each case takes a corpus file, mutates it (bit flips,
 * edge bytes, truncation, splices from another file of the same format, edge numbers; half the
 * time inside its ZIP entry or OLE stream), and runs it as the server would (options validated,
 * detectFormat, the conversion worker's entry) in a child process with the workers' heap limit,
 * bounded in time. A crash (an error the server would answer 500 for), a hang (still converting
 * after the bound, twice) or a process that dies otherwise is a finding: its input is minimised
 * where practical and saved under test/fixtures/fuzz/, which test/e2e/fuzz.test.ts replays.
 *
 *   npm run fuzz -- [--seconds 300] [--seed 1] [--cases N] [--jobs 1] [--formats pdf,docx] [--no-save]
 *   npm run fuzz -- --seed 7 --case 8071      (one case of a run again, saved if it is a finding)
 */

const repoRoot = path.resolve(import.meta.dirname, '..');
export const fixturesDir = path.join(repoRoot, 'test/fixtures/fuzz');
const corpusRoot = path.resolve(process.env.QUIRE_CORPUS_DIR || path.join(repoRoot, '../shared/corpus'));
/** Corpus folders that are not formats of their own (web pages for main-content scoring). */
const skippedFolders = new Set(['maincontent', 'maincontent-modern']);
/** Bigger seeds make each case slow (big PDFs take seconds unmutated) and add little. */
const maxSeedBytes = 1_500_000;

/** Parse options a case is sent with: most outputs, both main-content modes; PDFs mostly without OCR. */
const optionSets: readonly Record<string, unknown>[] = [
  { formats: ['markdown'], parsers: [{ type: 'pdf', mode: 'fast' }] },
  {
    formats: ['markdown', 'html', 'links', 'images'],
    removeBase64Images: false,
    parsers: [{ type: 'pdf', mode: 'fast' }],
  },
  { formats: ['markdown', 'rawHtml'], onlyMainContent: false, parsers: [{ type: 'pdf', mode: 'fast' }] },
  { formats: ['markdown'], parsers: [{ type: 'pdf', mode: 'auto', maxPages: 2 }] },
];

export interface FuzzOptions {
  seed: number;
  /** Stop after this many seconds... */
  seconds?: number;
  /** ...or after this many cases (deterministic: the CI run uses it). */
  cases?: number;
  /** Only these cases of the run (to make a finding again, with the same seed and formats). */
  only?: readonly number[];
  /** Child processes converting at once. */
  jobs?: number;
  formats?: readonly string[];
  /** Per-case bound (ms of CPU time, all threads): past it, a case is a hang candidate. */
  timeMs?: number;
  /** Save findings under test/fixtures/fuzz. */
  save?: boolean;
  log?: (line: string) => void;
}

export interface Finding {
  kind: 'crash' | 'hang' | 'died';
  format: string;
  signature: string;
  detail: string;
  seedFile: string;
  caseIndex: number;
  steps: string[];
  bytes: number;
  /** Where the (minimised) input was saved. */
  saved?: string;
}

export interface FormatTally {
  seeds: number;
  cases: number;
  ok: number;
  refused: number;
  oom: number;
  findings: number;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  seconds: number;
  timeMs: number;
  byFormat: Record<string, FormatTally>;
  findings: Finding[];
  /** Mutants that used much memory (the server answers them RESOURCE_LIMIT): worth a look, not bugs. */
  oomSamples: string[];
}

interface Seed {
  format: string;
  name: string;
  bytes: Uint8Array;
}

/** A folder's case files, its subsets' (pdf/tables, ...) included, without the reference files beside them. */
function caseFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) =>
      e.isDirectory()
        ? caseFiles(path.join(folder, e.name))
        : /\.(md|txt|json)$/.test(e.name) || /^(SOURCES|README)/i.test(e.name)
          ? []
          : [path.join(folder, e.name)],
    );
}

function loadSeeds(formats?: readonly string[]): Map<string, Seed[]> {
  const byFormat = new Map<string, Seed[]>();
  for (const format of fs.readdirSync(corpusRoot).sort()) {
    const folder = path.join(corpusRoot, format);
    if (skippedFolders.has(format) || !fs.statSync(folder).isDirectory()) continue;
    if (formats && !formats.includes(format)) continue;
    const seeds = caseFiles(folder)
      .map((file) => ({ format, name: path.basename(file), bytes: fs.readFileSync(file) }))
      .filter((s) => s.bytes.length > 0 && s.bytes.length <= maxSeedBytes);
    if (seeds.length > 0) byFormat.set(format, seeds);
  }
  return byFormat;
}

/** Case `index` of run `seed`: its own PRNG, so any one case can be made again alone. */
function makeCase(seed: number, index: number, formats: readonly string[], seeds: Map<string, Seed[]>) {
  const rnd = new Random((Math.imul(seed, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  const format = formats[index % formats.length]!;
  const pool = seeds.get(format)!;
  const base = rnd.pick(pool);
  const donors = pool.filter((s) => s !== base).map((s) => s.bytes);
  const mutated: Mutated = mutate(base.bytes, rnd, donors);
  const options = rnd.pick(optionSets);
  return {
    format,
    base,
    mutated,
    upload: { bytes: mutated.bytes, filename: base.name, options } satisfies Upload,
  };
}

/** What makes two findings the same bug: the error with its numbers blanked, and where in src it was thrown. */
function signatureOf(outcome: Outcome): string {
  if (outcome.kind === 'crash') {
    const frame = /\(?(?:file:\/\/)?[^\s(]*\/(src\/[^\s):]+:\d+)/.exec(outcome.stack)?.[1] ?? 'no src frame';
    return `${outcome.error.replace(/\d+/g, 'N').slice(0, 160)} @ ${frame}`;
  }
  if (outcome.kind === 'died')
    return `died ${outcome.exit}: ${outcome.stderr.split('\n').find((l) => l.trim()) ?? ''}`;
  return outcome.kind;
}

function detailOf(outcome: Outcome, timeMs: number): string {
  if (outcome.kind === 'crash') return outcome.stack;
  if (outcome.kind === 'died') return outcome.stderr;
  return `past the bound of ${timeMs} ms of CPU time twice; the second run was stopped after ${Math.round(outcome.ms)} ms`;
}

/**
 * The smallest input found that still gives the same signature: the shortest prefix that does
 * (by bisection), then chunks removed while it still does, within `budget` runs.
 */
async function minimise(
  bytes: Uint8Array,
  reproduces: (candidate: Uint8Array) => Promise<boolean>,
  budget = 48,
): Promise<Uint8Array> {
  let best = bytes;
  let runs = 0;
  let lo = 1;
  let hi = best.length;
  while (lo < hi && runs < budget / 2) {
    const mid = (lo + hi) >> 1;
    runs++;
    if (await reproduces(best.subarray(0, mid))) hi = mid;
    else lo = mid + 1;
  }
  best = best.subarray(0, hi);
  for (let size = best.length >> 1; size >= 1 && runs < budget; size >>= 1) {
    for (let at = 0; at + size <= best.length && runs < budget; ) {
      const candidate = Buffer.concat([best.subarray(0, at), best.subarray(at + size)]);
      runs++;
      if (await reproduces(candidate)) best = candidate;
      else at += size;
    }
  }
  return best;
}

export interface FixtureMeta {
  filename: string;
  options: Record<string, unknown>;
  kind: Finding['kind'];
  signature: string;
  detail: string;
  found: string;
  /** Set by hand when the bug is known and not fixed yet: the test marks the replay as todo. */
  todo?: string;
}

function save(finding: Finding, upload: Upload, bytes: Uint8Array): string {
  fs.mkdirSync(fixturesDir, { recursive: true });
  const hash = createHash('sha1').update(bytes).digest('hex').slice(0, 10);
  const file = `${finding.format}-${finding.kind}-${hash}${path.extname(upload.filename)}`;
  fs.writeFileSync(path.join(fixturesDir, file), bytes);
  const meta: FixtureMeta = {
    filename: upload.filename,
    options: upload.options ?? {},
    kind: finding.kind,
    signature: finding.signature,
    detail: finding.detail.slice(0, 2000),
    found: `seed file ${finding.format}/${finding.seedFile}, case ${finding.caseIndex}: ${finding.steps.join('; ')}`,
  };
  fs.writeFileSync(path.join(fixturesDir, `${file}.json`), `${JSON.stringify(meta, null, 1)}\n`);
  return path.relative(repoRoot, path.join(fixturesDir, file));
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const log = opts.log ?? (() => {});
  // 10 s on each of the two threads a long PDF is read with.
  const timeMs = opts.timeMs ?? 20_000;
  const seeds = loadSeeds(opts.formats);
  const formats = [...seeds.keys()];
  if (formats.length === 0) throw new Error(`no corpus files under ${corpusRoot}`);
  const byFormat: Record<string, FormatTally> = Object.fromEntries(
    formats.map((f) => [
      f,
      { seeds: seeds.get(f)!.length, cases: 0, ok: 0, refused: 0, oom: 0, findings: 0 },
    ]),
  );
  const findings: Finding[] = [];
  const oomSamples: string[] = [];
  const known = new Set<string>();
  const started = performance.now();
  const deadline = opts.seconds === undefined ? Number.POSITIVE_INFINITY : started + opts.seconds * 1000;
  const limit = opts.only?.length ?? opts.cases ?? Number.POSITIVE_INFINITY;
  let next = 0;

  const job = async (): Promise<void> => {
    const child = new ConvertChild({ timeMs });
    try {
      while (next < limit && performance.now() < deadline) {
        const index = opts.only ? opts.only[next++]! : next++;
        const c = makeCase(opts.seed, index, formats, seeds);
        const tally = byFormat[c.format]!;
        tally.cases++;
        let outcome = await child.run(c.upload);
        // A hang is confirmed alone, in a fresh child: a second run past the bound is one.
        if (outcome.kind === 'hang') outcome = await runOnce(c.upload, timeMs);
        if (outcome.kind === 'ok') tally.ok++;
        else if (outcome.kind === 'refused') tally.refused++;
        else if (outcome.kind === 'oom') {
          tally.oom++;
          if (oomSamples.length < 20)
            oomSamples.push(`${c.format}/${c.base.name} case ${index} (${c.mutated.bytes.length} bytes)`);
        }
        if (opts.only)
          log(`case ${index}: ${c.format}/${c.base.name}, ${c.mutated.steps.join('; ')}: ${outcome.kind}`);
        if (!isFinding(outcome)) continue;
        const signature = signatureOf(outcome);
        const key = `${c.format} ${signature}`;
        tally.findings++;
        if (known.has(key)) continue;
        known.add(key);
        const finding: Finding = {
          kind: outcome.kind as Finding['kind'],
          format: c.format,
          signature,
          detail: detailOf(outcome, timeMs),
          seedFile: c.base.name,
          caseIndex: index,
          steps: c.mutated.steps,
          bytes: c.mutated.bytes.length,
        };
        log(`! ${finding.kind} in ${c.format} (case ${index}, ${c.base.name}): ${signature}`);
        if (opts.save !== false) {
          // Hangs cost the whole bound per attempt: only crashes are minimised.
          const small =
            finding.kind === 'hang'
              ? c.mutated.bytes
              : await minimise(
                  c.mutated.bytes,
                  async (b) => signatureOf(await child.run({ ...c.upload, bytes: b })) === signature,
                );
          finding.saved = save(finding, c.upload, small);
          log(`  saved ${finding.saved} (${small.length} of ${c.mutated.bytes.length} bytes)`);
        }
        findings.push(finding);
      }
    } finally {
      child.close();
    }
  };

  let lastLog = started;
  const progress = setInterval(() => {
    if (performance.now() - lastLog < 30_000) return;
    lastLog = performance.now();
    log(`  ${next} cases, ${findings.length} findings, ${Math.round((lastLog - started) / 1000)} s`);
  }, 5_000);
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.jobs ?? 1) }, job));
  } finally {
    clearInterval(progress);
  }
  const cases = Object.values(byFormat).reduce((n, t) => n + t.cases, 0);
  return {
    seed: opts.seed,
    cases,
    seconds: (performance.now() - started) / 1000,
    timeMs,
    byFormat,
    findings,
    oomSamples,
  };
}

/** The CPU-time bound of a replay: 10 s on each of the two threads a long PDF is read with. */
export const replayTimeMs = 20_000;

/** One upload in a child of its own. */
async function runOnce(upload: Upload, timeMs: number): Promise<Outcome> {
  const child = new ConvertChild({ timeMs });
  try {
    return await child.run(upload);
  } finally {
    child.close();
  }
}

/**
 * Replays one saved finding: what the server would do with it now, in `child` (one process
 * serving the replays one after another, as a server's worker serves its uploads; it is replaced
 * after one that ends it).
 */
export async function replayFixture(
  file: string,
  child: ConvertChild,
): Promise<{ meta: FixtureMeta; outcome: Outcome }> {
  const meta = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as FixtureMeta;
  const upload = { bytes: fs.readFileSync(file), filename: meta.filename, options: meta.options };
  const outcome = await child.run(upload);
  // As in a run, a hang counts only when it is one alone, in a fresh child.
  return { meta, outcome: outcome.kind === 'hang' ? await runOnce(upload, replayTimeMs) : outcome };
}

/** The saved findings (inputs with their `.json`), for the regression test. */
export function fixtures(): string[] {
  if (!fs.existsSync(fixturesDir)) return [];
  return fs
    .readdirSync(fixturesDir)
    .filter((f) => !f.endsWith('.json') && fs.existsSync(path.join(fixturesDir, `${f}.json`)))
    .sort()
    .map((f) => path.join(fixturesDir, f));
}

/** The report as Markdown, for bench/RESULTS.md. */
export function fuzzSection(r: FuzzReport): string {
  const rows = Object.entries(r.byFormat).map(
    ([f, t]) => `| ${f} | ${t.seeds} | ${t.cases} | ${t.ok} | ${t.refused} | ${t.oom} | ${t.findings} |`,
  );
  const found =
    r.findings.length === 0
      ? ['No crash, hang or dying process.']
      : r.findings.map(
          (f) => `- ${f.kind} in ${f.format}: \`${f.signature}\`${f.saved ? ` (${f.saved})` : ''}`,
        );
  return [
    '## Fuzzing',
    '',
    `\`npm run fuzz\` (scripts/fuzz.ts), seed ${r.seed}: ${r.cases} mutants of the corpus in ${r.seconds.toFixed(0)} s. ` +
      'Each is a corpus file with one to three mutations (bit flips, edge bytes, truncation, a chunk spliced from another ' +
      'file of the same format, an edge number written over a decimal one), half the time inside one ZIP entry or OLE ' +
      'stream, converted as the server converts it (options validated, detectFormat, the conversion worker entry) in a ' +
      `child process with the workers' heap limit, bounded at ${r.timeMs / 1000} s of CPU time (a hang ` +
      'is past it twice; CPU time, so that a busy machine does not make one). Answered: a 200; refused: a documented 4xx; out of memory: over the heap or the resident-memory watchdog, ' +
      'which the server answers RESOURCE_LIMIT; findings: a 500, a hang or a process that died otherwise.',
    '',
    '| format | seed files | mutants | answered | refused | out of memory | findings |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...found,
    '',
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '300' },
      seed: { type: 'string', default: String(Date.now() % 100_000) },
      cases: { type: 'string' },
      jobs: { type: 'string', default: '1' },
      formats: { type: 'string' },
      'time-ms': { type: 'string', default: '10000' },
      'no-save': { type: 'boolean', default: false },
      /** Make one case of the run again and print what it does (with --seed and --formats). */
      case: { type: 'string' },
    },
  });
  const report = await runFuzz({
    seed: Number(values.seed),
    seconds: values.cases ? undefined : Number(values.seconds),
    cases: values.cases ? Number(values.cases) : undefined,
    only: values.case === undefined ? undefined : [Number(values.case)],
    jobs: Number(values.jobs),
    formats: values.formats?.split(','),
    timeMs: Number(values['time-ms']),
    save: !values['no-save'],
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(fuzzSection(report));
  process.exitCode = report.findings.length > 0 ? 1 : 0;
}
