import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { type Case, findCases, scorerPath } from './corpus.ts';
import { dash, fmtMs, fmtRatio, fmtScore, table } from './format.ts';
import { defuddle } from './peers/defuddle.ts';
import { readability, readabilityVersions } from './peers/readability.ts';
import { comparedTimes, lessStartUp, pandoc, type StartUp, startUpNote, type Tool } from './peers.ts';
import { howTimed, runQuality, type ScoreReport, score, type ToolRun } from './quality.ts';
import { median, ratio } from './stats.ts';

const execFileAsync = promisify(execFile);

// The main-content section, on two sets of real web pages, Quire with its default
// `onlyMainContent` against Mozilla Readability and defuddle, all in the same run:
// - corpus/maincontent (145 pages), judged by must-include and must-not-include snippets, with
//   pandoc on the whole page as the keep-everything baseline;
// - corpus/maincontent-modern (288 pages fetched in 2025-2026), judged by token precision and
//   recall against a full reference text (score-maincontent.mjs), overall and per page type.

/** The old set's folder, which is also the scorer's format name for its cases. */
export const oldFolder = 'maincontent';
export const modernFolder = 'maincontent-modern';
const modernScorer = path.resolve(path.dirname(scorerPath), 'score-maincontent.mjs');

/**
 * Both sets are hundreds of pages and defuddle takes ~100 ms a page, so each page gets one
 * untimed run and three timed ones, every tool alike: by then the JIT is warm from the pages
 * before it, which is what the long warm-up of the corpus section is for.
 */
const pageTiming = { runs: 3, warmup: 'once' } as const;

/** A converter that reads HTML, run on main-content pages (the old set scores them as their own "format"). */
export function onPages(tool: Tool, format: string, label = tool.label, how = tool.how): Tool {
  return {
    ...tool,
    ...pageTiming,
    label,
    how,
    supports: (f) => f === format,
    convert: (bytes, _format, filename) => tool.convert(bytes, 'html', filename),
  };
}

export const quireHow = 'in-process `parseDocument`, default options (`onlyMainContent` on)';

interface OldResult {
  tool: Tool;
  report: ScoreReport | null;
  /** Median over the pages of each page's median wall time. */
  ms: number | null;
  failed: number;
}

/** The modern set's scorer output for one tool (score-maincontent.mjs --json; fractions 0-1). */
export interface ModernSummary {
  pages: number;
  failed: number;
  empty: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  f1CI95: [number, number] | null;
  shareF1ge90: number | null;
  perPage: { page: string; failed: boolean; p: number; r: number; f1: number }[];
}

interface ModernResult {
  tool: Tool;
  summary: ModernSummary | null;
  ms: number | null;
}

export interface MainContentResult {
  old: OldResult[];
  modern: ModernResult[];
  /** Page type per case name (`<id>.html`), from the set's pages.tsv. */
  types: Map<string, string>;
}

const medianOfRun = (run: ToolRun) => median(Object.values(run.timings));

/** The modern set's pages, unzipped up front so that no timing includes it. */
export function modernCases(dir: string): Case[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html.gz'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.gz'.length);
      const file = path.join(dir, f);
      return {
        format: 'html',
        name,
        key: `html/${name}`,
        file,
        bytes: zlib.gunzipSync(fs.readFileSync(file)),
      };
    });
}

export function pageTypes(dir: string): Map<string, string> {
  const types = new Map<string, string>();
  const tsv = path.join(dir, 'pages.tsv');
  if (!fs.existsSync(tsv)) return types;
  for (const line of fs.readFileSync(tsv, 'utf8').split('\n')) {
    const [id, type] = line.split('\t');
    if (id && type) types.set(`${id}.html`, type);
  }
  return types;
}

export async function scoreModern(dir: string, runs: ToolRun[]): Promise<Record<string, ModernSummary>> {
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-mc-')), 'scores.json');
  try {
    await execFileAsync(
      process.execPath,
      [modernScorer, '--dir', dir, ...runs.flatMap((r) => ['--outputs', r.outDir]), '--json', json],
      { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
    );
    return JSON.parse(fs.readFileSync(json, 'utf8')) as Record<string, ModernSummary>;
  } finally {
    fs.rmSync(path.dirname(json), { recursive: true, force: true });
  }
}

export async function runMainContent(
  quire: Tool,
  corpus: string,
  outRoot: string,
  log: (line: string) => void,
): Promise<MainContentResult> {
  const old: OldResult[] = [];
  const oldCases = findCases(corpus, [oldFolder]);
  if (oldCases.length === 0) throw new Error(`no pages in ${path.join(corpus, oldFolder)}`);
  log(`main content, ${oldFolder}: ${oldCases.length} pages; Quire, Readability, defuddle, pandoc`);
  const oldTools = [
    onPages(quire, oldFolder, 'Quire', quireHow),
    onPages(readability, oldFolder),
    onPages(defuddle, oldFolder),
    onPages(pandoc, oldFolder, 'pandoc (whole page)'),
  ];
  for (const run of await runQuality(oldTools, oldCases, path.join(outRoot, oldFolder))) {
    old.push({
      tool: run.tool,
      report: await score(corpus, run),
      ms: medianOfRun(run),
      failed: Object.keys(run.errors).length,
    });
  }

  const modern: ModernResult[] = [];
  const dir = path.join(corpus, modernFolder);
  const types = pageTypes(dir);
  if (fs.existsSync(dir)) {
    const cases = modernCases(dir);
    log(`main content, ${modernFolder}: ${cases.length} pages; Quire, Readability, defuddle`);
    const tools = [
      onPages(quire, 'html', 'Quire', quireHow),
      onPages(readability, 'html'),
      onPages(defuddle, 'html'),
    ];
    const runs = await runQuality(tools, cases, path.join(outRoot, modernFolder));
    const summaries = await scoreModern(dir, runs);
    for (const run of runs)
      modern.push({
        tool: run.tool,
        summary: summaries[path.basename(run.outDir)] ?? null,
        ms: medianOfRun(run),
      });
  }
  return { old, modern, types };
}

// ------------------------------------------------------------------ report

/** "Quire ms / tool ms" and what the two times include, for a row of a per-tool table. */
function ratioCells(
  quireMs: number | null,
  quire: Tool,
  tool: Tool,
  ms: number | null,
  less = false,
): string[] {
  if (tool === quire) return ['1×', dash];
  return [fmtRatio(ratio(quireMs, ms)), comparedTimes(quire, tool, less ? 'less start-up' : undefined)];
}

const pct = (x: number | null | undefined) => (x == null ? dash : (100 * x).toFixed(1));

function oldTable(results: OldResult[], startUp: StartUp | undefined): string[] {
  const quire = results.find((r) => r.tool.id === 'quire');
  const vectors = (r: OldResult) => r.report?.formats[oldFolder]?.vectors;
  const rows: string[][] = [];
  for (const r of results) {
    rows.push([
      r.tool.label,
      r.failed > 0 ? `${fmtScore(vectors(r))} (${r.failed} failed)` : fmtScore(vectors(r)),
      fmtMs(r.ms),
      ...(quire ? ratioCells(quire.ms, quire.tool, r.tool, r.ms) : [dash, dash]),
    ]);
    if (startUp && r.tool.runsIn === 'a process per document') {
      const less = lessStartUp(r.ms, startUp);
      rows.push([
        `${r.tool.label}, less its start-up`,
        '',
        fmtMs(less),
        ...(quire ? ratioCells(quire.ms, quire.tool, r.tool, less, true) : [dash, dash]),
      ]);
    }
  }
  const pages = results[0]?.report?.formats[oldFolder]?.n ?? 0;
  return [
    `### ${oldFolder}: ${pages} pages, must-include and must-not-include snippets`,
    '',
    `Real web pages (articles, documentation, forums, shops, listings; corpus/${oldFolder}/SOURCES.md), scored ` +
      'by the shared scorer’s `vectors` metric: the share of must-include snippets found plus must-not-include ' +
      'snippets absent, averaged over the pages. ms/page: median over the pages of each page’s median wall time.',
    '',
    table(['tool', 'score', 'ms/page', 'Quire ms / tool ms', 'what the two times include'], rows),
    '',
  ];
}

function modernTables(results: ModernResult[], types: Map<string, string>): string[] {
  const quire = results.find((r) => r.tool.id === 'quire');
  const rows = results.map((r) => {
    const s = r.summary;
    return [
      r.tool.label,
      String(s?.pages ?? dash),
      pct(s?.precision),
      pct(s?.recall),
      pct(s?.f1),
      s?.f1CI95 ? `${pct(s.f1CI95[0])}–${pct(s.f1CI95[1])}` : dash,
      pct(s?.shareF1ge90),
      s ? `${s.failed} / ${s.empty}` : dash,
      fmtMs(r.ms),
      ...(quire ? ratioCells(quire.ms, quire.tool, r.tool, r.ms) : [dash, dash]),
    ];
  });
  // Per page type: the set's own advice (its SOURCES.md) is to read these, not just the mean.
  const byType = new Map<string, number>();
  for (const t of types.values()) byType.set(t, (byType.get(t) ?? 0) + 1);
  const order = [...byType.entries()].sort((a, b) => b[1] - a[1]);
  const meanOf = (r: ModernResult, type: string, key: 'p' | 'r' | 'f1') => {
    const xs = (r.summary?.perPage ?? []).filter((p) => types.get(p.page) === type).map((p) => p[key]);
    return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  const typeRows = order.map(([type, n]) => [
    type,
    String(n),
    ...results.flatMap((r) => (['p', 'r', 'f1'] as const).map((k) => pct(meanOf(r, type, k)))),
  ]);
  const pages = results[0]?.summary?.pages ?? 0;
  return [
    `### ${modernFolder}: ${pages} pages, token precision and recall`,
    '',
    `Pages fetched in 2025-2026, each with a full reference text of its main content (corpus/${modernFolder}/` +
      'SOURCES.md: the dev split of a public benchmark; its references were drafted by a model and checked by ' +
      'people), scored by `score-maincontent.mjs`: per page, precision (share of the output’s tokens that are ' +
      'reference tokens: boilerplate kept lowers it), recall (share of the reference’s tokens kept) and F1, ' +
      'then means over the pages (0–100) and a bootstrap 95% interval of the mean F1. Failed / empty: pages with ' +
      'no output / with output that has no tokens. ms/page as above.',
    '',
    table(
      [
        'tool',
        'pages',
        'precision',
        'recall',
        'F1',
        'F1 95% interval',
        '% pages F1 ≥ 90',
        'failed / empty',
        'ms/page',
        'Quire ms / tool ms',
        'what the two times include',
      ],
      rows,
    ),
    '',
    'By page type (the set’s pages.tsv; mean precision, recall and F1 over the pages of a type; a type of one ' +
      'or two pages says little):',
    '',
    table(
      [
        'page type',
        'pages',
        ...results.flatMap((r) => [`${r.tool.label} P`, `${r.tool.label} R`, `${r.tool.label} F1`]),
      ],
      typeRows,
    ),
    '',
  ];
}

export function mainContentSection(result: MainContentResult, startUp: StartUp | undefined): string[] {
  const tools = [...result.old.map((r) => r.tool), ...result.modern.map((r) => r.tool)].filter(
    (t, i, all) => all.findIndex((u) => u.label === t.label) === i,
  );
  const pandocTool = tools.find((t) => t.runsIn === 'a process per document');
  return [
    '## Main content (`onlyMainContent`)',
    '',
    'Two sets of real web pages, every tool run on each in this run. ' +
      'Ratios below 1× mean Quire is faster; the last column says what the two times include.',
    '',
    ...oldTable(result.old, startUp),
    ...(result.modern.length > 0
      ? modernTables(result.modern, result.types)
      : [`### ${modernFolder}`, '', `Not run: no ${modernFolder} folder in the corpus.`, '']),
    'How each tool ran (both sets):',
    '',
    ...tools.map((t) => `- ${t.label}: ${t.how}; ${howTimed(t)}.`),
    ...(startUp && pandocTool ? [startUpNote(pandocTool, startUp)] : []),
    `- Readability’s stack: ${readabilityVersions()}. defuddle is given no URL (Quire and Readability have none ` +
      'either), so its site-specific extractors keyed on the address do not run.',
    '- Every tool gets one untimed run and three timed runs per page: the sets are hundreds of pages and the ' +
      'JIT is warm from the pages before.',
    '',
    `Outputs are in bench/out/${oldFolder}/<tool>/ and bench/out/${modernFolder}/<tool>/html/; ` +
      `\`node ../shared/eval/score.mjs --dir ../shared/corpus --outputs bench/out/${oldFolder}/quire --formats ` +
      `${oldFolder} --json\` lists each page’s missing and unwanted snippets, and \`node ` +
      `../shared/eval/score-maincontent.mjs --dir ../shared/corpus/${modernFolder} --peers bench/out/${modernFolder} ` +
      '--pages /tmp/pages.tsv` each page’s precision and recall.',
    '',
  ];
}
