import type { Element, ElementContent } from 'hast';
import { BlockList } from './blocks.ts';

/** Merge state of a cell from `\clmgf`/`\clmrg` and `\clvmgf`/`\clvmrg`. */
const MERGE_NONE = 0;
const MERGE_FIRST = 1;
const MERGE_NEXT = 2;

interface CellDef {
  /** Right edge (`\cellxN`, twips): identifies the column across rows for vertical merges. */
  right: number;
  hmerge: number;
  vmerge: number;
}

/** A row definition (`\trowd` ... `\cellx`), as it stands when the row ends. */
export interface RowDef {
  cells: CellDef[];
  header: boolean;
}

/**
 * Row definitions by table depth, as `\trowd`, the cell properties and `\cellxN` write them;
 * a row takes the definition standing at its `\row` (Word repeats it there).
 */
export class RowDefinitions {
  private readonly defs: RowDef[] = [];
  private level = 1;
  private hmerge = MERGE_NONE;
  private vmerge = MERGE_NONE;

  begin(level: number): void {
    this.level = level;
    this.defs[level] = { cells: [], header: false };
    this.hmerge = MERGE_NONE;
    this.vmerge = MERGE_NONE;
  }

  /** `\clmgf`, `\clmrg`, `\clvmgf`, `\clvmrg` for the next cell. */
  merge(word: string): void {
    if (word === 'clmgf') this.hmerge = MERGE_FIRST;
    else if (word === 'clmrg') this.hmerge = MERGE_NEXT;
    else if (word === 'clvmgf') this.vmerge = MERGE_FIRST;
    else this.vmerge = MERGE_NEXT;
  }

  cell(right: number): void {
    this.current().cells.push({ right, hmerge: this.hmerge, vmerge: this.vmerge });
    this.hmerge = MERGE_NONE;
    this.vmerge = MERGE_NONE;
  }

  header(): void {
    this.current().header = true;
  }

  get(level: number): RowDef {
    return this.defs[level] ?? { cells: [], header: false };
  }

  /** The definition being written; `\trowd` may be missing in damaged files. */
  private current(): RowDef {
    let def = this.defs[this.level];
    if (!def) {
      def = { cells: [], header: false };
      this.defs[this.level] = def;
    }
    return def;
  }
}

interface Row {
  cells: BlockList[];
  def: RowDef;
}

/** One table being read: finished rows, the row in progress, the cell in progress. */
export class TableBuilder {
  private readonly rows: Row[] = [];
  private cells: BlockList[] = [];
  cell = new BlockList(false);

  closeCell(): void {
    this.cells.push(this.cell);
    this.cell = new BlockList(false);
  }

  closeRow(def: RowDef): void {
    if (!this.cell.isEmpty) this.closeCell();
    if (this.cells.length > 0) this.rows.push({ cells: this.cells, def });
    this.cells = [];
  }

  /** The table as hast; an unfinished last row is kept. Undefined when it has no cells. */
  finish(): Element | undefined {
    this.closeRow({ cells: [], header: false });
    if (this.rows.length === 0) return undefined;
    const head: Element[] = [];
    const body: Element[] = [];
    // The cell a vertical merge started in, by the right edge of its column.
    const mergeOrigin = new Map<number, Element>();
    let inHead = true;
    for (const row of this.rows) {
      inHead &&= row.def.header;
      const tag = inHead ? 'th' : 'td';
      const out: Element[] = [];
      let previous: Element | undefined;
      row.cells.forEach((content, i) => {
        const def = row.def.cells[i];
        if (def?.hmerge === MERGE_NEXT && previous) {
          previous.properties.colSpan = Number(previous.properties.colSpan ?? 1) + 1;
          return;
        }
        if (def?.vmerge === MERGE_NEXT) {
          const origin = mergeOrigin.get(def.right);
          if (origin) {
            origin.properties.rowSpan = Number(origin.properties.rowSpan ?? 1) + 1;
            return;
          }
        }
        const cell: Element = {
          type: 'element',
          tagName: tag,
          properties: {},
          children: cellContent(content),
        };
        if (def) {
          if (def.vmerge === MERGE_FIRST) mergeOrigin.set(def.right, cell);
          else mergeOrigin.delete(def.right);
        }
        out.push(cell);
        previous = cell;
      });
      if (out.length === 0) continue;
      (inHead ? head : body).push({ type: 'element', tagName: 'tr', properties: {}, children: out });
    }
    const children: Element[] = [];
    if (head.length > 0) children.push({ type: 'element', tagName: 'thead', properties: {}, children: head });
    if (body.length > 0) children.push({ type: 'element', tagName: 'tbody', properties: {}, children: body });
    return { type: 'element', tagName: 'table', properties: {}, children };
  }
}

/** A cell of one paragraph holds its inline content directly. */
function cellContent(content: BlockList): ElementContent[] {
  const blocks = content.finish();
  const only = blocks.length === 1 ? blocks[0] : undefined;
  if (only?.type === 'element' && only.tagName === 'p') return only.children;
  return blocks;
}
