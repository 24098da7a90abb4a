import fs from 'node:fs';
import path from 'node:path';
import { type Format, formatFromExtension, toMarkdownBytes } from '@firecrawl/anydoc';
import { repoRoot } from './corpus.ts';
import { pandocReader, runPandoc } from './peers/pandoc.ts';

/** One converter under test: bytes in, Markdown out. */
export interface Tool {
  /** Folder name under bench/out and key in the tables. */
  id: string;
  label: string;
  /** How it is run and timed, for RESULTS.md. */
  how: string;
  /** Timed runs per document; the median is reported. */
  runs: number;
  /** Whether one untimed run precedes the timed ones (in-process tools warm their JIT and caches). */
  warmup: boolean;
  /** Whether this tool reads the format at all; unsupported formats are shown as n/a. */
  supports(format: string): boolean;
  convert(bytes: Uint8Array, format: string, filename: string): Promise<string>;
}

// ------------------------------------------------------------------ pandoc

export const pandoc: Tool = {
  id: 'pandoc',
  label: 'pandoc',
  how: 'one `pandoc -f <fmt> -t gfm` process per document, bytes on stdin',
  runs: 3,
  warmup: false,
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
  try {
    const pkg = path.join(repoRoot, 'node_modules/@firecrawl/anydoc/package.json');
    return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export const anydoc: Tool = {
  id: 'anydoc',
  label: 'anydoc',
  how: 'in-process `toMarkdownBytes(bytes, format)` (@firecrawl/anydoc, native)',
  runs: 20,
  warmup: true,
  supports: (format) => anydocFormat(format) !== null,
  convert(bytes, format) {
    const f = anydocFormat(format);
    if (f === null) throw new Error(`anydoc cannot read ${format}`);
    return toMarkdownBytes(bytes, f);
  },
};

export const peers: readonly Tool[] = [pandoc, anydoc];
