import type { Element } from 'hast';
import { h } from 'hastscript';
import type { DocumentMetadata, MetadataValue } from '../../document/model.ts';

const FIELDS: Array<[key: string, label: string]> = [
  ['title', 'Title'],
  ['author', 'Authors'],
  ['publisher', 'Publisher'],
  ['created', 'Date'],
  ['description', 'Description'],
];

const joined = (v: MetadataValue | undefined) => (Array.isArray(v) ? v.join(', ') : String(v ?? '')).trim();

/**
 * The book's title, authors, publisher, date and blurb as a short block before the first
 * chapter (`**Authors:** ...`, as MarkItDown writes it). A book's content documents often
 * carry none of these as text (the title page is an image, or absent), so without the block
 * the Markdown alone would not say which book it is.
 */
export function frontMatter(metadata: DocumentMetadata): Element[] {
  const out: Element[] = [];
  for (const [k, label] of FIELDS) {
    const value = joined(metadata[k]);
    if (value) out.push(h('p', [h('strong', `${label}:`), ` ${value}`]));
  }
  return out;
}
