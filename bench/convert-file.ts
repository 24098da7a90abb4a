import fs from 'node:fs';
import { formatFromExtension, toMarkdownBytes } from '@firecrawl/anydoc';
import type { FormatId } from '../src/detect/formats.ts';
import { parseOptionsSchema } from '../src/options/parse-options.ts';
import { parseDocument } from '../src/pipeline/parse-document.ts';

/**
 * Conversions in a fresh process, so that its peak RSS is its own:
 * `node bench/convert-file.ts quire|anydoc <file> <format> [options JSON] [runs]` prints
 * {ms, markdownChars, peakRssMb} for the first conversion and, with runs > 1, `laterMs`: the
 * later conversions of the same file in the same process (what a worker that has converted
 * before spends). Quire runs its pipeline as a conversion worker does (same heap limit, set by
 * the caller), with the request options given (defaults otherwise).
 */
const [tool, file, format, options = '{}', runs = '1'] = process.argv.slice(2) as [
  string,
  string,
  string,
  string?,
  string?,
];
const bytes = new Uint8Array(fs.readFileSync(file));

async function convert(): Promise<string> {
  if (tool === 'quire') {
    const data = await parseDocument({
      bytes,
      filename: file.split('/').pop() ?? file,
      contentType: undefined,
      format: format as FormatId,
      options: parseOptionsSchema.parse(JSON.parse(options)),
      warnings: [],
    });
    return data.markdown ?? '';
  }
  const f = formatFromExtension(format);
  if (!f) throw new Error(`anydoc cannot read ${format}`);
  return toMarkdownBytes(bytes, f);
}

const times: number[] = [];
let markdown = '';
let peakRssMb = 0;
for (let i = 0; i < Math.max(1, Number(runs)); i++) {
  const t0 = performance.now();
  markdown = await convert();
  times.push(performance.now() - t0);
  // The peak of the first conversion alone: later ones in the same process add garbage.
  if (i === 0) peakRssMb = process.resourceUsage().maxRSS / 1024;
}
const [ms, ...laterMs] = times;
process.stdout.write(`${JSON.stringify({ ms, laterMs, markdownChars: markdown.length, peakRssMb })}\n`);
