import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, scorerPath } from './corpus.ts';
import { dash, fmtMb, fmtMs, fmtRatio, fmtScore, table } from './format.ts';
import type { PdfTool } from './peers/pdf.ts';
import { errorText } from './quality.ts';
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
  scores: Record<string, { overall: number | null; n: number }>;
  tables: number | null;
  maxPagesOk: boolean | null;
}

const key = (c: PdfCase) => `${c.subset}/${c.name}`;
const applies = (tool: PdfTool, c: PdfCase) => !tool.subsets || tool.subsets.includes(c.subset);

async function scoreSubsets(corpus: string, outDir: string, names: string[]) {
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
  return JSON.parse(stdout) as { formats: Record<string, { overall: number | null; n: number }> };
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
    return { tool, outDir, runs: new Map(), scores: {}, tables: null, maxPagesOk: null };
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
    if (names.length > 0) run.scores = (await scoreSubsets(corpus, run.outDir, names)).formats;
    if (names.includes('tables'))
      run.tables = await scoreTables(
        cases.filter((c) => c.subset === 'tables'),
        run.outDir,
      );
  }
  return { runs, cases };
}

/** pages/s of a full text pass over the big PDF, and the process's peak RSS. */
export interface Throughput {
  id: string;
  label: string;
  pages: number;
  /** Median ms of the first conversion in a fresh process. */
  ms: number | null;
  /** Median ms of a later conversion in the same process (null: one process per document). */
  laterMs: number | null;
  peakRssMb: number | null;
  error?: string;
}

/** Rounds of the throughput measurement: each tool runs once per round, the tools taking turns. */
const THROUGHPUT_ROUNDS = 3;

/**
 * Each tool converts the big PDF once per round, in turns, and the median counts: one run on a
 * shared machine says little. Quire and anydoc convert it twice per process, so the table has
 * both a fresh process (module loading, JIT warm-up, pdf.js started: what the first request to a
 * new conversion worker pays) and a worker that has converted before; pdftotext is a process per
 * document by design.
 */
export async function measureThroughput(file: string, pages: number): Promise<Throughput[]> {
  const convertFile = path.join(repoRoot, 'bench/convert-file.ts');
  const tools: { id: string; label: string; command: string; args: string[] }[] = [
    {
      id: 'quire',
      label: 'Quire (fast mode)',
      command: process.execPath,
      args: [
        '--max-old-space-size=1536',
        convertFile,
        'quire',
        file,
        'pdf',
        '{"parsers":[{"type":"pdf","mode":"fast"}]}',
        '2',
      ],
    },
    { id: 'pdftotext', label: 'pdftotext', command: 'pdftotext', args: ['-enc', 'UTF-8', file, '/dev/null'] },
    {
      id: 'anydoc',
      label: 'anydoc',
      command: process.execPath,
      args: [convertFile, 'anydoc', file, 'pdf', '{}', '2'],
    },
  ];
  const samples = new Map(
    tools.map((t) => [t.id, { ms: [] as number[], later: [] as number[], rss: [] as number[], error: '' }]),
  );
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++)
    for (const tool of tools) {
      const s = samples.get(tool.id)!;
      try {
        const t0 = nowMs();
        const { stdout } = await execFileAsync(tool.command, tool.args, {
          maxBuffer: 256 * 1024 * 1024,
          timeout: 600_000,
        });
        const ms = nowMs() - t0;
        const reported = /\{"ms".*\}/.exec(stdout);
        const parsed = reported
          ? (JSON.parse(reported[0]) as { ms: number; laterMs: number[]; peakRssMb: number })
          : undefined;
        s.ms.push(parsed?.ms ?? ms);
        if (parsed) s.later.push(...parsed.laterMs);
        if (parsed) s.rss.push(parsed.peakRssMb);
      } catch (err) {
        s.error = errorText(err);
      }
    }
  return tools.map((t) => {
    const s = samples.get(t.id)!;
    return {
      id: t.id,
      label: t.label,
      pages,
      ms: median(s.ms),
      laterMs: median(s.later),
      peakRssMb: median(s.rss),
      ...(s.ms.length === 0 ? { error: s.error } : {}),
    };
  });
}

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

/** Broken subset: files with a text reference recovered (non-empty output); refusals expected and given. */
function brokenCell(run: PdfToolRun, cases: PdfCase[]): string {
  const broken = cases.filter((c) => c.subset === 'broken');
  const readable = broken.filter((c) => !c.vectors.expectError);
  const recovered = readable.filter((c) => (run.runs.get(key(c))?.chars ?? 0) > 0).length;
  const refusals = broken.filter((c) => c.vectors.expectError);
  const refused = refusals.filter((c) => run.runs.get(key(c))?.error !== undefined).length;
  return `${recovered}/${readable.length} recovered, ${refused}/${refusals.length} refused`;
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
  const pdftotextRun = throughput.find((t) => t.id === 'pdftotext');
  const perSecond = (t: Throughput, ms: number | null) =>
    ms === null ? dash : (t.pages / (ms / 1000)).toFixed(0);
  const tRows = throughput.map((t) => [
    t.label,
    t.ms === null ? `failed: ${t.error?.slice(0, 120) ?? ''}` : perSecond(t, t.ms),
    t.ms === null ? dash : fmtMs(t.ms),
    t.id === 'pdftotext' ? 'n/a' : perSecond(t, t.laterMs),
    t.laterMs === null ? dash : fmtMs(t.laterMs),
    t.peakRssMb === null ? dash : fmtMb(t.peakRssMb * 1024),
    t.ms !== null && pdftotextRun?.ms ? fmtRatio(ratio(pdftotextRun.ms, t.ms)) : dash,
    t.laterMs !== null && pdftotextRun?.ms ? fmtRatio(ratio(pdftotextRun.ms, t.laterMs)) : dash,
  ]);
  const failures = runs.flatMap((r) =>
    [...r.runs.entries()]
      .filter(([k, v]) => v.error && !cases.find((c) => key(c) === k)?.vectors.expectError)
      .map(([k, v]) => `- ${r.tool.label}, \`${k}\`: ${v.error!.replace(/\s+/g, ' ').slice(0, 160)}`),
  );
  return [
    '## PDF',
    '',
    'Per subset of `pdf/` in the corpus: the shared scorer’s `overall` (text-only references score text and order; ' +
      'expected refusals count as 0 there and are judged in the broken row instead) and the median ms per document. ' +
      'The table row is `score-tables.mjs` (structure: cell F1 with neighbours) averaged over the cases with expected ' +
      'tables. The big PDF is scored whole; the tools that can stop early convert it again with `maxPages` 10, ' +
      'and the maxPages row says whether exactly the first 10 pages came out.',
    '',
    table(
      [
        'subset',
        'cases',
        ...runs.map((r) => `${r.tool.label} score`),
        ...runs.map((r) => `${r.tool.label} ms/doc`),
      ],
      rows,
    ),
    '',
    'How each tool ran:',
    '',
    ...runs.map(
      (r) =>
        `- ${r.tool.label}: ${r.tool.how}${r.tool.subsets ? ` (subsets: ${r.tool.subsets.join(', ')})` : ''}.`,
    ),
    '',
    `Text throughput on the big PDF (${throughput[0]?.pages ?? '?'} pages, whole document; Quire's pipeline with the worker heap limit, fast mode). ` +
      `Medians of ${THROUGHPUT_ROUNDS} rounds, the tools taking turns; "fresh" is the first conversion in a new process, ` +
      '"warm" a second one in the same process (a conversion worker that has converted before); peak RSS is that of the first conversion:',
    '',
    table(
      [
        'tool',
        'pages/s fresh',
        'ms fresh',
        'pages/s warm',
        'ms warm',
        'peak RSS MB',
        'pdftotext ms / tool ms, fresh',
        'pdftotext ms / tool ms, warm',
      ],
      tRows,
    ),
    '',
    ...(failures.length > 0 ? ['Unexpected failures:', '', ...failures, ''] : []),
  ];
}
