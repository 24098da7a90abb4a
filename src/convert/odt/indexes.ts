import type { Element, ElementContent } from 'hast';
import { append, el } from '../odf/hast.ts';
import { child, type XmlElement } from '../package/xml.ts';

export const INDEX_BODIES = new Set([
  'text:table-of-content',
  'text:illustration-index',
  'text:table-index',
  'text:object-index',
  'text:user-index',
  'text:alphabetical-index',
  'text:bibliography',
]);

/** A page number after an entry's last tab: arabic or roman. */
const PAGE_NUMBER = /\t\s*[\divxlcdm]+\s*$/i;

/**
 * A table of contents or other index: its title (through `blocks`), then its entries as a
 * list of their text (`entryText`), without the page numbers that end them.
 */
export function convertIndex(
  node: XmlElement,
  blocks: (container: XmlElement) => ElementContent[],
  entryText: (entry: XmlElement) => string,
): ElementContent[] {
  const body = child(node, 'text:index-body');
  if (!body) return [];
  const out: ElementContent[] = [];
  let entries: Element | undefined;
  for (const entry of body.children) {
    if (typeof entry === 'string') continue;
    if (entry.name !== 'text:p') {
      entries = undefined;
      append(out, blocks({ name: 'index', attrs: {}, children: [entry] }));
      continue;
    }
    const text = entryText(entry).replace(PAGE_NUMBER, '').replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (!entries) {
      entries = el('ul', {}, []);
      out.push(entries);
    }
    entries.children.push(el('li', {}, [{ type: 'text', value: text }]));
  }
  return out;
}
