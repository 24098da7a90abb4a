/**
 * Prints each case's `<name>.src.html` to `<name>.pdf` with headless Chromium, as a browser's
 * "Save as PDF" would: a real PDF with a text layer and ruled tables, made from a source that
 * can be read and changed. The PDFs are kept beside their sources, so scoring needs no browser.
 *
 *   node bench/extract/make-pdfs.ts
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';

const chromium = loadConfig().QUIRE_CHROMIUM_PATH;
const root = path.join(import.meta.dirname, 'cases');
for (const split of fs.readdirSync(root)) {
  for (const file of fs.readdirSync(path.join(root, split))) {
    if (!file.endsWith('.src.html')) continue;
    const source = path.join(root, split, file);
    const target = source.replace(/\.src\.html$/, '.pdf');
    execFileSync(
      chromium,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-pdf-header-footer',
        `--print-to-pdf=${target}`,
        source,
      ],
      { stdio: 'ignore', timeout: 60_000 },
    );
    console.log(`${path.relative(process.cwd(), target)}`);
  }
}
