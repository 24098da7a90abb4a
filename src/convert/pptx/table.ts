import type { Element, ElementContent } from 'hast';
import { child, childrenNamed, type XmlElement } from '../package/xml.ts';

/**
 * A DrawingML table (a:tbl) → an HTML table. Merged cells: the cell that starts a merge has
 * gridSpan / rowSpan; the cells it covers say hMerge / vMerge and are dropped. A first row
 * styled as a header (a:tblPr firstRow) becomes `thead`.
 */
export function drawingTable(tbl: XmlElement, cellBlocks: (txBody: XmlElement) => ElementContent[]): Element {
  const header = child(tbl, 'a:tblPr')?.attrs.firstRow === '1';
  const rows: Element[] = [];
  for (const tr of childrenNamed(tbl, 'a:tr')) {
    const cells: Element[] = [];
    for (const tc of childrenNamed(tr, 'a:tc')) {
      if (tc.attrs.hMerge === '1' || tc.attrs.vMerge === '1') continue;
      const properties: Element['properties'] = {};
      const colspan = Number.parseInt(tc.attrs.gridSpan ?? '1', 10);
      const rowspan = Number.parseInt(tc.attrs.rowSpan ?? '1', 10);
      if (colspan > 1) properties.colSpan = colspan;
      if (rowspan > 1) properties.rowSpan = rowspan;
      const body = child(tc, 'a:txBody');
      const blocks = body ? cellBlocks(body) : [];
      const first = blocks[0];
      const children =
        blocks.length === 1 && first?.type === 'element' && first.tagName === 'p' ? first.children : blocks;
      const tag = header && rows.length === 0 ? 'th' : 'td';
      cells.push({ type: 'element', tagName: tag, properties, children });
    }
    rows.push({ type: 'element', tagName: 'tr', properties: {}, children: cells });
  }
  const sections: Element[] = [];
  if (header && rows.length > 0)
    sections.push({ type: 'element', tagName: 'thead', properties: {}, children: [rows.shift()!] });
  if (rows.length > 0) sections.push({ type: 'element', tagName: 'tbody', properties: {}, children: rows });
  return { type: 'element', tagName: 'table', properties: {}, children: sections };
}
