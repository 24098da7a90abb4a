import type { Element, ElementContent } from 'hast';
import type { DetectedTable } from './page-content.ts';

/** A detected table as a hast table: header row cells as `th`, spans as colspan/rowspan. */
export function tableNode(table: DetectedTable): Element {
  const rows: Element[] = [];
  for (let r = 0; r < table.rows; r++)
    rows.push({ type: 'element', tagName: 'tr', properties: {}, children: [] });
  const cells = [...table.cells].sort((a, b) => a.row - b.row || a.col - b.col);
  for (const cell of cells) {
    const row = rows[cell.row];
    if (!row) continue;
    const header = table.header && cell.row === 0;
    const properties: Record<string, number> = {};
    if (cell.colSpan > 1) properties.colSpan = cell.colSpan;
    if (cell.rowSpan > 1) properties.rowSpan = cell.rowSpan;
    const children: ElementContent[] = cell.text ? [{ type: 'text', value: cell.text }] : [];
    row.children.push({ type: 'element', tagName: header ? 'th' : 'td', properties, children });
  }
  const body = rows.filter((r) => r.children.length > 0);
  const sections: Element[] = [];
  if (table.header && body[0] && rows[0] === body[0]) {
    sections.push({ type: 'element', tagName: 'thead', properties: {}, children: [body.shift()!] });
  }
  sections.push({ type: 'element', tagName: 'tbody', properties: {}, children: body });
  return { type: 'element', tagName: 'table', properties: {}, children: sections };
}
