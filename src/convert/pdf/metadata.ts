import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DocumentMetadata } from '../../document/model.ts';
import type { PdfJs } from './load-document.ts';

/** Info-dictionary keys copied as they are, under the model's names. */
const INFO_KEYS: [string, string][] = [
  ['Title', 'title'],
  ['Author', 'author'],
  ['Subject', 'subject'],
  ['Creator', 'creator'],
  ['Producer', 'producer'],
];

/** XMP properties that fill in what the info dictionary lacks. */
const XMP_KEYS: [string, string][] = [
  ['dc:title', 'title'],
  ['dc:creator', 'author'],
  ['dc:description', 'subject'],
  ['pdf:keywords', 'keywords'],
  ['xmp:creatortool', 'creator'],
  ['pdf:producer', 'producer'],
];

function clean(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Info strings often carry NULs and padding from broken writers.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  const text = value.replace(/[\u0000-\u001f\ufffd]+/g, ' ').trim();
  return text || undefined;
}

/** The document's own properties: info dictionary first, XMP for what it lacks. */
export async function readMetadata(pdfjs: PdfJs, doc: PDFDocumentProxy): Promise<DocumentMetadata> {
  const metadata: DocumentMetadata = {};
  let info: Record<string, unknown> = {};
  let xmp: { get(name: string): unknown } | undefined;
  try {
    const meta = await doc.getMetadata();
    info = (meta.info ?? {}) as Record<string, unknown>;
    xmp = meta.metadata ?? undefined;
  } catch {
    // Unreadable metadata never costs the text.
  }
  for (const [key, name] of INFO_KEYS) {
    const value = clean(info[key]);
    if (value) metadata[name] = value;
  }
  const keywords = clean(info.Keywords);
  if (keywords) metadata.keywords = keywords;
  for (const [key, name] of XMP_KEYS) {
    if (metadata[name]) continue;
    const raw = xmp?.get(key);
    const value = clean(Array.isArray(raw) ? raw.join(', ') : raw);
    if (value) metadata[name] = value;
  }
  const language = clean(info.Language);
  if (language) metadata.language = language;
  for (const [key, name] of [
    ['CreationDate', 'created'],
    ['ModDate', 'modified'],
  ] as const) {
    const date = pdfDate(pdfjs, info[key]);
    if (date) metadata[name] = date;
  }
  return metadata;
}

function pdfDate(pdfjs: PdfJs, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const date = pdfjs.PDFDateString.toDateObject(value);
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}
