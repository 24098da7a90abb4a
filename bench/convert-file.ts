import fs from 'node:fs';
import { formatFromExtension, toMarkdownBytes } from '@firecrawl/anydoc';
import type { FormatId } from '../src/detect/formats.ts';
import { parseOptionsSchema } from '../src/options/parse-options.ts';
import { parseDocument } from '../src/pipeline/parse-document.ts';

/**
 * One conversion in a fresh process, so that its peak RSS is its own:
 * `node bench/convert-file.ts quire|anydoc <file> <format> [options JSON]` prints
 * {ms, markdownChars, peakRssMb}. Quire runs its pipeline as a conversion worker does (same
 * heap limit, set by the caller), with the request options given (defaults otherwise).
 */
const [tool, file, format, options = '{}'] = process.argv.slice(2) as [string, string, string, string?];
const bytes = new Uint8Array(fs.readFileSync(file));
const t0 = performance.now();
let markdown: string;
if (tool === 'quire') {
  const data = await parseDocument({
    bytes,
    filename: file.split('/').pop() ?? file,
    contentType: undefined,
    format: format as FormatId,
    options: parseOptionsSchema.parse(JSON.parse(options)),
    warnings: [],
  });
  markdown = data.markdown ?? '';
} else {
  const f = formatFromExtension(format);
  if (!f) throw new Error(`anydoc cannot read ${format}`);
  markdown = await toMarkdownBytes(bytes, f);
}
const ms = performance.now() - t0;
const peakRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ ms, markdownChars: markdown.length, peakRssMb })}\n`);
