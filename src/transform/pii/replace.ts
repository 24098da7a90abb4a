import type { PiiStyle } from './settings.ts';
import type { PiiBucket, PiiSpan } from './spans.ts';

/**
 * One piece of the text redaction reads: a text node's value, an attribute, a table cell, or a
 * separator (a block boundary, a line break) that belongs to nothing and is never changed.
 */
export interface Piece {
  text: string;
  /** Receives the redacted text; absent for separators. Called only when the text changed. */
  set?: (redacted: string) => void;
}

/** What a span becomes: `<EMAIL>`, one `*` per character, or nothing. */
export function replacement(original: string, bucket: PiiBucket, style: PiiStyle): string {
  if (style === 'tag') return `<${bucket}>`;
  if (style === 'mask') return '*'.repeat([...original].length);
  return '';
}

/**
 * Writes `spans` (offsets into the pieces' texts joined) into the pieces. A span may run over
 * several pieces (a name split by bold, a number over two runs of a Word paragraph): each piece
 * changes only its own part, so the tree around it stays as it was; with `tag`, the placeholder
 * goes where the span starts and the rest of it is removed.
 */
export function applySpans(pieces: readonly Piece[], spans: readonly PiiSpan[], style: PiiStyle): void {
  let spanIndex = 0;
  let offset = 0;
  for (const piece of pieces) {
    const start = offset;
    const end = offset + piece.text.length;
    offset = end;
    if (!piece.set) continue;
    while (spanIndex < spans.length && spans[spanIndex]!.end <= start) spanIndex++;
    let out = '';
    let cursor = start;
    for (let i = spanIndex; i < spans.length && spans[i]!.start < end; i++) {
      const span = spans[i]!;
      const from = Math.max(span.start, start);
      const to = Math.min(span.end, end);
      out += piece.text.slice(cursor - start, from - start);
      const part = piece.text.slice(from - start, to - start);
      out += style === 'tag' && from !== span.start ? '' : replacement(part, span.bucket, style);
      cursor = to;
    }
    if (cursor === start) continue;
    piece.set(out + piece.text.slice(cursor - start));
  }
}
