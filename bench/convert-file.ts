import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { FormatId } from '../src/detect/formats.ts';
import { readStatusKb, reapedChildrenCpuMs } from './proc.ts';

/**
 * Conversions in a fresh process, so that its peak RSS, start-up and CPU time are its own:
 * `node bench/convert-file.ts quire|anydoc|pdfjs <file> <format> [options JSON] [runs]` prints
 * {ms, cpuMs, markdownChars, peakRssMb} for the first conversion and, with runs > 1, `laterMs`
 * and `laterCpuMs`: the later conversions of the same file in the same process (what a worker
 * that has converted before spends). CPU is user + system of the whole process, every thread
 * included, and of the child processes it ran meanwhile (Tesseract, for Quire's OCR); Quire
 * also reports the pages it OCR'd (`ocrPages`, of the first conversion). Quire runs its
 * pipeline as a conversion worker does (same heap limit, set by the caller), with the request
 * options given (defaults otherwise).
 *
 * Each tool's modules are imported only when it is the one run, so that a process timed from
 * spawn to exit loads what that tool needs and nothing else.
 */
const [tool, file, format, options = '{}', runs = '1'] = process.argv.slice(2) as [
  string,
  string,
  string,
  string?,
  string?,
];
const bytes = new Uint8Array(fs.readFileSync(file));

let ocrPages: number | undefined;

async function converter(): Promise<() => Promise<string>> {
  if (tool === 'quire') {
    const [{ parseDocument }, { parseOptionsSchema }] = await Promise.all([
      import('../src/pipeline/parse-document.ts'),
      import('../src/options/parse-options.ts'),
    ]);
    return async () => {
      const data = await parseDocument({
        bytes,
        filename: file.split('/').pop() ?? file,
        contentType: undefined,
        format: format as FormatId,
        options: parseOptionsSchema.parse(JSON.parse(options)),
        warnings: [],
      });
      ocrPages ??= data.usage.ocrPages;
      return data.markdown ?? '';
    };
  }
  if (tool === 'pdfjs') {
    const { pdfjsText } = await import('./peers/pdfjs.ts');
    return () => pdfjsText.convert(file, bytes, {});
  }
  if (tool === 'anydoc') {
    const { formatFromExtension, toMarkdownBytes } = await import('@firecrawl/anydoc');
    const f = formatFromExtension(format);
    if (!f) throw new Error(`anydoc cannot read ${format}`);
    return () => toMarkdownBytes(bytes, f);
  }
  throw new Error(`unknown tool ${tool}`);
}

const convert = await converter();
const times: number[] = [];
const cpuTimes: number[] = [];
let markdown = '';
let peakRssMb = 0;
for (let i = 0; i < Math.max(1, Number(runs)); i++) {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const children0 = reapedChildrenCpuMs() ?? 0;
  markdown = await convert();
  const cpu = process.cpuUsage(cpu0);
  times.push(performance.now() - t0);
  cpuTimes.push((cpu.user + cpu.system) / 1000 + (reapedChildrenCpuMs() ?? 0) - children0);
  // The peak of the first conversion alone: later ones in the same process add garbage. VmHWM,
  // not resourceUsage().maxRSS: Linux carries ru_maxrss across exec, so a child of the bench
  // would report the bench's own RSS at the fork whenever that is the larger.
  if (i === 0) peakRssMb = (readStatusKb('self', 'VmHWM') ?? process.resourceUsage().maxRSS) / 1024;
}
const [ms, ...laterMs] = times;
const [cpuMs, ...laterCpuMs] = cpuTimes;
// The Markdown's digest, so the bench can check that settings meant to change only speed (the PDF
// threads) change nothing in the output.
const markdownSha256 = createHash('sha256').update(markdown).digest('hex');
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs, laterMs, laterCpuMs, markdownChars: markdown.length, markdownSha256, peakRssMb, ocrPages })}\n`,
);
