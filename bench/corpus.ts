import fs from 'node:fs';
import path from 'node:path';

/** The repository root (this file lives in `<root>/bench`). */
export const repoRoot = path.resolve(import.meta.dirname, '..');

/** The shared corpus: `../shared/corpus` next to the repository, or `QUIRE_CORPUS_DIR`. */
export function corpusDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.QUIRE_CORPUS_DIR || path.resolve(repoRoot, '../shared/corpus'));
}

/** An installed package's version, from its package.json under node_modules. */
export function packageVersion(name: string): string {
  try {
    const pkg = path.join(repoRoot, 'node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The shared scorer, next to the corpus in the shared tree. */
export const scorerPath = path.resolve(repoRoot, '../shared/eval/score.mjs');

export interface Case {
  /** Folder name under the corpus, which is also Quire's format id. */
  format: string;
  /** File name, e.g. `docling-table_01.html`; outputs go to `<format>/<name>.md`. */
  name: string;
  /** `<format>/<name>`, the key of timings.json and errors.json. */
  key: string;
  file: string;
  bytes: Uint8Array;
}

/** Reference and bookkeeping files that sit next to the cases (the scorer skips the same ones). */
function isCaseFile(name: string): boolean {
  return !/\.(expected\.md|expected\.txt|vectors\.json)$/.test(name) && !/^(SOURCES|README)\.md$/i.test(name);
}

/**
 * Every case of the given formats, sorted by key. A format without a corpus folder has no
 * cases. Files are read up front, so timings never include disk reads.
 */
export function findCases(dir: string, formats: Iterable<string>): Case[] {
  const cases: Case[] = [];
  for (const format of formats) {
    const folder = path.join(dir, format);
    if (!fs.existsSync(folder)) continue;
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isFile() || !isCaseFile(entry.name)) continue;
      const file = path.join(folder, entry.name);
      cases.push({
        format,
        name: entry.name,
        key: `${format}/${entry.name}`,
        file,
        bytes: fs.readFileSync(file),
      });
    }
  }
  return cases.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
