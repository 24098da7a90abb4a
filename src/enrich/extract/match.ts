import { isStopWord, singular, tokens } from '../words.ts';
import type { Property } from './schema-shape.ts';

/**
 * Which label of the document names which property of the schema. Both sides become sets of
 * canonical words (`invoiceNumber`, "Invoice No." and "Invoice #" are all {invoice, number}), and
 * a property is known by its name, its title, the phrases of its description, and a few
 * synonyms writers use for the commonest fields.
 */

/** Abbreviations and spellings of one word. */
const CANONICAL: Record<string, string> = {
  no: 'number',
  nr: 'number',
  num: 'number',
  nbr: 'number',
  qty: 'quantity',
  amt: 'amount',
  tel: 'phone',
  telephone: 'phone',
  mobile: 'phone',
  cell: 'phone',
  addr: 'address',
  desc: 'description',
  ref: 'reference',
  dob: 'birth',
  vat: 'tax',
  gst: 'tax',
  sku: 'sku',
  organisation: 'organization',
  colour: 'color',
  employer: 'company',
  postcode: 'zip',
  postal: 'zip',
};

/** Phrases that name the same field, written canonically. */
const SYNONYMS: string[][] = [
  ['total', 'amount due', 'balance due', 'grand total', 'total due', 'total amount'],
  ['date birth', 'birth date', 'born'],
  ['company', 'organization', 'firm'],
  ['price', 'unit price', 'rate', 'cost', 'unit cost'],
  ['quantity', 'units', 'count'],
  ['description', 'item', 'product', 'service', 'article'],
  ['sku', 'item code', 'product code', 'part number', 'article number', 'code'],
  ['vendor', 'seller', 'supplier', 'from', 'issued by'],
  ['customer', 'client', 'bill', 'buyer', 'sold'],
  ['title', 'position', 'role', 'job title'],
  ['start', 'from', 'since', 'begin'],
  ['end', 'to', 'until'],
  ['zip', 'zip code', 'post code'],
  ['name', 'full name'],
  ['institution', 'school', 'university', 'college'],
  ['degree', 'qualification'],
];

/** A label's or a name's canonical words. */
export function phrase(text: string): string[] {
  const spelled = text
    .replace(/#/g, ' number ')
    .replace(/\be-mail\b/gi, 'email')
    .replace(/\bzip\s*code\b/gi, 'zip');
  // Abbreviations first: "No." is "number" before it could be taken for the word "no".
  const words = tokens(spelled).map((w) => CANONICAL[w] ?? w);
  const content = words.filter((w) => !isStopWord(w));
  // A label made of function words alone ("From", "To") still names something.
  return (content.length > 0 ? content : words).map(singular);
}

const synonymPhrases = SYNONYMS.map((group) => group.map(phrase));

export interface Name {
  words: string[];
  /** How much a match on this name counts: a description's phrase counts a little less. */
  weight: number;
}

/** Phrases of a description: quoted ones, and the parts between commas, parentheses and "or". */
function descriptionPhrases(description: string): string[][] {
  const quoted = [...description.matchAll(/["'“‘«]([^"'”’»]{1,40})["'”’»]/g)].map((m) => m[1]!);
  const parts = description.split(/[,;:()/]|\bor\b|\balso\b|\be\.g\./i);
  return [...quoted, ...parts].map(phrase).filter((p) => p.length > 0 && p.length <= 4);
}

/**
 * The names a property goes by. Inside an object that the document does not set apart (no
 * section of its own), `prefix` holds the object's own name: `customer.name` is then looked
 * for as "Customer name", never as a bare "Name".
 */
export function namesOf(property: Property, prefix: string[] = []): Name[] {
  const own = phrase(property.name);
  const names: Name[] = [{ words: own, weight: 1 }];
  if (property.title) names.push({ words: phrase(property.title), weight: 1 });
  const key = own.join(' ');
  for (const group of synonymPhrases) {
    if (group.some((p) => p.join(' ') === key)) for (const p of group) names.push({ words: p, weight: 0.95 });
  }
  if (property.description)
    for (const words of descriptionPhrases(property.description)) names.push({ words, weight: 0.9 });
  if (prefix.length === 0) return names;
  return names.map((n) => ({ words: [...new Set([...prefix, ...n.words])], weight: n.weight }));
}

/**
 * How well a label's words name one of `names`, 0-1: all words alike is 1 (or alike once joined:
 * "T-shirt size" is `tshirtSize`); a label that says more ("Invoice date" for `date`) or less
 * ("Total" for `totalAmount`) counts for the share of words they have in common.
 */
export function matchScore(label: string[], names: Name[]): number {
  const l = new Set(label);
  if (l.size === 0) return 0;
  let best = 0;
  for (const name of names) {
    const n = new Set(name.words);
    if (n.size === 0) continue;
    let shared = 0;
    for (const w of n) if (l.has(w)) shared++;
    let score: number;
    if (label.join('') === name.words.join('')) score = 1;
    else if (shared === 0) continue;
    else if (shared === n.size && shared === l.size) score = 1;
    else if (shared === n.size) score = (0.9 * shared) / l.size;
    else if (shared === l.size) score = (0.8 * shared) / n.size;
    else score = (0.6 * shared) / (l.size + n.size - shared);
    best = Math.max(best, score * name.weight);
  }
  return best;
}

/** Below this a label is not taken to name a property (a label saying twice as much still is). */
export const MATCH_THRESHOLD = 0.4;
