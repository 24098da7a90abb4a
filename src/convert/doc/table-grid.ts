import type { Element } from 'hast';

/**
 * Cell geometry of a table row (sprmTDefTable, [MS-DOC] 2.9.315 TDefTableOperand, in the
 * row-end paragraph): cell edges in twips and merge flags. Turned into colspan/rowspan: a
 * cell spanning several edges of the table's grid gets a colspan, horizontally merged cells
 * fold into the first, vertically merged ones into the cell above as rowspan.
 */
export interface CellDef {
  left: number;
  right: number;
  /** 0 none, 1 first of a merged range, 2-3 merged into the previous cell. */
  horzMerge: number;
  /** 0 none, 1 merged into the cell above, 3 first of a vertically merged range. */
  vertMerge: number;
}

const TC80_SIZE = 20;
/** Edges closer than this (twips, 1/20 pt) are one grid line: rows drawn by hand never align exactly. */
const SNAP = 30;

/** The operand of sprmTDefTable at `at` (after its 2-byte size) in `grpprl`. */
export function readTableDef(grpprl: Uint8Array, at: number, end: number): CellDef[] {
  const view = new DataView(grpprl.buffer, grpprl.byteOffset, grpprl.byteLength);
  const count = grpprl[at] ?? 0;
  const edges = at + 1;
  const tcs = edges + (count + 1) * 2;
  if (tcs > end) return [];
  const cells: CellDef[] = [];
  for (let i = 0; i < count; i++) {
    const tc = tcs + i * TC80_SIZE;
    const flags = tc + 2 <= end ? view.getUint16(tc, true) : 0;
    cells.push({
      left: view.getInt16(edges + i * 2, true),
      right: view.getInt16(edges + i * 2 + 2, true),
      horzMerge: flags & 3,
      vertMerge: (flags >> 5) & 3,
    });
  }
  return cells;
}

export interface TableRow {
  cells: Element[];
  defs: CellDef[] | undefined;
}

function gridLines(rows: readonly TableRow[]): number[] {
  const all = rows.flatMap((r) => r.defs!.flatMap((d) => [d.left, d.right])).sort((a, b) => a - b);
  const lines: number[] = [];
  for (const x of all) if (lines.length === 0 || x - lines[lines.length - 1]! > SNAP) lines.push(x);
  return lines;
}

function lineIndex(lines: readonly number[], x: number): number {
  let best = 0;
  for (let i = 1; i < lines.length; i++) if (Math.abs(lines[i]! - x) < Math.abs(lines[best]! - x)) best = i;
  return best;
}

/** Rows → `tr` elements, with spans when every row's geometry matches its cells. */
export function layoutRows(rows: readonly TableRow[]): Element[][] {
  if (!rows.every((r) => r.defs && r.defs.length === r.cells.length && r.cells.length > 0)) {
    return rows.map((r) => r.cells);
  }
  const lines = gridLines(rows);
  let above = new Map<number, Element>();
  return rows.map((row) => {
    const out: Element[] = [];
    const current = new Map<number, Element>();
    let previous: Element | undefined;
    row.cells.forEach((cell, i) => {
      const def = row.defs![i]!;
      const start = lineIndex(lines, def.left);
      const span = Math.max(1, lineIndex(lines, def.right) - start);
      const owner = above.get(start);
      if (def.vertMerge === 1 && owner) {
        owner.properties.rowSpan = Number(owner.properties.rowSpan ?? 1) + 1;
        current.set(start, owner);
        return;
      }
      if (def.horzMerge >= 2 && previous) {
        previous.properties.colSpan = Number(previous.properties.colSpan ?? 1) + span;
        return;
      }
      if (span > 1) cell.properties.colSpan = span;
      current.set(start, cell);
      out.push(cell);
      previous = cell;
    });
    above = current;
    return out;
  });
}
