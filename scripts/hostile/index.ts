import fs from 'node:fs';
import path from 'node:path';
import { binaryOfficeCases } from './binary.ts';
import type { HostileCase } from './case.ts';
import { imageCases } from './images.ts';
import { ooxmlCases } from './ooxml.ts';
import { packageCases } from './packages.ts';
import { pdfCases } from './pdf.ts';
import { textCases } from './text.ts';

export type { HostileCase } from './case.ts';

/**
 * Every hostile upload the generator makes, for every input format: zip bombs, entity
 * expansion, deep nesting, huge declared sizes and counts, repeated pictures, self-referencing
 * structures, truncated files. Nothing is downloaded: each file is built from its recipe.
 */
export const hostileCases: readonly HostileCase[] = [
  ...ooxmlCases,
  ...packageCases,
  ...binaryOfficeCases,
  ...pdfCases,
  ...textCases,
  ...imageCases,
];

// `node scripts/hostile/index.ts <folder> [name-filter]` writes the files and a manifest.json.
if (import.meta.main) {
  const [folder, filter] = process.argv.slice(2);
  if (!folder) {
    process.stderr.write('usage: node scripts/hostile/index.ts <folder> [name-filter]\n');
    process.exit(2);
  }
  fs.mkdirSync(folder, { recursive: true });
  const manifest = [];
  for (const c of hostileCases) {
    if (filter && !c.name.includes(filter)) continue;
    const bytes = c.build();
    const file = `${c.name}${path.extname(c.filename)}`;
    fs.writeFileSync(path.join(folder, file), bytes);
    manifest.push({
      file,
      filename: c.filename,
      bytes: bytes.length,
      attack: c.attack,
      options: c.options ?? {},
    });
    process.stdout.write(`${file}\t${bytes.length}\t${c.attack}\n`);
  }
  fs.writeFileSync(path.join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
}
