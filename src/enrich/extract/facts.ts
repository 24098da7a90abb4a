import type { Block, Outline } from '../outline.ts';
import type { Habits } from './coerce.ts';

/**
 * What a document states about itself, found by its structure rather than its wording: labelled
 * values (`Invoice number: 123`, a two-cell table row, a definition list's term and definition,
 * a heading over a short paragraph, the document's own properties), tables with a header row
 * (records), and sections under headings.
 */
export interface Fact {
  label: string;
  value: string;
  /** The block it was read from, so that a section's facts can be told apart. */
  block: number;
  /**
   * How plainly the document pairs label and value: 1 for a label in text or a table, less for a
   * heading over a paragraph, least for the file's properties (often a template's leftovers).
   */
  strength: number;
}

export interface RecordTable {
  header: string[];
  rows: string[][];
  block: number;
}

export interface Section {
  heading: string;
  level: number;
  /** The heading's block; the section runs to `end` (exclusive). */
  block: number;
  end: number;
}

export interface Facts {
  facts: Fact[];
  tables: RecordTable[];
  sections: Section[];
  blocks: Block[];
  judge: LabelJudge;
  habits: Habits;
}

/** `Label: value`, the label short and not itself a sentence. */
const LABELLED = /^([^:：]{1,60}?)\s*[:：]\s*(.*)$/;
/** `Label ........ value`, as tables of contents and price lists are set. */
const LEADERS = /^(.{1,60}?)\s*(?:\.{3,}|…+)\s*(.+)$/;

function isLabel(label: string, value: string): boolean {
  // A label may end in an abbreviation's full stop ("Invoice No."), not in a sentence's.
  if (!/\p{L}/u.test(label) || /[!?]$/.test(label) || /\p{L}{5,}\.$/u.test(label)) return false;
  if (label.split(/\s+/).length > 8) return false;
  // A URL (`https://`) or a time of day (`10:30`) is not a label and its value.
  if (value.startsWith('//') || (/\d$/.test(label) && /^\d/.test(value))) return false;
  return true;
}

function splitLabelled(piece: string): { label: string; value: string } | undefined {
  const m = LABELLED.exec(piece) ?? LEADERS.exec(piece);
  if (!m) return undefined;
  const label = m[1]!.replace(/^[-*•☑☐]\s*/, '').trim();
  const value = m[2]!.trim();
  return isLabel(label, value) ? { label, value } : undefined;
}

/** Several pairs on one line when the document separates them (`Date: 1 May | Ref: A-7`). */
function pieces(line: string): string[] {
  return line.split(/\s+[|•·]\s+/);
}

/** How well a phrase names something the schema asks for (0-1): it tells labels from values. */
export type LabelJudge = (label: string) => number;

/** Colons that end a label: after a word, `#` or `.`, and before a space or the line's end. */
const LABEL_END = /(?<=[\p{L}#.)])\s*[:：](?=\s|$)/gu;

/**
 * Where the text between two colons turns from one value into the next label, in a line that
 * runs several pairs together (`Invoice number: 42 Invoice date: 5 March` — what a PDF's text
 * layer makes of a block of fields). The label is the run of words before the colon that best
 * names a property the schema asks for, else its shortest run that starts with a capital.
 */
function splitValueAndLabel(segment: string, judge: LabelJudge): [string, string] {
  const words = segment.split(' ');
  let best: { k: number; score: number } | undefined;
  for (let k = 1; k <= Math.min(5, words.length - 1); k++) {
    const label = words.slice(-k);
    if (label.some((w) => /\d/.test(w)) || !/^[\p{Lu}#]/u.test(label[0]!)) continue;
    const score = judge(label.join(' '));
    if (!best || score > best.score) best = { k, score };
  }
  const k = best?.k ?? 1;
  return [words.slice(0, -k).join(' '), words.slice(-k).join(' ')];
}

function runOnPairs(line: string, judge: LabelJudge): { label: string; value: string }[] | undefined {
  const ends = [...line.matchAll(LABEL_END)].map((m) => ({ at: m.index, after: m.index + m[0].length }));
  if (ends.length < 2) return undefined;
  const pairs: { label: string; value: string }[] = [];
  let label = line.slice(0, ends[0]!.at).trim();
  for (let i = 0; i < ends.length; i++) {
    const segment = line.slice(ends[i]!.after, ends[i + 1]?.at ?? line.length).trim();
    const [value, next] = i + 1 < ends.length ? splitValueAndLabel(segment, judge) : [segment, ''];
    if (isLabel(label, value)) pairs.push({ label, value });
    label = next;
  }
  return pairs;
}

/**
 * A line that starts with what plainly names a property of the schema, without a colon
 * (`Receipt no. 000-7781`): the rest of the line is its value, when it holds a digit.
 */
function unmarkedLabel(line: string, block: number, facts: Facts): void {
  const words = line.split(' ');
  for (let k = Math.min(4, words.length - 1); k >= 1; k--) {
    const label = words.slice(0, k).join(' ');
    const value = words.slice(k).join(' ');
    if (/\d/.test(value) && !/\d/.test(label) && facts.judge(label) >= 0.9) {
      facts.facts.push({ label, value, block, strength: 0.9 });
      return;
    }
  }
}

/**
 * A block's labelled lines. A label with nothing after it (`Bill to:`) takes the lines that
 * follow it, up to the next label, or else what `following` gives: the next paragraph, or the
 * list that follows.
 */
function labelledLines(text: string, following: () => string, block: number, facts: Facts): void {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    for (const piece of pieces(lines[i]!)) {
      const several = runOnPairs(piece, facts.judge);
      if (several) {
        for (const pair of several) facts.facts.push({ ...pair, block, strength: 1 });
        continue;
      }
      const pair = splitLabelled(piece);
      if (!pair) {
        unmarkedLabel(piece, block, facts);
        continue;
      }
      let value = pair.value;
      if (!value) {
        const rest: string[] = [];
        for (let j = i + 1; j < lines.length && !splitLabelled(lines[j]!); j++) rest.push(lines[j]!);
        value = rest.join('\n');
        if (!value) value = following();
      }
      if (value) facts.facts.push({ label: pair.label, value, block, strength: 1 });
    }
  }
}

/** `Jan 2019 – Present`, `2015-2019`, `03/2020 to 06/2021`: a start and an end. */
const DATE_RANGE =
  /((?:[A-Z][a-z]{2,8}\.?\s+)?\d{4}|\d{1,2}\/\d{4})\s*(?:-|–|—|to|until)\s*((?:[A-Z][a-z]{2,8}\.?\s+)?\d{4}|\d{1,2}\/\d{4}|[Pp]resent|[Cc]urrent|[Nn]ow|[Tt]oday)\b/;

export function dateRange(
  text: string,
): { start: string; end: string; at: number; length: number } | undefined {
  const m = DATE_RANGE.exec(text);
  return m ? { start: m[1]!, end: m[2]!, at: m.index, length: m[0].length } : undefined;
}

/** A date range on a line of its own or in a heading reads as the labels `start` and `end`. */
function rangeFacts(text: string, block: number, into: Fact[]): void {
  for (const line of text.split('\n')) {
    const range = dateRange(line);
    if (!range || splitLabelled(line)) continue;
    into.push({ label: 'start', value: range.start, block, strength: 1 });
    into.push({ label: 'end', value: range.end, block, strength: 1 });
  }
}

const numeric = (cell: string) => /^[\s\d.,%$€£()+-]*$/.test(cell);

/**
 * The table's header row: its `th` row, or a first row of distinct words over at least one more
 * row (documents and spreadsheets rarely mark header cells).
 */
function headerRow(block: Extract<Block, { kind: 'table' }>): number {
  const marked = block.rows.findIndex((r) => r.header);
  if (marked >= 0 && marked < 3) return marked;
  const first = block.rows[0];
  if (!first || block.rows.length < 2 || first.cells.length < 2) return -1;
  const cells = first.cells;
  const distinct = new Set(cells.map((c) => c.toLowerCase())).size === cells.length;
  return distinct && cells.every((c) => c && !numeric(c)) ? 0 : -1;
}

function readTable(block: Extract<Block, { kind: 'table' }>, index: number, facts: Facts): void {
  for (const row of block.rows) {
    const filled = row.cells.filter(Boolean);
    // A two-cell row, or a row with two filled cells (an invoice's `Subtotal | $100` under its
    // items), reads as label and value.
    if (filled.length === 2 && !numeric(filled[0]!) && filled[0]!.length <= 60)
      facts.facts.push({
        label: filled[0]!.replace(/[:：]$/, ''),
        value: filled[1]!,
        block: index,
        strength: 1,
      });
    for (const cell of filled) labelledLines(cell, () => '', index, facts);
  }
  const head = headerRow(block);
  if (head >= 0) {
    facts.tables.push({
      header: block.rows[head]!.cells,
      rows: block.rows.slice(head + 1).map((r) => r.cells),
      block: index,
    });
  }
}

/** The paragraph after a heading, or the run of list items there, one per line. */
function underHeading(blocks: Block[], from: number): string {
  const first = blocks[from];
  if (first?.kind !== 'text') return '';
  if (first.role !== 'item') return first.text;
  const items: string[] = [];
  for (let b = from; b < blocks.length; b++) {
    const block = blocks[b]!;
    if (block.kind !== 'text' || block.role !== 'item') break;
    items.push(block.text.replace(/\n/g, ' '));
  }
  return items.join('\n');
}

/**
 * How the document writes slash dates: day first when its money is in pounds or euros (and not
 * dollars), month first otherwise, as the US does.
 */
function readHabits(outline: Outline): Habits {
  let pounds = 0;
  let dollars = 0;
  for (const block of outline.blocks) {
    const text = block.kind === 'table' ? block.rows.map((r) => r.cells.join(' ')).join(' ') : block.text;
    pounds += (text.match(/[£€]|\b(?:GBP|EUR)\b/g) ?? []).length;
    dollars += (text.match(/\$|\bUSD\b/g) ?? []).length;
  }
  return { dayFirst: pounds > dollars };
}

/** Metadata the file carries about itself, offered last. */
const METADATA_LABELS = ['title', 'author', 'subject', 'description', 'keywords', 'language'];

export function readFacts(outline: Outline, metadata: Record<string, unknown>, judge: LabelJudge): Facts {
  const facts: Facts = {
    facts: [],
    tables: [],
    sections: [],
    blocks: outline.blocks,
    judge,
    habits: readHabits(outline),
  };
  const open: Section[] = [];
  outline.blocks.forEach((block, index) => {
    const next = outline.blocks[index + 1];
    if (block.kind === 'heading') {
      while (open.length > 0 && open[open.length - 1]!.level >= block.level) open.pop()!.end = index;
      rangeFacts(block.text, index, facts.facts);
      const section = { heading: block.text, level: block.level, block: index, end: outline.blocks.length };
      facts.sections.push(section);
      open.push(section);
      // A heading over one short paragraph, or over a list, reads as its label ("Email" over
      // "jo@example.com", "Skills" over its items).
      const value = next?.kind === 'text' ? underHeading(outline.blocks, index + 1) : '';
      if (value && value.length <= 1000)
        facts.facts.push({ label: block.text, value, block: index + 1, strength: 0.9 });
      // The document's first heading names what it is about: a résumé's person, a product.
      if (facts.sections.length === 1)
        facts.facts.push({ label: 'name', value: block.text, block: index, strength: 0.85 });
    } else if (block.kind === 'text') {
      if (block.role === 'term' && next?.kind === 'text' && next.role === 'definition')
        facts.facts.push({ label: block.text, value: next.text, block: index, strength: 1 });
      labelledLines(block.text, () => underHeading(outline.blocks, index + 1), index, facts);
      rangeFacts(block.text, index, facts.facts);
    } else readTable(block, index, facts);
  });
  for (const label of METADATA_LABELS) {
    const value = metadata[label];
    const text = Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : '';
    if (text.trim()) facts.facts.push({ label, value: text, block: -1, strength: 0.7 });
  }
  return facts;
}
