import type { Element, ElementContent } from 'hast';
import { child, isElement, type XmlElement } from '../package/xml.ts';
import type { DocxContext } from './context.ts';

/** Rows and cells can be wrapped in content controls, custom XML or tracked insertions. */
const WRAPPERS = new Set(['w:sdt', 'w:sdtContent', 'w:customXml', 'w:ins', 'w:moveTo']);

function collect(el: XmlElement, name: string, out: XmlElement[]): XmlElement[] {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (c.name === name) out.push(c);
    else if (WRAPPERS.has(c.name)) collect(c, name, out);
  }
  return out;
}

function intVal(el: XmlElement | undefined, fallback: number): number {
  const n = Number(el?.attrs['w:val']);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function isOn(el: XmlElement | undefined): boolean {
  if (!el) return false;
  const v = el.attrs['w:val'];
  return v === undefined || !(v === '0' || v === 'false' || v === 'off');
}

/** A cell's blocks; a lone paragraph is unwrapped to its phrasing. */
function cellContent(tc: XmlElement, ctx: DocxContext): ElementContent[] {
  const blocks = ctx.blocks(tc.children, 'cell');
  const only = blocks[0];
  if (blocks.length === 1 && only?.type === 'element' && only.tagName === 'p') return only.children;
  return blocks;
}

/**
 * w:tbl → table. Horizontal merges (gridSpan) become colspan, vertical merges (vMerge
 * restart/continue) rowspan on the first cell; leading rows marked as repeating headers
 * (w:tblHeader) form the thead. Deleted rows (tracked changes) are dropped.
 */
export function table(tbl: XmlElement, ctx: DocxContext): Element {
  const head: Element[] = [];
  const body: Element[] = [];
  /** The cell that started a vertical merge, per grid column. */
  const origins: (Element | undefined)[] = [];
  for (const tr of collect(tbl, 'w:tr', [])) {
    const trPr = child(tr, 'w:trPr');
    if (trPr && child(trPr, 'w:del')) continue;
    const header = body.length === 0 && isOn(trPr && child(trPr, 'w:tblHeader'));
    const cells: Element[] = [];
    let col = 0;
    const before = intVal(trPr && child(trPr, 'w:gridBefore'), 0);
    for (let i = 0; i < before; i++) {
      cells.push({ type: 'element', tagName: header ? 'th' : 'td', properties: {}, children: [] });
      origins[col++] = undefined;
    }
    for (const tc of collect(tr, 'w:tc', [])) {
      const tcPr = child(tc, 'w:tcPr');
      const span = intVal(tcPr && child(tcPr, 'w:gridSpan'), 1);
      const vMerge = tcPr && child(tcPr, 'w:vMerge');
      const merge = vMerge ? (vMerge.attrs['w:val'] === 'restart' ? 'restart' : 'continue') : undefined;
      const origin = origins[col];
      if (merge === 'continue' && origin) {
        origin.properties.rowSpan = Number(origin.properties.rowSpan ?? 1) + 1;
        col += span;
        continue;
      }
      const properties: Element['properties'] = {};
      if (span > 1) properties.colSpan = span;
      const cell: Element = {
        type: 'element',
        tagName: header ? 'th' : 'td',
        properties,
        children: cellContent(tc, ctx),
      };
      cells.push(cell);
      for (let i = 0; i < span; i++) origins[col + i] = merge ? cell : undefined;
      col += span;
    }
    if (cells.length === 0) continue;
    const row: Element = { type: 'element', tagName: 'tr', properties: {}, children: cells };
    (header ? head : body).push(row);
  }
  const children: Element[] = [];
  if (head.length > 0) children.push({ type: 'element', tagName: 'thead', properties: {}, children: head });
  if (body.length > 0) children.push({ type: 'element', tagName: 'tbody', properties: {}, children: body });
  return { type: 'element', tagName: 'table', properties: {}, children };
}
