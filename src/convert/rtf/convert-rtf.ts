import type { Root } from 'hast';
import { ConversionError, type Converter } from '../converter.ts';
import { RtfInterpreter } from './interpreter.ts';

const HEADER = [0x7b, 0x5c, 0x72, 0x74, 0x66]; // {\rtf

/** Bytes searched for the `{\rtf` header (after a BOM, blank lines or mail/transfer junk). */
const HEADER_SEARCH = 1024;

function findHeader(bytes: Uint8Array): number {
  const limit = Math.min(bytes.length - HEADER.length, HEADER_SEARCH);
  outer: for (let i = 0; i <= limit; i++) {
    for (let j = 0; j < HEADER.length; j++) if (bytes[i + j] !== HEADER[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * RTF → document. A tokenizer and an interpreter written here (no library reads RTF tables
 * and pictures well): text in the document's code pages, headings from outline levels and
 * heading styles, Word and legacy lists, tables with merged and nested cells, links, notes,
 * embedded pictures, and the `\info` properties as metadata.
 */
export const convertRtf: Converter = (input) => {
  const start = findHeader(input.bytes);
  if (start < 0) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The file is not an RTF document: it has no {\\rtf header.',
    );
  }
  const content = new RtfInterpreter(input.bytes, start).run();
  const warnings = content.warnings;
  if (start > 0) warnings.unshift(`${start} bytes before the RTF header were ignored.`);
  if (content.truncated && content.body.length === 0 && Object.keys(content.metadata).length === 0) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The RTF document is truncated before any readable content.',
    );
  }
  const tree: Root = { type: 'root', children: content.body };
  return {
    kind: 'document',
    tree,
    metadata: content.metadata,
    contentType: 'application/rtf',
    baseUrl: input.url,
    warnings,
  };
};
