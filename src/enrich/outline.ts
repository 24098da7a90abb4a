import type { Element, Root, RootContent } from 'hast';
import type { DataTable } from '../document/model.ts';
import { limits } from '../limits.ts';
import { INLINE } from '../transform/pii/tree-pieces.ts';

/**
 * The document as the offline methods read it: headings, blocks of text and tables, in reading
 * order. Built from the document tree in the worker (after main content and redaction, so it
 * holds exactly what the Markdown holds), never from rendered Markdown, which would have to be
 * parsed again.
 */
export interface TableRow {
  cells: string[];
  /** All of the row's cells are header cells (`th`), or the row is a data table's header. */
  header: boolean;
}

export type Block =
  | { kind: 'heading'; level: number; text: string }
  /** A paragraph, list item, or a definition list's term or definition; lines kept apart. */
  | { kind: 'text'; text: string; role: TextRole }
  | { kind: 'table'; rows: TableRow[] };

export interface Outline {
  blocks: Block[];
  /** The document was longer than the offline methods read (limits.enrichTextChars). */
  truncated: boolean;
}

const HEADING = /^h([1-6])$/;
export type TextRole = 'paragraph' | 'item' | 'term' | 'definition';
const ROLES: Record<string, TextRole> = { li: 'item', dt: 'term', dd: 'definition' };
/** Code is not prose and holds no labelled values a reader would mean. */
const SKIPPED = new Set(['pre', 'script', 'style', 'template']);

/** Spaces within lines collapsed, blank lines dropped. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** A subtree's text: line breaks for `br` and between blocks, checkboxes as ☑ / ☐. */
function textOf(node: RootContent): string {
  let out = '';
  const stack: RootContent[] = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.type === 'text') out += next.value;
    else if (next.type === 'element') {
      if (next.tagName === 'br') out += '\n';
      else if (next.tagName === 'input' && next.properties.type === 'checkbox')
        out += next.properties.checked ? '☑ ' : '☐ ';
      else {
        if (!INLINE.has(next.tagName)) out += '\n';
        for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
      }
    }
  }
  return tidy(out);
}

/** The rows of a table element, nested tables' rows excluded (their text stays in their cell). */
function tableRows(table: Element, budget: { chars: number; rows: number }): TableRow[] {
  const rows: TableRow[] = [];
  const stack: Element[] = [table];
  while (stack.length > 0 && budget.rows > 0 && budget.chars > 0) {
    const el = stack.pop()!;
    for (let i = el.children.length - 1; i >= 0; i--) {
      const child = el.children[i]!;
      if (child.type !== 'element') continue;
      if (child.tagName === 'tr') stack.push(child);
      else if (['thead', 'tbody', 'tfoot'].includes(child.tagName)) stack.push(child);
    }
    if (el.tagName !== 'tr') continue;
    const cells = el.children.filter(
      (c): c is Element => c.type === 'element' && (c.tagName === 'td' || c.tagName === 'th'),
    );
    const texts = cells.map((c) => textOf(c).replace(/\n/g, ' '));
    budget.rows--;
    budget.chars -= texts.reduce((n, t) => n + t.length, 0);
    rows.push({ cells: texts, header: cells.length > 0 && cells.every((c) => c.tagName === 'th') });
  }
  return rows;
}

function dataTableRows(table: DataTable, budget: { chars: number; rows: number }): TableRow[] {
  const rows: TableRow[] = [];
  if (table.header) rows.push({ cells: table.header.map((c) => c.trim()), header: true });
  for (const row of table.rows()) {
    if (budget.rows <= 0 || budget.chars <= 0) break;
    budget.rows--;
    budget.chars -= row.reduce((n, c) => n + c.length, 0);
    rows.push({ cells: row.map((c) => c.trim()), header: false });
  }
  return rows;
}

type Frame = { node: RootContent; exit: boolean };

/** The tree's headings, text blocks and tables, within limits.enrichTextChars and enrichTableRows. */
export function outline(tree: Root): Outline {
  const blocks: Block[] = [];
  const budget = { chars: limits.enrichTextChars, rows: limits.enrichTableRows };
  /** Open block elements, innermost last: what a flushed run of text belongs to. */
  const open: string[] = [];
  let text = '';
  const flush = () => {
    const t = tidy(text);
    text = '';
    if (!t) return;
    budget.chars -= t.length;
    const owner = open[open.length - 1] ?? 'p';
    const level = HEADING.exec(owner);
    if (level) blocks.push({ kind: 'heading', level: Number(level[1]), text: t.replace(/\n/g, ' ') });
    else blocks.push({ kind: 'text', text: t, role: ROLES[owner] ?? 'paragraph' });
  };
  const stack: Frame[] = [];
  for (let i = tree.children.length - 1; i >= 0; i--) stack.push({ node: tree.children[i]!, exit: false });
  while (stack.length > 0 && budget.chars > 0) {
    const { node, exit } = stack.pop()!;
    if (node.type === 'text') text += node.value;
    else if (node.type === 'dataTable') {
      flush();
      blocks.push({ kind: 'table', rows: dataTableRows(node, budget) });
    } else if (node.type === 'element') {
      const tag = node.tagName;
      if (INLINE.has(tag)) {
        if (!exit)
          for (let i = node.children.length - 1; i >= 0; i--)
            stack.push({ node: node.children[i]!, exit: false });
        continue;
      }
      if (tag === 'br') text += '\n';
      else if (tag === 'input' && node.properties.type === 'checkbox')
        text += node.properties.checked ? '☑ ' : '☐ ';
      else if (SKIPPED.has(tag)) flush();
      else if (tag === 'table') {
        flush();
        blocks.push({ kind: 'table', rows: tableRows(node, budget) });
      } else if (exit) {
        flush();
        open.pop();
      } else {
        flush();
        open.push(tag);
        stack.push({ node, exit: true });
        for (let i = node.children.length - 1; i >= 0; i--)
          stack.push({ node: node.children[i]!, exit: false });
      }
    }
  }
  flush();
  return { blocks, truncated: budget.chars <= 0 || budget.rows <= 0 };
}
