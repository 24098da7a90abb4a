import { createHash } from 'node:crypto';
import path from 'node:path';
import { corpusDir, findCases } from './corpus.ts';
import {
  type ModernSummary,
  modernCases,
  modernFolder,
  oldFolder,
  onPages,
  pageTypes,
  quireHow,
  scoreModern,
} from './maincontent.ts';
import { defuddle } from './peers/defuddle.ts';
import { readability } from './peers/readability.ts';
import type { Tool } from './peers.ts';
import { loadQuire, runQuality, score, type ToolRun } from './quality.ts';
import { median } from './stats.ts';

// The main-content section for Quire alone, while tuning it: both sets, the modern one per
// page type and per half (a stable hash of the page id splits it, so that a rule found on one
// half can be checked on the other). QUIRE_MC_PEERS=1 runs Readability and defuddle too.
// Usage: node bench/maincontent-quire.ts [--half 0|1]  (outputs in bench/out/mc-quire/)

/** The half of the modern set a page falls in: the first byte of sha1(page id), odd or even. */
export function halfOf(page: string): 0 | 1 {
  const id = page.replace(/\.html$/, '');
  return (createHash('sha1').update(id).digest()[0]! % 2) as 0 | 1;
}

const pct = (x: number) => (100 * x).toFixed(1);

function perType(summary: ModernSummary, types: Map<string, string>): string[] {
  const groups = new Map<string, { p: number[]; r: number[]; f1: number[] }>();
  for (const page of summary.perPage) {
    for (const key of [
      `${types.get(page.page) ?? '?'} h${halfOf(page.page)}`,
      `${types.get(page.page)} all`,
    ]) {
      const g = groups.get(key) ?? { p: [], r: [], f1: [] };
      g.p.push(page.p);
      g.r.push(page.r);
      g.f1.push(page.f1);
      groups.set(key, g);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return [...groups.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(
      ([key, g]) =>
        `${key.padEnd(20)} n=${String(g.p.length).padStart(3)}  P ${pct(mean(g.p))}  R ${pct(mean(g.r))}  F1 ${pct(mean(g.f1))}`,
    );
}

async function main(): Promise<void> {
  const quire = await loadQuire();
  if (!quire.ok) throw new Error(quire.error);
  const corpus = corpusDir();
  const outRoot = path.join(import.meta.dirname, 'out', 'mc-quire');
  const halfArg = process.argv.indexOf('--half');
  const half = halfArg >= 0 ? Number(process.argv[halfArg + 1]) : undefined;
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const withPeers = process.env.QUIRE_MC_PEERS === '1';

  const dir = path.join(corpus, modernFolder);
  const types = pageTypes(dir);
  const cases = modernCases(dir).filter((c) => half === undefined || halfOf(c.name) === half);
  const tools: Tool[] = [onPages(quire.tool, 'html', 'Quire', quireHow)];
  if (withPeers) tools.push(onPages(readability, 'html'), onPages(defuddle, 'html'));
  const runs = await runQuality(tools, cases, path.join(outRoot, modernFolder));
  const summaries = await scoreModern(dir, runs);
  const ms = (run: ToolRun) => median(Object.values(run.timings));
  for (const run of runs) {
    const s = summaries[path.basename(run.outDir)];
    if (!s) continue;
    log(
      `${run.tool.label} modern: ${s.pages} pages  P ${pct(s.precision ?? 0)}  R ${pct(s.recall ?? 0)}  F1 ${pct(s.f1 ?? 0)}  ms/page ${ms(run)?.toFixed(1)}`,
    );
    for (const line of perType(s, types)) log(`  ${line}`);
  }
  if (half !== undefined) return;
  const oldCases = findCases(corpus, [oldFolder]);
  for (const run of await runQuality(
    [onPages(quire.tool, oldFolder, 'Quire', quireHow)],
    oldCases,
    path.join(outRoot, oldFolder),
  )) {
    const report = await score(corpus, run);
    log(
      `Quire ${oldFolder}: ${oldCases.length} pages  score ${report?.formats[oldFolder]?.vectors?.toFixed(1)}  ms/page ${ms(run)?.toFixed(1)}`,
    );
  }
}

await main();
