import type { DocumentMetadata, QuireDocument } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { buildTree, type Placement } from './layout/build-tree.ts';
import { describePages } from './layout/describe-pages.ts';
import { dropRunningHeaders } from './layout/running-headers.ts';
import { loadPdfJs, openPdf, oversizedImages, type PdfJs } from './load-document.ts';
import { readMetadata } from './metadata.ts';
import type { LaidPage, Mode } from './page-pipeline.ts';
import { readPages, warmHelper } from './read-pages.ts';
import { rebuildPdf } from './repair.ts';

/**
 * PDF → document model with pdf.js. Pages are read one at a time and released after their
 * layout is done (only the laid-out text is kept), so memory follows the output, not the
 * file. Running headers need every page, so they are removed once all pages are read.
 * A file whose structure pdf.js cannot follow (no usable catalog or page tree, or no page
 * that opens) is rebuilt from the objects found in its bytes and read again.
 */
export const convertPdf: Converter = async (input) => {
  const parser = input.options.parsers.find((p) => p.type === 'pdf');
  const mode: Mode = parser?.mode ?? 'auto';
  if (input.bytes.length >= limits.pdfWarmHelperBytes && mode !== 'ocr') warmHelper();
  const pdfjs = await loadPdfJs();
  const warnings: string[] = damage(input.bytes);
  let read: DocumentRead;
  try {
    read = await readDocument(pdfjs, input.bytes, mode, parser?.maxPages);
  } catch (err) {
    if (err instanceof ConversionError && err.code === 'ENCRYPTED_DOCUMENT') throw err;
    const rebuilt = rebuildPdf(input.bytes);
    if (!rebuilt) throw err;
    read = await readDocument(pdfjs, rebuilt.bytes, mode, parser?.maxPages);
    warnings.push(
      rebuilt.scanned
        ? `The PDF's page tree is damaged; its ${rebuilt.pages} page(s) were found by scanning its objects, in file order.`
        : "The PDF's catalog or cross-reference data is damaged; its pages were read from its objects.",
    );
  }
  const { pages, failed, count, total, metadata } = read;
  if (failed > 0) warnings.push(`${failed} of ${count} PDF pages could not be read and were skipped.`);
  if (read.ocrFailed > 0)
    warnings.push(`OCR failed on ${read.ocrFailed} page(s); their text layer was used as it is.`);
  if (read.oversizedStreams > 0)
    warnings.push(
      `Parts of the PDF that would inflate past ${limits.pdfStreamInflatedBytes / 2 ** 20} MiB were left out, unread.`,
    );
  if (count < total) warnings.push(`Only the first ${count} of ${total} pages were parsed (maxPages).`);
  // Fast mode never draws, so only the other modes lose text to a huge image (a scan).
  const huge = mode === 'fast' ? 0 : oversizedImages(input.bytes);
  if (huge > 0)
    warnings.push(`${huge} image(s) over ${limits.pdfImagePixels / 1e6} megapixels were left out, unread.`);
  const furniture = dropRunningHeaders(pages);
  metadata.numPages = pages.length;
  metadata.totalPages = total;
  // Page marks and page facts only when an output needs them: otherwise nothing extra is built.
  const paged = Boolean(parser?.pages || parser?.pageMarkdown || parser?.pageMarkers || parser?.blocks);
  const placements: Placement[] | undefined = parser?.blocks ? [] : undefined;
  const doc: QuireDocument = {
    kind: 'document',
    tree: buildTree(pages, { pageMarks: paged, placements }),
    metadata,
    contentType: 'application/pdf',
    baseUrl: input.url,
    warnings,
    ocrPages: read.ocrPages,
  };
  if (paged) doc.pages = describePages(pages, count, furniture, placements);
  return doc;
};

interface DocumentRead {
  pages: LaidPage[];
  failed: number;
  ocrPages: number;
  ocrFailed: number;
  oversizedStreams: number;
  count: number;
  total: number;
  metadata: DocumentMetadata;
}

/** Opens the bytes and lays out the pages asked for; fails when not one of them can be read. */
async function readDocument(
  pdfjs: PdfJs,
  bytes: Uint8Array,
  mode: Mode,
  maxPages: number | undefined,
): Promise<DocumentRead> {
  const pdf = await openPdf(pdfjs, bytes, mode);
  try {
    const metadata = await readMetadata(pdfjs, pdf.doc);
    const total = pdf.doc.numPages;
    const count = Math.min(total, maxPages ?? total);
    const { pages, failed, ocrPages, ocrFailed, oversizedStreams } = await readPages(
      pdfjs,
      pdf,
      bytes,
      count,
      mode,
    );
    if (failed.length === count && count > 0)
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        'No page of the PDF could be read; the file is damaged.',
      );
    return { pages, failed: failed.length, ocrPages, ocrFailed, oversizedStreams, count, total, metadata };
  } finally {
    await pdf.close();
  }
}

/**
 * Signs of a damaged file that pdf.js reads anyway by rebuilding its cross-reference table:
 * no header, no trailer at the end (truncated upload), or a `startxref` that points at no
 * cross-reference section. The text is kept, with a warning.
 */
function damage(bytes: Uint8Array): string[] {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 2048))).toString('latin1');
  const header = head.indexOf('%PDF-');
  if (header < 0) return ['The file has no PDF header; its content was recovered as far as possible.'];
  const startxref = [...tail.matchAll(/startxref\s+(\d+)\s+%%EOF/g)].pop();
  if (!startxref)
    return ['The PDF is truncated or its trailer is damaged; its content was recovered as far as possible.'];
  const at = header + Number(startxref[1]);
  const section = Buffer.from(bytes.subarray(at, at + 64)).toString('latin1');
  if (!/^\s*(xref|\d+\s+\d+\s+obj)/.test(section))
    return ["The PDF's cross-reference table is damaged; its objects were found by scanning the file."];
  return [];
}
