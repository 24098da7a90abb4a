import type { Element, ElementContent, RootContent } from 'hast';
import { formatInfo } from '../../detect/formats.ts';
import { limits } from '../../limits.ts';
import type { Converter } from '../converter.ts';
import { blockTable, type OutputBudget } from './block-table.ts';
import { notesList } from './notes.ts';
import { readPackageWorkbook } from './read-package.ts';
import { readXlsWorkbook } from './read-xls.ts';
import { type Block, layoutSheet, type NoteAnchor, type Rows, type SheetLayout } from './sheet-layout.ts';
import type { WorkbookSheet } from './workbook.ts';

/**
 * Spreadsheets (XLSX, XLSM, XLSB, XLS, ODS) → every sheet in workbook order under an `<h2>` with
 * its name, hidden sheets left out unless all are hidden; each block of cells between empty
 * rows is a table whose first row is the header; cell comments follow their table as notes.
 */

function element(tagName: string, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties: {}, children };
}

/**
 * Names an application gives a new sheet. A workbook's only sheet under such a name gets no
 * heading: headings tell sheets apart and say what they hold, and "Sheet1" does neither.
 */
const DEFAULT_SHEET_NAME =
  /^(?:sheet|tabelle|feuil|hoja|foglio|planilha|blad|arkusz|munka|list|лист|工作表|シート|시트)\s*1$/i;

/** The sheets to show: the visible ones, or all of them when every sheet is hidden. */
function shownSheets(sheets: readonly WorkbookSheet[]): readonly WorkbookSheet[] {
  const visible = sheets.filter((s) => !s.hidden);
  return visible.length > 0 ? visible : sheets;
}

/**
 * Notes grouped by the block they follow: the last block starting at or above their row (the
 * first block for notes above every block), so that notes stay in reading order.
 */
function placeNotes(blocks: readonly Block[], notes: readonly NoteAnchor[]): NoteAnchor[][] {
  const byBlock = blocks.map((): NoteAnchor[] => []);
  let b = 0;
  for (const note of notes) {
    while (b + 1 < blocks.length && blocks[b + 1]!.r0 <= note.r) b++;
    byBlock[b]?.push(note);
  }
  return byBlock;
}

interface LaidOutSheet {
  name: string;
  rows: Rows;
  layout: SheetLayout;
}

/** The shown sheets that have content, laid out. */
function laidOutSheets(sheets: readonly WorkbookSheet[], warnings: string[]): LaidOutSheet[] {
  const out: LaidOutSheet[] = [];
  const unreadable: string[] = [];
  for (const { name, rows, merges } of shownSheets(sheets)) {
    if (!rows) {
      unreadable.push(name);
      continue;
    }
    const layout = layoutSheet(rows, merges);
    if (layout.overlappingMerges) {
      warnings.push(`Sheet "${name}" has overlapping merged ranges (invalid); they were ignored.`);
    }
    if (layout.outside > 0) {
      warnings.push(
        `Sheet "${name}" has ${layout.outside} cell${layout.outside === 1 ? '' : 's'} beyond the largest possible sheet (1,048,576 rows by 16,384 columns); ${layout.outside === 1 ? 'it was' : 'they were'} left out.`,
      );
    }
    if (layout.blocks.length > 0 || layout.notes.length > 0) out.push({ name, rows, layout });
  }
  if (unreadable.length > 0) warnings.push(unreadableWarning(unreadable));
  return out;
}

/** One warning for every sheet left out unread: a hostile workbook may list a million of them. */
function unreadableWarning(names: readonly string[]): string {
  const shown = names.slice(0, 10).map((n) => `"${n}"`);
  if (names.length > shown.length) shown.push(`${names.length - shown.length} more`);
  return names.length === 1
    ? `Sheet ${shown[0]} could not be read (its part is missing or damaged); it was left out.`
    : `${names.length} sheets could not be read (their parts are missing or damaged) and were left out: ${shown.join(', ')}.`;
}

/** One sheet's tables and notes; returns false when the output budget ran out inside it. */
function convertSheet(
  { name, rows, layout }: LaidOutSheet,
  budget: OutputBudget,
  out: RootContent[],
  warnings: string[],
): boolean {
  const byBlock = placeNotes(layout.blocks, layout.notes);
  for (const [i, block] of layout.blocks.entries()) {
    const table = blockTable(rows, block, budget);
    if (table) out.push(table.node);
    const overlapping = `Sheet "${name}" has overlapping merged ranges (invalid); they were ignored.`;
    if (table?.overlappingMerges && !warnings.includes(overlapping)) warnings.push(overlapping);
    const cutAt = table ? table.cutAtRow : block.r0;
    if (cutAt !== undefined) {
      warnings.push(
        `The output was cut at row ${cutAt + 1} of sheet "${name}": the Markdown would exceed ${limits.spreadsheetMarkdownBytes / 1024 / 1024} MiB (limits.spreadsheetMarkdownBytes); later rows and sheets were left out.`,
      );
      return false;
    }
    if (byBlock[i]!.length > 0) out.push(...notesList(byBlock[i]!));
  }
  if (layout.blocks.length === 0) out.push(...notesList(layout.notes));
  return true;
}

export const convertSpreadsheet: Converter = (input) => {
  const read = input.format === 'xls' ? readXlsWorkbook(input.bytes) : readPackageWorkbook(input.bytes);
  const warnings = [...read.warnings];
  const children: RootContent[] = [];
  const budget: OutputBudget = { remaining: limits.spreadsheetMarkdownBytes };
  const sheets = laidOutSheets(read.sheets, warnings);
  const headings = !(sheets.length === 1 && DEFAULT_SHEET_NAME.test(sheets[0]!.name.trim()));
  for (const sheet of sheets) {
    if (headings) children.push(element('h2', [{ type: 'text', value: sheet.name }]));
    if (!convertSheet(sheet, budget, children, warnings)) break;
  }
  return {
    kind: 'document',
    tree: { type: 'root', children },
    metadata: read.metadata,
    contentType: formatInfo(input.format).mimeTypes[0]!,
    baseUrl: input.url,
    warnings,
  };
};
