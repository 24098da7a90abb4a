import type { ElementContent } from 'hast';
import { BlockList, type ParagraphRole } from './blocks.ts';
import { Paragraph } from './inline.ts';
import { type RowDef, TableBuilder } from './tables.ts';

/**
 * One stream of text (the body, or a note): the paragraph being read, the blocks so far,
 * and the tables open at each nesting level (`\itapN`; index 0 is the outermost table).
 */
export class Flow {
  para = new Paragraph();
  private readonly main: BlockList;
  private readonly tables: TableBuilder[] = [];

  constructor(allowCodeBlocks: boolean) {
    this.main = new BlockList(allowCodeBlocks);
  }

  /**
   * Ends the current paragraph at table depth `level` (0 outside tables): tables deeper
   * than that are finished first, missing ones opened. Empty paragraphs place nothing.
   */
  endParagraph(level: number, role: (para: Paragraph) => ParagraphRole): void {
    this.toLevel(level);
    const para = this.para;
    this.para = new Paragraph();
    if (!para.hasContent) return;
    this.target(level).addParagraph(para, role(para));
  }

  /** `\cell` / `\nestcell`: the paragraph in progress belongs to the cell, which ends. */
  endCell(level: number, role: (para: Paragraph) => ParagraphRole): void {
    this.endParagraph(level, role);
    this.tables[level - 1]!.closeCell();
  }

  /** `\row` / `\nestrow`; text after the last `\cell` still belongs to the row. */
  endRow(level: number, def: RowDef, role: (para: Paragraph) => ParagraphRole): void {
    if (this.tables.length < level) return;
    if (this.para.hasContent) this.endParagraph(level, role);
    this.toLevel(level);
    this.tables[level - 1]!.closeRow(def);
  }

  finish(): ElementContent[] {
    this.toLevel(0);
    return this.main.finish();
  }

  private target(level: number): BlockList {
    return level === 0 ? this.main : this.tables[level - 1]!.cell;
  }

  private toLevel(level: number): void {
    while (this.tables.length > level) {
      const table = this.tables.pop()!.finish();
      if (table) this.target(this.tables.length).addBlock(table);
    }
    while (this.tables.length < level) this.tables.push(new TableBuilder());
  }
}
