import type { Element, ElementContent, Root } from 'hast';
import type { Converter } from '../converter.ts';
import { decodeUpload } from './decode-upload.ts';

/** Blank lines (or a form feed, a page break in text files) end a paragraph. */
const PARAGRAPH_BREAK = /\n[ \t]*(?:\n[ \t]*)+|\f/;

/** Lines at least this long, and this close to the paragraph's longest, were wrapped. */
const WRAP_MIN_CHARS = 40;
const WRAP_SHARE = 0.7;
/** A line that starts like a list item or a bullet begins a line of its own. */
const ITEM_START = /^\s*(?:[-*+•·–]\s|\d{1,3}[.)]\s|[a-z][.)]\s)/i;

/**
 * Plain text → paragraphs. The text is text, not markup: a line that starts with `#` or `-`
 * comes out escaped, not as a heading or a list. Within a paragraph, a line that was wrapped
 * (long, near the paragraph's longest line, the next not starting an item) runs on into the
 * next; any other line break is kept, so addresses, verse and item lines keep their lines.
 */
export const convertPlainText: Converter = (input) => {
  const { text, contentType } = decodeUpload(input.bytes, 'text/plain');
  const children: Element[] = [];
  for (const block of text.split(PARAGRAPH_BREAK)) {
    const lines = block
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (lines.length > 0) children.push(paragraph(lines));
  }
  const tree: Root = { type: 'root', children };
  return { kind: 'document', tree, metadata: {}, contentType, baseUrl: input.url, warnings: [] };
};

function paragraph(lines: readonly string[]): Element {
  const longest = Math.max(...lines.map((l) => l.length));
  const wrapAt = Math.max(WRAP_MIN_CHARS, longest * WRAP_SHARE);
  const content: ElementContent[] = [];
  let run = lines[0]!;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (lines[i - 1]!.length >= wrapAt && !ITEM_START.test(line)) {
      run += ` ${line}`;
      continue;
    }
    content.push(
      { type: 'text', value: run },
      { type: 'element', tagName: 'br', properties: {}, children: [] },
    );
    run = line;
  }
  content.push({ type: 'text', value: run });
  return { type: 'element', tagName: 'p', properties: {}, children: content };
}
