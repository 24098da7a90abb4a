import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FormatId } from '../src/detect/formats.ts';
import { type Case, scorerPath } from './corpus.ts';
import type { Tool } from './peers.ts';
import { median, nowMs } from './stats.ts';

const execFileAsync = promisify(execFile);

/** Quire in-process, or why it could not be loaded (its modules are still being written). */
export type QuireLoad =
  | {
      ok: true;
      tool: Tool;
      formats: string[];
      /** One conversion with the given request options (validated as the API validates them). */
      convertWith(bytes: Uint8Array, filename: string, format: string, options: unknown): Promise<string>;
    }
  | { ok: false; error: string };

/**
 * Quire's own pipeline in this process: detect the format the way the HTTP layer does, then
 * `parseDocument` with default options. Loaded lazily so that a half-written tree yields a
 * report instead of a crash.
 */
export async function loadQuire(): Promise<QuireLoad> {
  try {
    const [{ parseDocument }, { implementedFormats }, { detectFormat }, { parseOptionsSchema }] =
      await Promise.all([
        import('../src/pipeline/parse-document.ts'),
        import('../src/convert/convertible.ts'),
        import('../src/detect/detect.ts'),
        import('../src/options/parse-options.ts'),
      ]);
    const tool: Tool = {
      id: 'quire',
      label: 'Quire',
      how: 'in-process `detectFormat` + `parseDocument` (default options)',
      runsIn: 'this process',
      runs: 20,
      warmup: 'jit',
      supports: (format) => (implementedFormats as ReadonlySet<string>).has(format),
      async convert(bytes, _format, filename) {
        const { format } = detectFormat({ filename, contentType: undefined, bytes }, implementedFormats);
        const data = await parseDocument({
          bytes,
          filename,
          contentType: undefined,
          format,
          options: parseOptionsSchema.parse({}),
          warnings: [],
        });
        return data.markdown ?? '';
      },
    };
    const convertWith = async (bytes: Uint8Array, filename: string, format: string, options: unknown) => {
      const data = await parseDocument({
        bytes,
        filename,
        contentType: undefined,
        format: format as FormatId,
        options: parseOptionsSchema.parse(options),
        warnings: [],
      });
      return data.markdown ?? '';
    };
    return { ok: true, tool, formats: [...implementedFormats].sort(), convertWith };
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${typeof code === 'string' ? `${code}: ` : ''}${err.message}`.slice(0, 500);
  }
  return String(err).slice(0, 500);
}

/** Stop timing a case once its runs have used this much time (at least one timed run is kept). */
const caseBudgetMs = 10_000;
/**
 * Untimed runs before the timed ones, for the tools that warm up: at least this many, and for
 * at least `warmupMs`. A small document converts in a tenth of a millisecond, and its
 * JavaScript is still climbing V8's tiers long after 20 runs: a small XLSM measured 0.16 ms
 * after 100 ms of warm-up in a fresh process, 0.08 after 250 ms, 0.07 after 500 ms and after
 * 2 s (where a service that has converted a few thousand documents stands).
 */
const warmupRuns = 20;
const warmupMs = 300;

/** How a tool's times were taken, for the "How each tool ran" notes. */
export function howTimed(tool: Tool): string {
  const warm =
    tool.warmup === 'jit'
      ? `untimed warm-up runs (at least ${warmupRuns} and ${warmupMs} ms, at most ${caseBudgetMs / 2000} s)`
      : 'one untimed run';
  return `median of ${tool.runs} timed runs after ${warm}`;
}

export interface ToolRun {
  tool: Tool;
  /** Output folder: bench/out/<tool>. */
  outDir: string;
  /** Formats this tool was run on (the supported subset of the bench's formats). */
  formats: string[];
  /** Median wall ms per case key. */
  timings: Record<string, number>;
  /** Error message per failed case key. */
  errors: Record<string, string>;
}

type Measured = { ok: true; markdown: string; ms: number; runs: number } | { ok: false; error: string };

async function measure(tool: Tool, c: Case): Promise<Measured> {
  try {
    // In-process tools warm up as a long-running service would be: several untimed runs, so
    // that JIT-compiled JavaScript is compared with native code at its steady state. A process per
    // document gets one, so that its first timed run does not read its binary from disk.
    let markdown: string | undefined;
    let spent = 0;
    const warm = (i: number) =>
      tool.warmup === 'once' ? i < 1 : (i < warmupRuns || spent < warmupMs) && spent < caseBudgetMs / 2;
    for (let i = 0; warm(i); i++) {
      const t0 = nowMs();
      markdown = await tool.convert(c.bytes, c.format, c.name);
      spent += nowMs() - t0;
    }
    spent = 0;
    const times: number[] = [];
    for (let i = 0; i < tool.runs && (i === 0 || spent < caseBudgetMs); i++) {
      const t0 = nowMs();
      markdown = await tool.convert(c.bytes, c.format, c.name);
      const dt = nowMs() - t0;
      times.push(dt);
      spent += dt;
    }
    return { ok: true, markdown: markdown ?? '', ms: median(times)!, runs: times.length };
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
}

/**
 * Converts every case with every tool that reads its format, case by case so that all tools
 * see the same machine state, and writes bench/out/<tool>/<format>/<case>.md plus
 * timings.json and errors.json (the scorer's input).
 */
export async function runQuality(
  tools: readonly Tool[],
  cases: readonly Case[],
  outRoot: string,
): Promise<ToolRun[]> {
  const formats = [...new Set(cases.map((c) => c.format))];
  const runs: ToolRun[] = tools.map((tool) => {
    const outDir = path.join(outRoot, tool.id);
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    return { tool, outDir, formats: formats.filter((f) => tool.supports(f)), timings: {}, errors: {} };
  });
  for (const [i, c] of cases.entries()) {
    const line: string[] = [];
    for (const run of runs) {
      if (!run.formats.includes(c.format)) continue;
      const m = await measure(run.tool, c);
      if (m.ok) {
        const file = path.join(run.outDir, c.format, `${c.name}.md`);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, m.markdown);
        run.timings[c.key] = Math.round(m.ms * 1000) / 1000;
        line.push(`${run.tool.id} ${m.ms.toFixed(1)}ms`);
      } else {
        run.errors[c.key] = m.error;
        line.push(`${run.tool.id} FAILED`);
      }
    }
    process.stderr.write(`  [${i + 1}/${cases.length}] ${c.key}: ${line.join(', ') || 'no tool'}\n`);
  }
  for (const run of runs) {
    fs.writeFileSync(path.join(run.outDir, 'timings.json'), `${JSON.stringify(run.timings, null, 1)}\n`);
    fs.writeFileSync(path.join(run.outDir, 'errors.json'), `${JSON.stringify(run.errors, null, 1)}\n`);
  }
  return runs;
}

/** One format's summary from the shared scorer (scores 0-100). */
export interface FormatScore {
  n: number;
  failed: number;
  overall: number | null;
  text: number | null;
  order: number | null;
  headings: number | null;
  lists: number | null;
  tables: number | null;
  vectors: number | null;
  medianMs: number | null;
}

export interface ScoreReport {
  formats: Record<string, FormatScore>;
  all: FormatScore & { macroOverall: number | null };
  files: { file: string; overall: number | null; text: number | null; failed?: boolean; error?: string }[];
}

/** Runs `score.mjs --json` over one tool's outputs for the formats it was run on. */
export async function score(corpus: string, run: ToolRun): Promise<ScoreReport | null> {
  if (run.formats.length === 0) return null;
  const { stdout } = await execFileAsync(
    process.execPath,
    [scorerPath, '--dir', corpus, '--outputs', run.outDir, '--formats', run.formats.join(','), '--json'],
    { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
  );
  return JSON.parse(stdout) as ScoreReport;
}
