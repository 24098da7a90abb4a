import { type Format, formatFromExtension, toMarkdownBytes } from '@firecrawl/anydoc';
import { packageVersion } from './corpus.ts';
import { dash, fmtMs } from './format.ts';
import { pandocReader, runPandoc } from './peers/pandoc.ts';
import { percentile } from './stats.ts';

/** One converter under test: bytes in, Markdown out. */
export interface Tool {
  /** Folder name under bench/out and key in the tables. */
  id: string;
  label: string;
  /** How it is run and timed, for RESULTS.md. */
  how: string;
  /**
   * In this process, timed after start-up and warm-up, or one new process per document, its
   * start included in every time: the ratio headers say which they compare.
   */
  runsIn: 'this process' | 'a process per document';
  /** Timed runs per document; the median is reported. */
  runs: number;
  /**
   * Untimed runs before the timed ones. `jit`: in-process tools warm their JIT and caches over
   * many runs (see quality.ts). `once`: one run, so that a process per document finds its binary
   * and libraries in the page cache, or a tool already warmed on earlier pages sees the page once.
   */
  warmup: 'jit' | 'once';
  /** Whether this tool reads the format at all; unsupported formats are shown as n/a. */
  supports(format: string): boolean;
  convert(bytes: Uint8Array, format: string, filename: string): Promise<string>;
}

// ------------------------------------------------------------------ pandoc

export const pandoc: Tool = {
  id: 'pandoc',
  label: 'pandoc',
  how: 'one `pandoc -f <fmt> -t gfm` process per document, bytes on stdin',
  runsIn: 'a process per document',
  runs: 5,
  warmup: 'once',
  supports: (format) => pandocReader(format) !== undefined,
  async convert(bytes, format) {
    const r = await runPandoc(bytes, format);
    if (r.code !== 0) {
      const why = r.signal ? `killed by ${r.signal}` : `exit ${r.code}`;
      throw new Error(`pandoc ${why}: ${r.stderr.trim().slice(0, 500)}`);
    }
    return r.stdout.toString('utf8');
  },
};

// ------------------------------------------------------------------ anydoc

/** anydoc names formats after extensions; Quire's format ids are extensions too. */
function anydocFormat(format: string): Format | null {
  return formatFromExtension(format);
}

export function anydocVersion(): string {
  return packageVersion('@firecrawl/anydoc');
}

export const anydoc: Tool = {
  id: 'anydoc',
  label: 'anydoc',
  how: 'in-process `toMarkdownBytes(bytes, format)` (@firecrawl/anydoc, native)',
  runsIn: 'this process',
  runs: 20,
  warmup: 'jit',
  supports: (format) => anydocFormat(format) !== null,
  convert(bytes, format) {
    const f = anydocFormat(format);
    if (f === null) throw new Error(`anydoc cannot read ${format}`);
    return toMarkdownBytes(bytes, f);
  },
};

export const peers: readonly Tool[] = [pandoc, anydoc];

/** What a tool's times include, for table headers: "in-process, warm" or "incl. process start". */
export function timedAs(tool: Tool): string {
  return tool.runsIn === 'this process' ? 'in-process, warm' : 'process per doc, incl. its start';
}

/** A process-per-document tool's own start-up, measured apart from any document. */
export interface StartUp {
  /** What was run, for RESULTS.md. */
  command: string;
  samples: number[];
  /** Their median. */
  ms: number;
}

/**
 * A time less the start-up; null when nothing is left (the document costs less than the
 * start-up's own noise), so that no ratio is taken against it.
 */
export function lessStartUp(ms: number | null, startUp: StartUp): number | null {
  return ms === null || ms - startUp.ms <= 0 ? null : ms - startUp.ms;
}

/** What the two times of an `a / b` ratio include. */
export function comparedTimes(a: Tool, b: Tool, less?: 'less start-up'): string {
  if (less) return `${b.label} less its process start-up`;
  return a.runsIn === b.runsIn ? `both ${timedAs(b)}` : `${a.label} ${timedAs(a)}; ${b.label} ${timedAs(b)}`;
}

/** A ratio column's header, saying what each side's time includes. */
export function ratioHeader(a: Tool, b: Tool, less?: 'less start-up'): string {
  return `${a.label} ms / ${b.label} ms (${comparedTimes(a, b, less)})`;
}

/** The note under a table for a tool whose start-up was measured apart. */
export function startUpNote(tool: Tool, startUp: StartUp): string {
  const lo = percentile(startUp.samples, 10);
  const hi = percentile(startUp.samples, 90);
  return (
    `- ${tool.label}'s process start-up, measured apart: median ${fmtMs(startUp.ms)} ms ` +
    `(p10 ${fmtMs(lo)}, p90 ${fmtMs(hi)}; n = ${startUp.samples.length}) for ${startUp.command}, spawned and timed ` +
    'as the documents are, before and after the documents. The "less start-up" columns subtract that median from ' +
    `the median ms/doc (a median less a constant is the median of the differences); ${dash} where nothing is left.`
  );
}
