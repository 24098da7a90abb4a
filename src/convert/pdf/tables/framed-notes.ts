import type { Box, TextRun } from '../page-content.ts';
import type { RunCell } from './stacked-rows.ts';

/** A caption's opening words: "Table 3", "Exhibit 19", "Figure 2.1". */
const CAPTION = /^(?:table|exhibit|figure|fig\.|chart)\s*[\dA-Z]/i;
/** A note's opening words: "Note:", "Sources:", "Exhibit reads:", "* Estimated". */
const NOTE = /^(?:notes?|sources?|[\p{L} ]{0,30}\breads?)\s*:|^[*†‡]/iu;

export interface FramedRows {
  cells: RunCell[];
  rows: number;
  /** Runs of the rows taken out: the caption above, the notes below, read as text. */
  released: number[];
  /** The frame less the rows taken out, so that the caption reads before the table, the notes after. */
  box: Box;
}

/**
 * A frame ruled round a table often holds its caption and its notes as rows across the whole
 * width: "Exhibit 19 …" above the header, "Note: …" and "Source: …" under the last row. They
 * are text about the table, not cells of it: the first row goes when it opens like a caption,
 * and the run of full-width rows at the end goes from the first that opens like a note.
 */
export function releaseCaptionAndNotes(
  runs: readonly TextRun[],
  cells: readonly RunCell[],
  rows: number,
  cols: number,
  box: Box,
): FramedRows {
  const fullWidth = (row: number): RunCell | undefined => {
    const inRow = cells.filter((c) => c.row === row);
    return inRow.length === 1 && inRow[0]!.colSpan === cols && inRow[0]!.rowSpan === 1 ? inRow[0] : undefined;
  };
  let first = 0;
  if (CAPTION.test(fullWidth(0)?.text ?? '')) first = 1;
  let end = rows;
  for (let r = rows - 1; r > first && fullWidth(r); r--) if (NOTE.test(fullWidth(r)!.text)) end = r;
  // What is left must still be a table: a header and a row at least.
  if ((first === 0 && end === rows) || end - first < 2) return { cells: [...cells], rows, released: [], box };
  const released: number[] = [];
  const kept: RunCell[] = [];
  let top = box.y;
  let bottom = box.y + box.height;
  for (const c of cells) {
    if (c.row >= first && c.row < end) {
      kept.push({ ...c, row: c.row - first });
      continue;
    }
    released.push(...c.ids);
    for (const i of c.ids) {
      const r = runs[i]!;
      if (c.row < first) top = Math.max(top, r.y + r.height);
      else bottom = Math.min(bottom, r.y);
    }
  }
  return {
    cells: kept,
    rows: end - first,
    released,
    box: { x: box.x, y: top, width: box.width, height: bottom - top },
  };
}

/** Whether every word of the first row is set in bold. */
export function firstRowBold(runs: readonly TextRun[], cells: readonly RunCell[]): boolean {
  return cells.every((c) => c.row !== 0 || c.ids.every((i) => runs[i]!.bold));
}
