import path from 'node:path';
import { findCases } from './corpus.ts';
import { fmtMs, fmtRatio, fmtScore, table } from './format.ts';
import { readability, readabilityVersions } from './peers/readability.ts';
import { pandoc, type Tool } from './peers.ts';
import { runQuality, type ScoreReport, score, warmupRuns } from './quality.ts';
import { median, ratio } from './stats.ts';

// The main-content section: real web pages whose main text is known by must-include and
// must-not-include snippets (corpus/maincontent, see its SOURCES.md). Quire with its default
// `onlyMainContent` against Mozilla Readability, the reference extractor, and against pandoc on
// the whole page (what keeping everything scores), all in the same run.

/** The corpus folder, which is also the scorer's format name for these cases. */
const folder = 'maincontent';

interface Result {
  tool: Tool;
  report: ScoreReport | null;
  /** Median over the pages of each page's median wall time. */
  ms: number | null;
  failed: number;
}

/** A converter that reads HTML, run on the main-content pages (scored as their own "format"). */
function onMainContent(tool: Tool, label: string, how: string): Tool {
  return {
    ...tool,
    label,
    how,
    supports: (format) => format === folder,
    convert: (bytes, _format, filename) => tool.convert(bytes, 'html', filename),
  };
}

export async function runMainContent(quire: Tool, corpus: string, outRoot: string): Promise<Result[]> {
  const cases = findCases(corpus, [folder]);
  if (cases.length === 0) throw new Error(`no pages in ${path.join(corpus, folder)}`);
  const tools = [
    onMainContent(quire, 'Quire', 'in-process `parseDocument`, default options (`onlyMainContent` on)'),
    onMainContent(readability, 'Readability', readability.how),
    onMainContent(pandoc, 'pandoc (whole page)', pandoc.how),
  ];
  const results: Result[] = [];
  for (const run of await runQuality(tools, cases, path.join(outRoot, folder))) {
    results.push({
      tool: run.tool,
      report: await score(corpus, run),
      ms: median(Object.values(run.timings)),
      failed: Object.keys(run.errors).length,
    });
  }
  return results;
}

export function mainContentSection(results: Result[]): string[] {
  const pages = results[0]?.report?.formats[folder]?.n ?? 0;
  const quire = results.find((r) => r.tool.id === 'quire');
  const vectors = (r: Result) => r.report?.formats[folder]?.vectors;
  const rows = results.map((r) => [
    r.tool.label,
    r.failed > 0 ? `${fmtScore(vectors(r))} (${r.failed} failed)` : fmtScore(vectors(r)),
    fmtMs(r.ms),
    r === quire ? '1×' : fmtRatio(ratio(quire?.ms, r.ms)),
  ]);
  return [
    '## Main content (`onlyMainContent`)',
    '',
    `${pages} real web pages (articles, documentation, forums, shops, listings; corpus/${folder}/SOURCES.md), ` +
      'scored by the shared scorer’s `vectors` metric: the share of must-include snippets found plus ' +
      'must-not-include snippets absent, averaged over the pages. ms/page: median over the pages of each ' +
      'page’s median wall time.',
    '',
    table(['tool', 'score', 'ms/page', 'Quire ms / tool ms'], rows),
    '',
    ...results.map(
      (r) =>
        `- ${r.tool.label}: ${r.tool.how}; median of ${r.tool.runs} timed runs${r.tool.warmup ? ` after up to ${warmupRuns} untimed warm-up runs` : ''}.`,
    ),
    `- Readability’s stack: ${readabilityVersions()}.`,
    '',
    `Outputs are in bench/out/${folder}/<tool>/; \`node ../shared/eval/score.mjs --dir ../shared/corpus ` +
      `--outputs bench/out/${folder}/quire --formats ${folder} --json\` lists each page’s missing and unwanted snippets.`,
    '',
  ];
}
