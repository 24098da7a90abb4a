import type { DetectedTable, TableCell, TextRun } from '../page-content.ts';
import { isHeaderRow } from './header.ts';
import type { Ruling } from './rulings.ts';
import { groupLines, isNumeric } from './text-lines.ts';
import { toWordLine, type Word, type WordLine } from './words.ts';

/** Vertical gap between lines, in ems, that ends a table. */
const ROW_GAP = 2.2;
/** Single-chunk lines (wrapped labels, group headings) tolerated in a row inside a table. */
const MAX_SINGLE_RUN = 3;
/** Rows with at least two filled cells that a borderless table needs: fewer is coincidence. */
const MIN_ROWS = 3;
/** A chunk this long opens no table: it is a sentence (a caption, a paragraph line). */
const SENTENCE_WORDS = 8;

/**
 * Borderless tables: consecutive lines whose cell-sized gaps line up into at least two columns,
 * with guards against reading two-column prose, bullet lists or a multi-column article as a table.
 */
export function findUnruledTables(
  runs: readonly TextRun[],
  free: readonly number[],
  rules: readonly Ruling[],
): DetectedTable[] {
  const lines = groupLines(runs, free).map((l) => toWordLine(runs, l));
  const tables: DetectedTable[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!opensTable(lines[i]!)) {
      i++;
      continue;
    }
    const end = blockEnd(lines, i);
    const previous = tables[tables.length - 1];
    const start = headingStart(lines, i, previous ? previous.box.y + previous.box.height : -1);
    for (const part of splitBlock(lines.slice(start, end))) {
      // Lines of running text between the rows belong to a neighbouring text column; a line
      // of dashes or dots typed across the table is a rule drawn with characters.
      const table = buildTable(
        part.filter((l) => (l.chunks > 1 || !sentence(l)) && !typedRule(l)),
        rules,
      );
      if (!table) continue;
      tables.push(table);
      // Typed rules across the table go with it rather than into the text after it.
      const { y, height } = table.box;
      for (const l of part)
        if (typedRule(l) && l.top >= y - l.fontSize && l.bottom <= y + height + l.fontSize)
          for (const w of l.words) if (!table.runs.includes(w.run)) table.runs.push(w.run);
    }
    i = end;
  }
  return tables;
}

function opensTable(line: WordLine): boolean {
  if (line.chunks < 2 || sentence(line)) return false;
  return !/^(table|figure|fig\.|exhibit|chart)\s*[\dA-Z]/i.test(
    line.words[0]!.text + (line.words[1] ? ` ${line.words[1].text}` : ''),
  );
}

/** Whether a line holds a stretch of words as long as a sentence. */
function sentence(line: WordLine): boolean {
  let n = 0;
  for (const w of line.words) {
    n = w.breakBefore ? 1 : n + 1;
    if (n > SENTENCE_WORDS) return true;
  }
  return false;
}

/**
 * Cuts a block into tables:
 * - where a line of running text crosses one of its column gaps. A text column beside a table
 *   stays clear of the table's gaps; a sentence running across them is a paragraph between two
 *   tables, or between numbered headings whose number and title only look like two cells;
 * - where the block's first line comes again at the same place: a second table with the same
 *   heading, stacked under the first.
 */
function splitBlock(block: readonly WordLine[]): WordLine[][] {
  const bounds = findBoundaries(block);
  const head = block[0]!;
  const text = (l: WordLine) => l.words.map((w) => w.text).join(' ');
  const headText = text(head);
  // Position first: it rules out most lines without joining their words. (A line without
  // words has no letter, so it never repeats the head.)
  const repeatsHead = (l: WordLine) => {
    if (!l.words.length || !head.words.length) return false;
    if (!(Math.abs(l.words[0]!.x0 - head.words[0]!.x0) < l.fontSize)) return false;
    const t = text(l);
    return t === headText && /\p{L}/u.test(t);
  };
  const parts: WordLine[][] = [[]];
  for (const line of block) {
    const crosses =
      line.chunks === 1 &&
      sentence(line) &&
      bounds.some(
        (b) =>
          line.words[0]!.x0 < b - line.fontSize && line.words[line.words.length - 1]!.x1 > b + line.fontSize,
      );
    if (crosses) parts.push([]);
    else {
      if (line !== head && repeatsHead(line)) parts.push([]);
      parts[parts.length - 1]!.push(line);
    }
  }
  return parts.filter((p) => p.some((l) => l.chunks > 1));
}

/** A line of nothing but dashes, underscores, equals signs or dots. */
function typedRule(line: WordLine): boolean {
  return line.words.every((w) => /^[-_=.·─━–—]{3,}$/.test(w.text));
}

/**
 * Column headings spanning several columns ("Year Ended" over the years) sit on their own
 * short lines just above the first multi-chunk line, indented past the row labels.
 */
function headingStart(lines: readonly WordLine[], first: number, floor: number): number {
  let start = first;
  const left = lines[first]!.words[0]!.x0;
  for (let k = first - 1; k >= 0 && k >= first - 2; k--) {
    const l = lines[k]!;
    if (l.top <= floor || l.chunks !== 1 || l.words.length > 4 || l.words[0]!.x0 <= left + l.fontSize) break;
    if (lines[k + 1]!.top - l.bottom > l.fontSize) break;
    start = k;
  }
  return start;
}

/** Index after the last multi-chunk line of the block starting at `start`. */
function blockEnd(lines: readonly WordLine[], start: number): number {
  let last = start;
  let singles = 0;
  for (let k = start + 1; k < lines.length; k++) {
    const gap = lines[k]!.top - lines[k - 1]!.bottom;
    if (gap > ROW_GAP * Math.max(lines[k]!.fontSize, lines[k - 1]!.fontSize)) break;
    if (lines[k]!.chunks >= 2) {
      last = k;
      singles = 0;
    } else if (!sentence(lines[k]!) && ++singles > MAX_SINGLE_RUN) break;
  }
  return last + 1;
}

/**
 * Column boundaries (x positions, ascending): vertical strips that the words of almost every
 * multi-chunk line leave empty, kept where lines really break into cells there. Words of a
 * few lines may cross a strip (spanning headings); a strip no line breaks at is a word space.
 */
function findBoundaries(lines: readonly WordLine[]): number[] {
  const multi = lines.filter((l) => l.chunks >= 2);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const l of multi) {
    lo = Math.min(lo, l.words[0]!.x0);
    hi = Math.max(hi, l.words[l.words.length - 1]!.x1);
  }
  const bins = Math.min(20_000, Math.ceil(hi - lo) + 2);
  const scale = bins / (hi - lo + 2);
  const cover = new Int32Array(bins + 1);
  for (const l of multi) {
    for (const w of l.words) {
      cover[Math.max(0, Math.floor((w.x0 - lo) * scale))]!++;
      cover[Math.min(bins, Math.ceil((w.x1 - lo) * scale))]!--;
    }
  }
  const allowance = Math.floor(multi.length * 0.1);
  const gaps: [number, number][] = [];
  let run = 0;
  let open = -1;
  for (let b = 0; b < bins; b++) {
    run += cover[b]!;
    if (run <= allowance && open < 0) open = b;
    else if (run > allowance && open >= 0) {
      if (open > 0) gaps.push([lo + open / scale, lo + b / scale]);
      open = -1;
    }
  }
  const bounds: number[] = [];
  for (const [g0, g1] of gaps) {
    const mid = (g0 + g1) / 2;
    let support = 0;
    for (const l of multi) {
      const k = after(l.words, mid);
      if (
        k > 0 &&
        k < l.words.length &&
        l.words[k]!.breakBefore &&
        l.words[k - 1]!.x1 <= g1 &&
        l.words[k]!.x0 >= g0
      )
        support++;
    }
    if (support >= Math.max(2, multi.length * 0.25)) bounds.push(mid);
  }
  return bounds;
}

/** Index of the first word whose centre is right of x. */
function after(words: readonly Word[], x: number): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((words[mid]!.x0 + words[mid]!.x1) / 2 <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function columnOf(bounds: readonly number[], x: number): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Cell {
  words: Word[];
  /** Columns covered (1 normally, 0 when covered by a span from the left). */
  span: number;
}

interface Row {
  top: number;
  bottom: number;
  cells: Cell[];
}

function buildTable(block: readonly WordLine[], rules: readonly Ruling[]): DetectedTable | null {
  const bounds = findBoundaries(block);
  if (!bounds.length) return null;
  const all = toRows(block, bounds);
  // A prose column at the edge is a neighbouring text column of the page, not part of the table.
  let from = 0;
  let to = bounds.length + 1;
  while (to - from > 2 && proseColumn(all, from)) from++;
  while (to - from > 2 && proseColumn(all, to - 1)) to--;
  const rows = cutTail(
    all
      .map((r) => ({ ...r, cells: sliceCells(r.cells, from, to) }))
      .filter((r) => r.cells.some((c) => c.words.length)),
  );
  const cols = rows[0]?.cells.length ?? 0;
  if (cols < 2 || !plausible(rows, cols)) return null;

  const cells: TableCell[] = [];
  const used = new Set<number>();
  let x0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < cols; c++) {
      const cell = rows[r]!.cells[c];
      if (cell!.span === 0) continue;
      for (const w of cell!.words) {
        used.add(w.run);
        x0 = Math.min(x0, w.x0);
        x1 = Math.max(x1, w.x1);
      }
      cells.push({ row: r, col: c, rowSpan: 1, colSpan: cell!.span, text: textOf(cell!) });
    }
  }
  const top = rows[0]!.top;
  const bottom = rows[rows.length - 1]!.bottom;
  const bold = (r: Row) => r.cells.every((c) => c.words.every((w) => w.bold));
  const headBold = bold(rows[0]!) && rows.slice(1).some((r) => !bold(r));
  const ruledOff =
    rows.length > 1 &&
    rules.some(
      (h) => h.pos > rows[0]!.bottom - 1 && h.pos < rows[1]!.top + 1 && h.to - h.from > (x1 - x0) * 0.5,
    );
  return {
    box: { x: x0, y: top, width: x1 - x0, height: bottom - top },
    rows: rows.length,
    cols,
    cells,
    header: isHeaderRow(cells, headBold || ruledOff),
    runs: [...used],
  };
}

/** The last row or two, after a gap well beyond the table's row spacing, are a note or a page footer. */
function cutTail(rows: Row[]): Row[] {
  if (rows.length < 4) return rows;
  const gaps: number[] = [];
  for (let k = 1; k < rows.length; k++) gaps.push(rows[k]!.top - rows[k - 1]!.bottom);
  const usual = median([...gaps]);
  const em = rows[0]!.bottom - rows[0]!.top;
  for (let k = rows.length - 2; k < rows.length; k++) {
    if (rows[k]!.top - rows[k - 1]!.bottom > Math.max(3 * usual, usual + 1.2 * em)) return rows.slice(0, k);
  }
  return rows;
}

function sliceCells(cells: readonly Cell[], from: number, to: number): Cell[] {
  const out = cells.slice(from, to).map((c) => ({ ...c }));
  if (out[0]!.span === 0) out[0]!.span = 1;
  for (let c = 0; c < out.length; c++) out[c]!.span = Math.min(out[c]!.span, out.length - c);
  return out;
}

function textOf(cell: Cell): string {
  return cell.words.map((w) => w.text).join(' ');
}

const VALUE = /^[-+−–—(]?[$€£¥]?[\d.,]+%?\)?$|^[-–—]$/;

/**
 * Places each line's words into columns and merges continuation lines into the row above.
 * Words of one chunk stay together (spanning columns) unless both sides of a boundary are values
 * set a single space apart ("3,051 2,667").
 */
function toRows(block: readonly WordLine[], bounds: readonly number[]): Row[] {
  const cols = bounds.length + 1;
  const rows: Row[] = [];
  for (const line of block) {
    const cells: Cell[] = Array.from({ length: cols }, () => ({ words: [], span: 1 }));
    let pieceStart = 0;
    const ws = line.words;
    for (let k = 1; k <= ws.length; k++) {
      const split =
        k === ws.length ||
        ws[k]!.breakBefore ||
        (columnOf(bounds, centre(ws[k]!)) !== columnOf(bounds, centre(ws[k - 1]!)) &&
          VALUE.test(ws[k]!.text) &&
          VALUE.test(ws[k - 1]!.text));
      if (!split) continue;
      place(cells, bounds, ws.slice(pieceStart, k));
      pieceStart = k;
    }
    const row: Row = { top: line.top, bottom: line.bottom, cells };
    const prev = rows[rows.length - 1];
    if (prev && continues(prev, row, line.fontSize)) {
      for (let c = 0; c < cols; c++) {
        if (!cells[c]!.words.length) continue;
        let to = c;
        while (to > 0 && prev.cells[to]!.span === 0) to--;
        prev.cells[to]!.words.push(...cells[c]!.words);
      }
      prev.bottom = Math.max(prev.bottom, row.bottom);
    } else rows.push(row);
  }
  return rows;
}

function centre(w: Word): number {
  return (w.x0 + w.x1) / 2;
}

function place(cells: Cell[], bounds: readonly number[], piece: Word[]): void {
  const first = piece.length > 1 ? columnOf(bounds, piece[0]!.x1) : columnOf(bounds, centre(piece[0]!));
  const last = piece.length > 1 ? columnOf(bounds, piece[piece.length - 1]!.x0) : first;
  let at = first;
  while (at > 0 && cells[at]!.span === 0) at--;
  cells[at]!.words.push(...piece);
  for (let c = first + 1; c <= last; c++) {
    if (cells[c]!.words.length || cells[c]!.span === 0) break;
    cells[c]!.span = 0;
    cells[at]!.span++;
  }
}

/**
 * A line continues the row above when it sits close under it and either leaves the first column
 * empty (wrapped text of other cells, second header line) or only wraps the first cell's text.
 */
function continues(prev: Row, row: Row, fontSize: number): boolean {
  if (row.top - prev.bottom > 0.6 * fontSize) return false;
  const filled = row.cells.map((c) => c.words.length > 0);
  // A heading over several columns stays above the headings it groups.
  if (
    prev.cells.filter((c) => c.words.length).length === 1 &&
    !prev.cells[0]!.words.length &&
    filled.filter(Boolean).length >= 2
  )
    return false;
  if (!filled[0]) {
    // Header lines above the first row label, values beside a label set on the line above,
    // or wrapped text (lowercase start, or a cell above ending mid-phrase).
    if (!prev.cells[0]!.words.length || prev.cells.every((c, k) => k === 0 || !c.words.length)) return true;
    return row.cells.some((c, k) => c.words.length > 0 && wraps(textOf(prev.cells[k]!), textOf(c)));
  }
  if (filled.slice(1).some(Boolean)) return false;
  return wraps(textOf(prev.cells[0]!), textOf(row.cells[0]!));
}

/** Whether `text` reads as the wrapped rest of `above`. */
function wraps(above: string, text: string): boolean {
  return above !== '' && (/^[a-z(]/.test(text) || /[-,&/]$|\b(and|or|of|the|for|in|to)$/i.test(above));
}

function median(values: number[]): number {
  if (!values.length) return 0;
  values.sort((a, b) => a - b);
  return values[values.length >> 1]!;
}

/**
 * A paragraph cut into lines by a neighbouring column: most cells carry on the sentence of
 * the cell above (lowercase start), where table rows each start afresh.
 */
function flowingColumn(rows: readonly Row[], c: number): boolean {
  const texts = rows.map((r) => textOf(r.cells[c]!)).filter(Boolean);
  if (texts.length < 3) return false;
  let carried = 0;
  const long = (t: string) => t.split(' ').length >= 4;
  for (let k = 1; k < texts.length; k++)
    if (/^[a-z]/.test(texts[k]!) && long(texts[k]!) && long(texts[k - 1]!)) carried++;
  return carried * 2 >= texts.length - 1;
}

/** A column of running text: its cells long sentences. */
function proseColumn(rows: readonly Row[], c: number): boolean {
  const cells = rows.map((r) => r.cells[c]!).filter((cell) => cell.words.length);
  if (cells.length < 2) return false;
  const width = (cell: Cell) => cell.words[cell.words.length - 1]!.x1 - cell.words[0]!.x0;
  return median(cells.map((cell) => cell.words.length)) >= 6 && median(cells.map(width)) > 150;
}

function plausible(rows: readonly Row[], cols: number): boolean {
  if (rows.length < 2) return false;
  const filledIn = (r: Row) => r.cells.filter((c) => c.words.length).length;
  if (rows.filter((r) => filledIn(r) >= 2).length < MIN_ROWS) return false;
  let prose = 0;
  for (let c = 0; c < cols; c++) {
    if (flowingColumn(rows, c)) return false;
    if (proseColumn(rows, c)) prose++;
  }
  if (prose >= 2 || (prose === 1 && cols === 2)) return false;
  const firsts = rows.map((r) => textOf(r.cells[0]!)).filter(Boolean);
  const seconds = rows.map((r) => textOf(r.cells[1]!)).filter(Boolean);
  // Bullets or enumerators beside text are a list, not a table.
  if (
    cols === 2 &&
    firsts.every((t) => /^([•·▪●○◦■□➢►*–-]|\(?[0-9ivxIVX]{1,4}[.)]|\(?[a-zA-Z][.)])$/.test(t))
  )
    return false;
  // Line numbers beside text (transcripts, legal drafts, code listings).
  if (
    cols === 2 &&
    firsts.every((t) => /^\d{1,4}$/.test(t)) &&
    seconds.filter(isNumeric).length < seconds.length / 2
  )
    return false;
  let cellsFilled = 0;
  let numeric = 0;
  let wide = 0;
  for (const r of rows) {
    let n = 0;
    for (const c of r.cells) {
      if (!c.words.length) continue;
      n++;
      cellsFilled++;
      if (isNumeric(textOf(c))) numeric++;
    }
    if (n >= 3) wide++;
  }
  if (cellsFilled < rows.length * cols * 0.4) return false;
  // Two short columns with no numbers and no third column are as often a layout as a table.
  return wide >= 2 || numeric >= cellsFilled * 0.2;
}
