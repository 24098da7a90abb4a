import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, scorerPath } from './corpus.ts';
import { dash, fmtMb, fmtMs, fmtRatio, fmtScore, table } from './format.ts';
import { type PdfTool, pdfTimedAs } from './peers/pdf.ts';
import { reapedChildrenCpuMs } from './proc.ts';
import { errorText, type FormatScore, type ScoreReport } from './quality.ts';
import { median, nowMs, ratio } from './stats.ts';

const execFileAsync = promisify(execFile);

/**
 * The PDF corpus (`<corpus>/pdf/<subset>/`), per subset, against pdftotext, pdf.js, anydoc and
 * (scanned pages) Tesseract, all in this run: the shared scorer per subset, the table scorer on
 * the tables subset, refusals and recoveries on the broken one, `maxPages` and pages per
 * second on the big one.
 */
const subsets = ['text', 'multicolumn', 'tables', 'scanned', 'cjk', 'broken', 'big'] as const;
const tableScorer = path.resolve(path.dirname(scorerPath), 'score-tables.mjs');

interface PdfCase {
  subset: string;
  name: string;
  file: string;
  bytes: Uint8Array;
  vectors: {
    expectError?: boolean;
    expectedTables?: string[];
    maxPages?: { maxPages: number; pages: number; mustInclude: string[]; mustNotInclude: string[] };
  };
  /** Whether the case has a reference with text (not only expected tables or an expected refusal). */
  hasText: boolean;
}

function findPdfCases(corpus: string): PdfCase[] {
  const cases: PdfCase[] = [];
  for (const subset of subsets) {
    const dir = path.join(corpus, 'pdf', subset);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.pdf')) continue;
      const file = path.join(dir, name);
      const vectorsFile = `${file}.vectors.json`;
      cases.push({
        subset,
        name,
        file,
        bytes: fs.readFileSync(file),
        vectors: fs.existsSync(vectorsFile) ? JSON.parse(fs.readFileSync(vectorsFile, 'utf8')) : {},
        hasText: fs.existsSync(`${file}.expected.md`) || fs.existsSync(`${file}.expected.txt`),
      });
    }
  }
  return cases;
}

interface CaseRun {
  ms?: number;
  chars?: number;
  error?: string;
}

export interface PdfToolRun {
  tool: PdfTool;
  outDir: string;
  runs: Map<string, CaseRun>;
  /** The shared scorer's summary per subset. */
  scores: Record<string, FormatScore>;
  /** Its text score per case (`<subset>/<name>`), for the broken subset's recovery count. */
  textScores: Map<string, number | null>;
  tables: number | null;
  maxPagesOk: boolean | null;
  /** The big book whole: in order, without its running heads (null: not converted). */
  wholeBookOk: boolean | null;
}

const key = (c: PdfCase) => `${c.subset}/${c.name}`;
const applies = (tool: PdfTool, c: PdfCase) => !tool.subsets || tool.subsets.includes(c.subset);

/**
 * A readable broken file counts as recovered when the text score of the output against its
 * reference reaches this (0-100): any output at all would count a page of garbage as recovery.
 */
const recoveredText = 50;

/**
 * The big book read whole (the test suite reads a 64-page sample of it, issue 32): passages of
 * its title pages, its preface and its last page, in that order, and none of the 350 copies of
 * the printer's slug atop its pages ("14773_01_1-174_r9jm.qxd 2/10/04 3:51 PM Page 15"), a
 * running header.
 */
const wholeBook = {
  name: 'pjs-freeculture-352p.pdf',
  inOrder: [
    'Rebuilding Freedoms Previously Presumed:',
    'care about the Internet, and whether you’re on Safire’s left or on his right',
    'Lessig clerked for Judge Richard Posner',
  ],
  runningHead: /r9jm\.qxd/,
};

function readsWholeBook(text: string): boolean {
  const at = wholeBook.inOrder.map((passage) => text.indexOf(passage));
  return at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!)) && !wholeBook.runningHead.test(text);
}

async function scoreSubsets(corpus: string, outDir: string, names: string[]): Promise<ScoreReport> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      scorerPath,
      '--dir',
      path.join(corpus, 'pdf'),
      '--outputs',
      outDir,
      '--formats',
      names.join(','),
      '--json',
    ],
    { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
  );
  return JSON.parse(stdout) as ScoreReport;
}

/** Mean of score-tables.mjs's `tables` over the cases that carry expected tables. */
async function scoreTables(cases: PdfCase[], outDir: string): Promise<number | null> {
  const values: number[] = [];
  for (const c of cases) {
    if (!c.vectors.expectedTables?.length) continue;
    const out = path.join(outDir, c.subset, `${c.name}.md`);
    if (!fs.existsSync(out)) {
      values.push(0);
      continue;
    }
    const { stdout } = await execFileAsync(
      process.execPath,
      [tableScorer, '--out', out, '--vectors', `${c.file}.vectors.json`, '--json'],
      { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
    );
    const tables = (JSON.parse(stdout) as { tables?: number | null }).tables;
    values.push(tables ?? 0);
  }
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

export async function runPdfBench(
  tools: readonly PdfTool[],
  corpus: string,
  outRoot: string,
  log: (line: string) => void,
): Promise<{ runs: PdfToolRun[]; cases: PdfCase[] }> {
  const cases = findPdfCases(corpus);
  const runs: PdfToolRun[] = tools.map((tool) => {
    const outDir = path.join(outRoot, tool.id, 'pdf');
    fs.rmSync(outDir, { recursive: true, force: true });
    return {
      tool,
      outDir,
      runs: new Map(),
      scores: {},
      textScores: new Map(),
      tables: null,
      maxPagesOk: null,
      wholeBookOk: null,
    };
  });
  for (const [i, c] of cases.entries()) {
    const line: string[] = [];
    for (const run of runs) {
      if (!applies(run.tool, c)) continue;
      const t0 = nowMs();
      try {
        const text = await run.tool.convert(c.file, c.bytes, {});
        const ms = nowMs() - t0;
        const out = path.join(run.outDir, c.subset, `${c.name}.md`);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        fs.writeFileSync(out, text);
        run.runs.set(key(c), { ms, chars: text.trim().length });
        if (c.subset === 'big' && c.name === wholeBook.name) run.wholeBookOk = readsWholeBook(text);
        // A case with a maxPages vector is converted again, stopping after its first pages.
        const v = c.vectors.maxPages;
        if (v && run.tool.maxPages) {
          const first = await run.tool.convert(c.file, c.bytes, { maxPages: v.maxPages });
          run.maxPagesOk =
            v.mustInclude.every((x) => first.includes(x)) &&
            v.mustNotInclude.every((x) => !first.includes(x));
        }
        line.push(`${run.tool.id} ${fmtMs(ms)}ms`);
      } catch (err) {
        run.runs.set(key(c), { error: errorText(err) });
        line.push(`${run.tool.id} error`);
      }
    }
    log(`  pdf [${i + 1}/${cases.length}] ${key(c)}: ${line.join(', ')}`);
  }
  for (const run of runs) {
    const names = subsets.filter((s) => cases.some((c) => c.subset === s && applies(run.tool, c)));
    if (names.length > 0) {
      const report = await scoreSubsets(corpus, run.outDir, names);
      run.scores = report.formats;
      for (const f of report.files) run.textScores.set(f.file, f.text);
    }
    if (names.includes('tables'))
      run.tables = await scoreTables(
        cases.filter((c) => c.subset === 'tables'),
        run.outDir,
      );
  }
  return { runs, cases };
}

// ------------------------------------------------------------------ throughput on the big PDF

/** One side of the throughput table: a command that converts the big PDF in a process of its own. */
interface ThroughputTool {
  id: string;
  label: string;
  /** Threads reading pages, as configured (the CPU / wall column shows what was used). */
  threads: string;
  /** The command line, converting the file `runs` times in one process. */
  command(runs: number): { command: string; args: string[]; env?: Record<string, string> };
  /** Whether one process can convert more than once (pdftotext is a process per document). */
  warm: boolean;
}

/** Medians over the rounds. */
interface FreshFigures {
  /** Spawn to exit: the runtime's start, module loading, the conversion, exit. */
  wallMs: number | null;
  /** User + system CPU of the whole process, all threads. */
  cpuMs: number | null;
  /** The conversion alone, timed inside the process after its modules loaded (Node tools). */
  convertMs: number | null;
  peakRssMb: number | null;
}

interface WarmFigures {
  /** A later conversion in a process that has converted the file before. */
  wallMs: number | null;
  cpuMs: number | null;
}

/**
 * Conversions of the file in one process for the warm figures: the second is `warm`, the
 * third onwards `settled` (V8 is still optimising the code a conversion runs over the first
 * few; a long-lived worker runs it settled).
 */
const WARM_RUNS = 5;

const ordinal = (n: number) => `${n}${n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`;

export interface Throughput {
  id: string;
  label: string;
  threads: string;
  pages: number;
  fresh: FreshFigures;
  warm: WarmFigures | null;
  /** The third to last of WARM_RUNS conversions in one process. */
  settled: WarmFigures | null;
  error?: string;
}

/** What convert-file.ts prints. */
export interface ChildReport {
  ms: number;
  cpuMs: number;
  laterMs: number[];
  laterCpuMs: number[];
  peakRssMb: number;
  ocrPages?: number;
  markdownSha256?: string;
}

/** Rounds of the throughput measurement: each tool runs once per round, the tools taking turns. */
const THROUGHPUT_ROUNDS = 5;

function throughputTools(file: string): ThroughputTool[] {
  const convertFile = path.join(repoRoot, 'bench/convert-file.ts');
  const fast = '{"parsers":[{"type":"pdf","mode":"fast"}]}';
  // Quire as a conversion worker runs it: the worker's heap limit, fast mode (text, no OCR).
  const quire = (runs: number) => ({
    command: process.execPath,
    args: ['--max-old-space-size=1536', convertFile, 'quire', file, 'pdf', fast, String(runs)],
  });
  const node = (tool: string) => (runs: number) => ({
    command: process.execPath,
    args: [convertFile, tool, file, 'pdf', '{}', String(runs)],
  });
  return [
    {
      id: 'quire',
      label: 'Quire (fast mode)',
      threads: '2 (`QUIRE_PDF_THREADS=2`: a helper from 60 pages)',
      command: (runs) => ({ ...quire(runs), env: { QUIRE_PDF_THREADS: '2' } }),
      warm: true,
    },
    {
      id: 'quire-1t',
      label: 'Quire (fast mode, one thread)',
      threads: '1 (`QUIRE_PDF_THREADS=1`)',
      command: (runs) => ({ ...quire(runs), env: { QUIRE_PDF_THREADS: '1' } }),
      warm: true,
    },
    {
      id: 'pdftotext',
      label: 'pdftotext',
      threads: '1',
      command: () => ({ command: 'pdftotext', args: ['-enc', 'UTF-8', file, '/dev/null'] }),
      warm: false,
    },
    { id: 'pdfjs', label: 'pdf.js text', threads: '1', command: node('pdfjs'), warm: true },
    { id: 'anydoc', label: 'anydoc', threads: 'its own (native)', command: node('anydoc'), warm: true },
  ];
}

/**
 * The whole book read on two threads must give, every run, the Markdown one thread gives: the
 * threads are a speed setting. The suite checks this on generated pages and a sample of the book;
 * the whole book, run after run, is this bench's.
 */
function assertSameOutput(two: Set<string> | undefined, one: Set<string> | undefined): void {
  if (!two?.size || !one?.size) return;
  const all = new Set([...two, ...one]);
  if (all.size !== 1)
    throw new Error(
      `QUIRE_PDF_THREADS=2 and =1 gave ${all.size} different Markdown outputs for the same PDF: the threads changed the output`,
    );
}

/** One process, timed from spawn to exit, with its whole CPU time and what it reports of itself. */
export async function timedProcess(spec: ReturnType<ThroughputTool['command']>) {
  const cpu0 = reapedChildrenCpuMs();
  const t0 = nowMs();
  const { stdout } = await execFileAsync(spec.command, spec.args, {
    env: { ...process.env, ...spec.env },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 600_000,
  });
  const wallMs = nowMs() - t0;
  const cpu1 = reapedChildrenCpuMs();
  const reported = /\{"ms".*\}/.exec(stdout);
  return {
    wallMs,
    cpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
    report: reported ? (JSON.parse(reported[0]) as ChildReport) : null,
  };
}

/**
 * Each tool converts the big PDF in a new process that exits after one conversion (timed from
 * spawn to exit, like pdftotext, with the whole process's CPU), and the tools that can also
 * convert it twice in one process, the second time as a worker that has converted before. Once
 * per round, the tools taking turns; the medians count, since one run on a shared machine says
 * little. Nothing else runs as the bench's child meanwhile, which the CPU figure relies on.
 */
export async function measureThroughput(
  file: string,
  pages: number,
  only?: readonly string[],
  rounds = THROUGHPUT_ROUNDS,
): Promise<Throughput[]> {
  const tools = throughputTools(file).filter((t) => !only || only.includes(t.id));
  const samples = new Map(
    tools.map((t) => [
      t.id,
      {
        wall: [] as number[],
        cpu: [] as number[],
        convert: [] as number[],
        rss: [] as number[],
        warmWall: [] as number[],
        warmCpu: [] as number[],
        settledWall: [] as number[],
        settledCpu: [] as number[],
        error: '',
        markdown: new Set<string>(),
      },
    ]),
  );
  for (let round = 0; round < rounds; round++)
    for (const tool of tools) {
      const s = samples.get(tool.id)!;
      try {
        const fresh = await timedProcess(tool.command(1));
        s.wall.push(fresh.wallMs);
        if (fresh.cpuMs !== null) s.cpu.push(fresh.cpuMs);
        if (fresh.report) {
          s.convert.push(fresh.report.ms);
          s.rss.push(fresh.report.peakRssMb);
          if (fresh.report.markdownSha256) s.markdown.add(fresh.report.markdownSha256);
        }
        if (tool.warm) {
          const { report } = await timedProcess(tool.command(WARM_RUNS));
          if (report) {
            s.warmWall.push(...report.laterMs.slice(0, 1));
            s.warmCpu.push(...report.laterCpuMs.slice(0, 1));
            s.settledWall.push(...report.laterMs.slice(1));
            s.settledCpu.push(...report.laterCpuMs.slice(1));
          }
        }
      } catch (err) {
        s.error = errorText(err);
      }
    }
  assertSameOutput(samples.get('quire')?.markdown, samples.get('quire-1t')?.markdown);
  return tools.map((t) => {
    const s = samples.get(t.id)!;
    return {
      id: t.id,
      label: t.label,
      threads: t.threads,
      pages,
      fresh: {
        wallMs: median(s.wall),
        cpuMs: median(s.cpu),
        convertMs: median(s.convert),
        peakRssMb: median(s.rss),
      },
      warm: t.warm ? { wallMs: median(s.warmWall), cpuMs: median(s.warmCpu) } : null,
      settled: t.warm ? { wallMs: median(s.settledWall), cpuMs: median(s.settledCpu) } : null,
      ...(s.wall.length === 0 ? { error: s.error } : {}),
    };
  });
}

// ------------------------------------------------------------------ report

function subsetScore(run: PdfToolRun, subset: string, cases: PdfCase[]): string {
  if (!cases.some((c) => c.subset === subset && applies(run.tool, c))) return 'n/a';
  const s = run.scores[subset];
  return s ? fmtScore(s.overall) : dash;
}

function subsetMs(run: PdfToolRun, subset: string, cases: PdfCase[]): string {
  const ms = cases
    .filter((c) => c.subset === subset)
    .map((c) => run.runs.get(key(c))?.ms)
    .filter((x): x is number => x !== undefined);
  return ms.length === 0 ? 'n/a' : fmtMs(median(ms));
}

/**
 * Broken subset: readable files recovered (text score at least `recoveredText` against their
 * reference), refusals expected and given, and, apart, the readable files that have no reference
 * text to judge an output by.
 */
function brokenCell(run: PdfToolRun, cases: PdfCase[]): string {
  const broken = cases.filter((c) => c.subset === 'broken');
  const judged = broken.filter((c) => !c.vectors.expectError && c.hasText);
  const recovered = judged.filter((c) => (run.textScores.get(key(c)) ?? 0) >= recoveredText).length;
  const unjudged = broken.filter((c) => !c.vectors.expectError && !c.hasText);
  const gaveOutput = unjudged.filter((c) => (run.runs.get(key(c))?.chars ?? 0) > 0).length;
  const refusals = broken.filter((c) => c.vectors.expectError);
  const refused = refusals.filter((c) => run.runs.get(key(c))?.error !== undefined).length;
  return (
    `${recovered}/${judged.length} recovered, ${refused}/${refusals.length} refused; ` +
    `${gaveOutput}/${unjudged.length} unjudged gave output`
  );
}

const perPage = (ms: number | null, pages: number) => (ms === null || pages === 0 ? null : ms / pages);
const pagesPerSecond = (ms: number | null, pages: number) =>
  ms === null || ms === 0 ? dash : (pages / (ms / 1000)).toFixed(0);
const cpuShare = (cpu: number | null, wall: number | null) =>
  cpu === null || wall === null || wall === 0 ? dash : (cpu / wall).toFixed(2);

function throughputTables(throughput: Throughput[]): string[] {
  const pdftotext = throughput.find((t) => t.id === 'pdftotext');
  const base = pdftotext?.fresh;
  const pages = throughput[0]?.pages ?? 0;
  const freshRows = throughput.map((t) => {
    const f = t.fresh;
    if (f.wallMs === null) return [t.label, t.threads, `failed: ${t.error?.slice(0, 120) ?? ''}`];
    return [
      t.label,
      t.threads,
      fmtMs(f.wallMs),
      pagesPerSecond(f.wallMs, pages),
      fmtMs(f.cpuMs),
      fmtMs(perPage(f.cpuMs, pages)),
      cpuShare(f.cpuMs, f.wallMs),
      t.id === 'pdftotext' ? 'n/a' : fmtMs(f.convertMs),
      t.id === 'pdftotext' ? dash : fmtMb(f.peakRssMb === null ? null : f.peakRssMb * 1024),
      fmtRatio(ratio(f.wallMs, base?.wallMs)),
      fmtRatio(ratio(f.cpuMs, base?.cpuMs)),
    ];
  });
  const warmRows = throughput.flatMap((t) => {
    const measured: [string, WarmFigures | null][] = [
      ['second', t.warm],
      [`3rd to ${ordinal(WARM_RUNS)}`, t.settled],
    ];
    return measured.flatMap(([which, w]) =>
      w
        ? [
            [
              t.label,
              t.threads,
              which,
              fmtMs(w.wallMs),
              pagesPerSecond(w.wallMs, pages),
              fmtMs(perPage(w.cpuMs, pages)),
              cpuShare(w.cpuMs, w.wallMs),
              fmtRatio(ratio(w.wallMs, base?.wallMs)),
              fmtRatio(ratio(w.cpuMs, base?.cpuMs)),
            ],
          ]
        : [],
    );
  });
  return [
    `Text throughput on the big PDF (${pages} pages, whole document). Medians of ${THROUGHPUT_ROUNDS} rounds, the ` +
      'tools taking turns. CPU is user + system time of the whole process, every thread included (for a fresh ' +
      'process, its rusage as the kernel adds it to the bench’s reaped children, in 10 ms steps; for a warm ' +
      'conversion, `process.cpuUsage()` around it); CPU / wall above 1 means more than one core was busy. Quire ' +
      'runs as a conversion worker does (its heap limit, fast mode: text layer, no OCR); "one thread" sets ' +
      '`QUIRE_PDF_THREADS=1`, which reads every page on the main thread and starts no helper (the default on ' +
      'machines of fewer than 4 cores); the other row sets `QUIRE_PDF_THREADS=2`. Ratios are ' +
      'tool ÷ pdftotext: below 1× means faster or cheaper than pdftotext.',
    '',
    'A fresh process converts the file once and exits, timed from spawn to exit like pdftotext: the runtime’s ' +
      'start, module loading (Quire’s pipeline, pdf.js), the conversion and exit; "conversion alone" is the same ' +
      'conversion timed inside the process once its modules have loaded. Each Node process loads only its own ' +
      'tool; pdftotext writes to /dev/null, the Node tools build their Markdown in memory. Peak RSS is the ' +
      'process’s own (VmHWM; not measured for pdftotext). On a busy machine the wall times stretch with the ' +
      'load and the CPU times much less: compare those first.',
    '',
    table(
      [
        'tool',
        'threads reading pages',
        'wall ms, spawn to exit',
        'pages/s',
        'CPU ms',
        'CPU ms/page',
        'CPU / wall',
        'conversion alone ms (after module load)',
        'peak RSS MB',
        'wall ÷ pdftotext wall (both whole processes)',
        'CPU ÷ pdftotext CPU (both whole processes)',
      ],
      freshRows,
    ),
    '',
    `Warm: the second conversion in a process that has converted the file before (a conversion worker that has ` +
      `worked before), and the median of the 3rd to ${ordinal(WARM_RUNS)} (V8 still optimises the code a ` +
      'conversion runs over the first few; a long-lived worker runs it settled): no process or module start. ' +
      'pdftotext has no such mode, so the ratios set a warm conversion against pdftotext’s whole process, start ' +
      'included.',
    '',
    table(
      [
        'tool',
        'threads reading pages',
        'conversion in the process',
        'wall ms',
        'pages/s',
        'CPU ms/page',
        'CPU / wall',
        'wall ÷ pdftotext wall (tool warm, in-process; pdftotext whole process)',
        'CPU ÷ pdftotext CPU (same)',
      ],
      warmRows,
    ),
    '',
  ];
}

export function pdfSection(
  result: { runs: PdfToolRun[]; cases: PdfCase[] },
  throughput: Throughput[],
): string[] {
  const { runs, cases } = result;
  const present = subsets.filter((s) => cases.some((c) => c.subset === s));
  const rows = present.map((subset) => [
    subset,
    String(cases.filter((c) => c.subset === subset).length),
    ...runs.map((r) => subsetScore(r, subset, cases)),
    ...runs.map((r) => subsetMs(r, subset, cases)),
  ]);
  rows.push(['tables (table scorer)', '', ...runs.map((r) => fmtScore(r.tables)), ...runs.map(() => '')]);
  rows.push(['broken (recovery)', '', ...runs.map((r) => brokenCell(r, cases)), ...runs.map(() => '')]);
  rows.push([
    'big: maxPages 10 honoured',
    '',
    ...runs.map((r) =>
      r.tool.maxPages ? (r.maxPagesOk === null ? dash : r.maxPagesOk ? 'yes' : 'no') : 'n/a',
    ),
    ...runs.map(() => ''),
  ]);
  rows.push([
    'big: whole, in order, no running heads',
    '',
    ...runs.map((r) => (r.wholeBookOk === null ? dash : r.wholeBookOk ? 'yes' : 'no')),
    ...runs.map(() => ''),
  ]);
  // Plain-text tools cannot score on headings or tables: text and order tell reading apart from structure.
  const metrics = ['text', 'order', 'headings', 'lists', 'tables'] as const;
  const metricRows = present.flatMap((subset) =>
    runs
      .filter((r) => cases.some((c) => c.subset === subset && applies(r.tool, c)))
      .map((r) => {
        const s = r.scores[subset];
        return [subset, r.tool.label, fmtScore(s?.overall), ...metrics.map((m) => fmtScore(s?.[m]))];
      }),
  );
  const failures = runs.flatMap((r) =>
    [...r.runs.entries()]
      .filter(([k, v]) => v.error && !cases.find((c) => key(c) === k)?.vectors.expectError)
      .map(([k, v]) => `- ${r.tool.label}, \`${k}\`: ${v.error!.replace(/\s+/g, ' ').slice(0, 160)}`),
  );
  const broken = cases.filter((c) => c.subset === 'broken');
  const unjudged = broken.filter((c) => !c.vectors.expectError && !c.hasText).length;
  return [
    '## PDF',
    '',
    'Per subset of `pdf/` in the corpus: the shared scorer’s `overall` (text-only references score text and order; ' +
      'expected refusals count as 0 there and are judged in the broken row instead) and the median ms per document, ' +
      'one run each: the in-process tools in this long-running bench process, the others a process per document, ' +
      'its start included (the headers say which). The table row is `score-tables.mjs` (structure: cell F1 with ' +
      'neighbours) averaged over the cases with expected tables. The big PDF is scored whole; the tools that can ' +
      'stop early convert it again with `maxPages` 10, and the maxPages row says whether exactly the first 10 pages ' +
      'came out; the row below it, whether the whole book came out with passages of its title pages, preface and ' +
      'last page in that order and none of the printer’s slug atop each page (a running header).',
    '',
    `Broken row: a readable file counts as recovered when its output's text score against the reference is at ` +
      `least ${recoveredText}, for every tool alike (the references of this subset are pdftotext's own output, ` +
      `which favours pdftotext); "refused" counts expected refusals that were refused; ${unjudged} readable files ` +
      'have no reference text (pdftotext got none out of them), so for those the row only says how many gave any ' +
      'output, unjudged.',
    '',
    table(
      [
        'subset',
        'cases',
        ...runs.map((r) => `${r.tool.label} score`),
        ...runs.map((r) => `${r.tool.label} ms/doc (${pdfTimedAs(r.tool)})`),
      ],
      rows,
    ),
    '',
    'Scores by metric (pdftotext, pdf.js text and Tesseract write plain text, so headings, lists and tables score 0 ' +
      'for them where the reference has any; text and order show how well they read):',
    '',
    table(['subset', 'tool', 'overall', ...metrics], metricRows),
    '',
    'How each tool ran:',
    '',
    ...runs.map(
      (r) =>
        `- ${r.tool.label}: ${r.tool.how}${r.tool.subsets ? ` (subsets: ${r.tool.subsets.join(', ')})` : ''}; ` +
        `ms/doc ${pdfTimedAs(r.tool)}${r.tool.runsIn === 'this process' ? ' (no warm-up: the first documents pay for the JIT)' : ''}.`,
    ),
    '',
    ...throughputTables(throughput),
    ...(failures.length > 0 ? ['Unexpected failures:', '', ...failures, ''] : []),
  ];
}
