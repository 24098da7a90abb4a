import { limits } from '../../limits.ts';
import type { Outline } from '../outline.ts';
import { contentWords } from '../words.ts';
import { sentences } from './sentences.ts';

interface Candidate {
  text: string;
  /** Order in the document, to give the chosen sentences back in reading order. */
  position: number;
  words: Set<string>;
  /** The heading the sentence sits under (the document's first heading for the lead). */
  heading: Set<string>;
  firstOfSection: boolean;
  score: number;
}

/**
 * Prose, not furniture: a sentence ends like one, or is long enough to be one. Headings never get
 * here (the outline keeps them apart), and this also keeps out the lines that act as headings in
 * documents without heading styles, labels (`Invoice number: 123`) and list fragments.
 */
function isProse(text: string, words: number): boolean {
  if (words < limits.summarySentenceMinWords) return false;
  if (/^[^.!?]{1,40}:\s/.test(text) && !/[.!?]["')\]]?$/.test(text)) return false;
  return /[.!?]["')\]]?$/.test(text) || words >= 12;
}

function candidates(outline: Outline): Candidate[] {
  const out: Candidate[] = [];
  let heading = new Set<string>();
  let firstOfSection = true;
  for (const block of outline.blocks) {
    if (block.kind === 'heading') {
      heading = new Set(contentWords(block.text));
      firstOfSection = true;
      continue;
    }
    if (block.kind !== 'text') continue;
    for (const text of sentences(block.text)) {
      const words = contentWords(text);
      if (!isProse(text, text.split(/\s+/).length)) continue;
      out.push({ text, position: out.length, words: new Set(words), heading, firstOfSection, score: 0 });
      firstOfSection = false;
    }
  }
  return out;
}

/** Word overlap of two sentences (Jaccard), to keep two sentences saying the same thing apart. */
function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared || 1);
}

/**
 * Each sentence scored by how central its words are to the document (their frequency over all
 * sentences, as Luhn's and SumBasic's summarisers do), plus the places writers put what matters:
 * the lead, the first sentence of a section, and words its heading shares.
 */
function rank(all: Candidate[]): void {
  const frequency = new Map<string, number>();
  for (const c of all) for (const w of c.words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const top = Math.max(1, ...frequency.values());
  for (const c of all) {
    let weight = 0;
    for (const w of c.words) weight += (frequency.get(w) ?? 0) / top;
    // Square root: longer sentences earn more, but not in proportion to their length.
    c.score = weight / Math.sqrt(Math.max(c.words.size, 1));
    if (c.position === 0) c.score *= 1.5;
    else if (c.firstOfSection) c.score *= 1.2;
    if (c.heading.size > 0) c.score *= 1 + 0.5 * overlap(c.words, c.heading);
    if (c.text.length > limits.summaryChars / 2) c.score *= 0.5;
  }
}

/** When the document has no prose (a spreadsheet, a form), what its tables hold. */
function describeTables(outline: Outline): string {
  const parts: string[] = [];
  for (const block of outline.blocks) {
    if (block.kind !== 'table' || block.rows.length === 0) continue;
    const [head, ...rest] = block.rows;
    const columns = head!.cells.filter(Boolean).join(', ');
    parts.push(`A table of ${rest.length} row${rest.length === 1 ? '' : 's'} with the columns ${columns}.`);
    if (parts.join(' ').length > limits.summaryChars) break;
  }
  return parts.join(' ');
}

/**
 * An extractive summary: the best-ranked sentences of the document, at most
 * limits.summarySentences of them and limits.summaryChars in all, in the order the document has
 * them. Near-repeats of a chosen sentence are skipped. Empty when the document has no text.
 */
export function extractiveSummary(outline: Outline): string {
  const all = candidates(outline);
  if (all.length === 0) return describeTables(outline).slice(0, limits.summaryChars);
  rank(all);
  const chosen: Candidate[] = [];
  let length = 0;
  for (const c of [...all].sort((a, b) => b.score - a.score)) {
    if (chosen.length >= limits.summarySentences) break;
    if (length + c.text.length + 1 > limits.summaryChars) continue;
    if (chosen.some((o) => overlap(o.words, c.words) > 0.5)) continue;
    chosen.push(c);
    length += c.text.length + 1;
  }
  // A first sentence longer than the whole budget: its start, cut at a word.
  if (chosen.length === 0) return `${all[0]!.text.slice(0, limits.summaryChars - 1).replace(/\s+\S*$/, '')}…`;
  return chosen
    .sort((a, b) => a.position - b.position)
    .map((c) => c.text)
    .join(' ');
}
