import type { Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { dataTableToHtml } from './data-table.ts';
import { segments } from './segments.ts';

/** The tree as HTML; `dataTable` nodes stream through their own renderer. */
export function renderHtml(tree: Root): string {
  const parts: string[] = [];
  for (const segment of segments(tree)) {
    const html = segment.kind === 'dataTable' ? dataTableToHtml(segment.table) : toHtml(segment.root).trim();
    if (/\S/.test(html)) parts.push(html);
  }
  return parts.join('\n\n');
}
