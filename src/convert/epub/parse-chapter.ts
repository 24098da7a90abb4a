import type { ElementContent } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { parse } from 'parse5';
import { decodeText } from '../../text/decode.ts';
import { emptyHead } from '../html/metadata.ts';
import { countStartTags, preparePage } from '../html/prepare.ts';

/** HTML elements that have no end tag; any other `<x/>` is an XHTML empty element. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** The encoding an XHTML document declares (XML declaration, else `<meta charset>`). */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  const xml = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml) return xml[1];
  return /<meta[^>]*?charset\s*=\s*["']?([^\s"'/;>]+)/i.exec(head)?.[1];
}

/**
 * Content documents are XHTML, where `<a id="p1"/>` is an empty element; an HTML parser would
 * read it as a start tag and swallow the rest of the paragraph into the link. Empty non-void
 * elements are spelled out as start and end tag. (`[^<>]` keeps the scan linear.)
 */
function expandEmptyElements(text: string): string {
  return text.replace(
    /<([A-Za-z][\w:.-]*)(\s[^<>]*?)?\/>/g,
    (whole, name: string, attrs: string | undefined) =>
      VOID.has(name.toLowerCase()) ? whole : `<${name}${attrs ?? ''}></${name}>`,
  );
}

/**
 * One spine document through the HTML converter's path: decoded with its declared encoding,
 * parsed as a browser would (parse5), with head, scripts, styles and comments dropped and deep
 * nesting flattened by `preparePage`. Returns the body's content. `beforeParse` sees the
 * start-tag count first, so the caller can refuse an element bomb before its tree exists.
 */
export function parseChapter(bytes: Uint8Array, beforeParse: (elements: number) => void): ElementContent[] {
  const { text } = decodeText(bytes, declaredEncoding(bytes));
  beforeParse(countStartTags(text));
  const body = preparePage(parse(expandEmptyElements(text)), emptyHead());
  if (!body) return [];
  const hast = fromParse5(body);
  return hast.type === 'element' ? hast.children : [];
}
