import fs from 'node:fs';
import path from 'node:path';
import { corpusDir } from './server.ts';

/** A reference file of the corpus (`*.expected.txt`, `*.expected.md`, `*.vectors.json`). */
export const reference = (file: string) => fs.readFileSync(path.join(corpusDir, file), 'utf8');

/** The cells of each row of the Markdown tables in `md` (delimiter rows left out, `\|` read as `|`). */
export const tableRows = (md: string) =>
  md
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll('\\|', '|')),
    );
