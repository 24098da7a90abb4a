import { limits } from '../../limits.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { buildTree } from './layout/build-tree.ts';
import { dropRunningHeaders } from './layout/running-headers.ts';
import { loadPdfJs, openPdf } from './load-document.ts';
import { readMetadata } from './metadata.ts';
import type { Mode } from './page-pipeline.ts';
import { readPages, warmHelper } from './read-pages.ts';

/**
 * PDF → document model with pdf.js. Pages are read one at a time and released after their
 * layout is done (only the laid-out text is kept), so memory follows the output, not the
 * file. Running headers need every page, so they are removed once all pages are read.
 */
export const convertPdf: Converter = async (input) => {
  const parser = input.options.parsers.find((p) => p.type === 'pdf');
  const mode: Mode = parser?.mode ?? 'auto';
  if (input.bytes.length >= limits.pdfWarmHelperBytes && mode !== 'ocr') warmHelper();
  const pdfjs = await loadPdfJs();
  const { task, doc } = await openPdf(pdfjs, input.bytes);
  const warnings: string[] = damage(input.bytes);
  try {
    const metadata = await readMetadata(pdfjs, doc);
    const total = doc.numPages;
    const count = Math.min(total, parser?.maxPages ?? total);
    const { pages, failed, ocrFailed } = await readPages(pdfjs, doc, input.bytes, count, mode);
    if (failed === count && count > 0)
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        'No page of the PDF could be read; the file is damaged.',
      );
    if (failed > 0) warnings.push(`${failed} of ${count} PDF pages could not be read and were skipped.`);
    if (ocrFailed > 0)
      warnings.push(`OCR failed on ${ocrFailed} page(s); their text layer was used as it is.`);
    if (count < total) warnings.push(`Only the first ${count} of ${total} pages were parsed (maxPages).`);
    dropRunningHeaders(pages);
    metadata.numPages = pages.length;
    metadata.totalPages = total;
    return {
      kind: 'document',
      tree: buildTree(pages),
      metadata,
      contentType: 'application/pdf',
      baseUrl: input.url,
      warnings,
    };
  } finally {
    await task.destroy().catch(() => {});
  }
};

/**
 * Signs of a damaged file that pdf.js reads anyway by rebuilding its cross-reference table:
 * no header, or no trailer at the end (truncated upload). The text is kept, with a warning.
 */
function damage(bytes: Uint8Array): string[] {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 2048))).toString('latin1');
  if (!head.includes('%PDF-'))
    return ['The file has no PDF header; its content was recovered as far as possible.'];
  if (!tail.includes('%%EOF') || !tail.includes('startxref'))
    return ['The PDF is truncated or its trailer is damaged; its content was recovered as far as possible.'];
  return [];
}
