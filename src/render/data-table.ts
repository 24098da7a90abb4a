import { ConversionError } from '../convert/converter.ts';
import type { DataTable } from '../document/model.ts';

/**
 * Renderers for the `dataTable` node. A table can have a million rows, so rows are rendered
 * into strings one at a time, gathered in blocks, and joined once: no quadratic
 * concatenation, no tree of cells.
 */

/** Characters gathered before a block's row strings are joined into one. */
const BLOCK_CHARS = 1 << 20;

/** V8's longest string (2^29 - 24 UTF-16 units); past it `join` throws a bare RangeError. */
const MAX_STRING_LENGTH = 2 ** 29 - 24;

/** Collects rendered rows into one string, refusing cleanly before V8's string limit. */
class Output {
  private readonly blocks: string[] = [];
  private block: string[] = [];
  private blockLength = 0;
  private length = 0;

  push(line: string): void {
    this.length += line.length + 1;
    if (this.length > MAX_STRING_LENGTH) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The rendered table exceeds the longest possible output (${MAX_STRING_LENGTH} characters)`,
      );
    }
    this.block.push(line);
    this.blockLength += line.length;
    if (this.blockLength >= BLOCK_CHARS) this.flush();
  }

  private flush(): void {
    if (this.block.length === 0) return;
    this.blocks.push(this.block.join('\n'));
    this.block = [];
    this.blockLength = 0;
  }

  toString(): string {
    this.flush();
    return this.blocks.join('\n');
  }
}

const NEWLINES = /\r\n?|\n/g;
const RAW_HTML_START = /<(?=[A-Za-z/!?])/g;
const MARKDOWN_SPECIAL = /[|<\r\n]/;

/**
 * One GFM table cell: trimmed, `|` escaped (with any backslashes before it, which would
 * otherwise escape the escape), `<` escaped where it could open raw HTML (as
 * mdast-util-to-markdown does for the other formats), line breaks as `<br>`. Other Markdown
 * punctuation is data and is left alone.
 */
function markdownCell(value: string | undefined): string {
  if (value === undefined) return '';
  let cell = value.trim();
  if (!MARKDOWN_SPECIAL.test(cell)) return cell;
  if (cell.includes('|')) cell = cell.replace(/(\\*)\|/g, (_, slashes: string) => `${slashes}${slashes}\\|`);
  if (cell.includes('<')) cell = cell.replace(RAW_HTML_START, '\\<');
  if (cell.includes('\n') || cell.includes('\r')) cell = cell.replace(NEWLINES, '<br>');
  return cell;
}

// Rows are built with `join`, which makes one flat string: `+=` would leave a rope of two
// nodes per cell alive until the block is joined, gigabytes for wide tables.
function markdownRow(cells: readonly string[], columns: number): string {
  const out = new Array<string>(columns);
  for (let i = 0; i < columns; i++) out[i] = markdownCell(cells[i]);
  return `| ${out.join(' | ')} |`;
}

export function dataTableToMarkdown(t: DataTable): string {
  const columns = Math.max(1, t.columns);
  const out = new Output();
  // GFM requires a header row; a headerless table gets an empty one.
  out.push(markdownRow(t.header ?? [], columns));
  out.push(`|${' --- |'.repeat(columns)}`);
  for (const row of t.rows()) out.push(markdownRow(row, columns));
  return out.toString();
}

const HTML_SPECIAL = /[&<>"]/g;
const HTML_SPECIAL_TEST = /[&<>"\r\n]/;
const HTML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function htmlCell(value: string | undefined): string {
  if (value === undefined) return '';
  let cell = value.trim();
  if (!HTML_SPECIAL_TEST.test(cell)) return cell;
  cell = cell.replace(HTML_SPECIAL, (c) => HTML_ENTITY[c]!);
  if (cell.includes('\n') || cell.includes('\r')) cell = cell.replace(NEWLINES, '<br>');
  return cell;
}

function htmlRow(cells: readonly string[], columns: number, tag: 'th' | 'td'): string {
  const out = new Array<string>(columns);
  for (let i = 0; i < columns; i++) out[i] = htmlCell(cells[i]);
  return `<tr><${tag}>${out.join(`</${tag}><${tag}>`)}</${tag}></tr>`;
}

export function dataTableToHtml(t: DataTable): string {
  const columns = Math.max(1, t.columns);
  const out = new Output();
  out.push(t.header ? `<table><thead>${htmlRow(t.header, columns, 'th')}</thead><tbody>` : '<table><tbody>');
  for (const row of t.rows()) out.push(htmlRow(row, columns, 'td'));
  out.push('</tbody></table>');
  return out.toString();
}
