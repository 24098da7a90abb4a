import { givenNames, isUnambiguousGivenName } from '../gazetteer/given-names.ts';
import { isEnglishWord, lexiconFamilyNames } from '../gazetteer/lexicon.ts';
import { type Candidate, Rank } from '../spans.ts';
import { isAcronym, isOrganisationWord, nameAt, nameSource } from './name-tokens.ts';

type Span = { start: number; end: number };

const TITLE = String.raw`(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Det|Insp|Rev|Herr|Frau|Mme|Mlle|Sr|Sra)\.?`;

/** Labels after which a person's name is written, in forms, letters, tickets and minutes. */
const PERSON_LABEL = String.raw`(?:name|full name|customer|client|employee|patient|tenant|landlord|agent|analyst|maintainer|owner|author|contact|attn\.?|attention|prepared by|approved by|reported by|reviewed by|submitted by|requested by|booked by|assigned to|written by|signed|signature|employee signature|manager|supervisor|injured person|host|chair|speaker|assignee|reviewer|from|to|cc|dependent|emergency contact|next of kin(?: informed)?|beneficiary|account holder|cardholder|passenger|guest|witness)`;
/** Labels followed by several names: "Present: A (chair), B, C and D". */
const LIST_LABEL = `(?:present|apologies|attendees|participants|witnesses|tenants|signed by|cc)`;

const SALUTATION = /\b(?:Dear|Hi|Hello|Hey|Thanks|Thank you|Cheers|Morning|Evening|Welcome)[ ,]+/g;
const SIGN_OFF =
  /^[ \t]*(?:(?:kind|best|warm|warmest|many|with)\s+)?(?:regards|wishes|thanks)|^[ \t]*(?:sincerely|yours (?:faithfully|sincerely|truly)|cheers|best|thanks|thank you|cordially|respectfully)\b/i;

/**
 * People found by context: a title (Dr., Mrs.), a label (`Name:`, `Customer:`, `Prepared by:`),
 * a salutation, a signature under a sign-off, a chat speaker, an e-mail display name, a `name`
 * field in data; then given names from the gazetteer followed by a family name; then any name
 * whose words match an e-mail address's local part in the same text; and last, every other
 * mention of the words of names found so far ("Tom" after "Tom Gallagher").
 */
export function findPeople(text: string): Candidate[] {
  const spans: Span[] = [];
  const add = (s: Span | undefined) => {
    if (s && s.end > s.start) spans.push(s);
  };
  const nameAfter = (index: number) => nameAt(text, index);

  for (const m of text.matchAll(new RegExp(String.raw`\b${TITLE}[ \t]+(?=\p{Lu})`, 'gu')))
    add(nameAfter(m.index + m[0].length));

  const label = new RegExp(
    String.raw`(?:^|[\n|>(]|  )[ \t]*${PERSON_LABEL}[ \t]*:[ \t]*(?:${TITLE}[ \t]+)?`,
    'giu',
  );
  for (const m of text.matchAll(label)) add(nameAfter(m.index + m[0].length));

  const list = new RegExp(String.raw`(?:^|\n)[ \t]*${LIST_LABEL}[ \t]*:[^\n]*`, 'giu');
  for (const m of text.matchAll(list)) {
    const body = m[0].slice(m[0].indexOf(':') + 1);
    const offset = m.index + m[0].length - body.length;
    // Each item of the list starts with a name; what follows it (a role in brackets) is skipped.
    for (const item of body.matchAll(/(?:^|,|\band\b|;)[ \t]*/g))
      add(nameAfter(offset + item.index + item[0].length));
  }

  for (const m of text.matchAll(SALUTATION)) {
    const title = new RegExp(String.raw`${TITLE}[ \t]+`, 'uy');
    title.lastIndex = m.index + m[0].length;
    const t = title.exec(text);
    add(nameAfter(t ? title.lastIndex : m.index + m[0].length));
  }

  // A signature: the first non-empty line after a sign-off, when it is a name alone.
  const lines = text.split('\n');
  let offset = 0;
  let afterSignOff = false;
  for (const line of lines) {
    if (afterSignOff && line.trim() !== '') {
      const lead = line.length - line.trimStart().length;
      const s = nameAfter(offset + lead);
      if (s && text.slice(s.end, offset + line.length).trim() === '') add(s);
      afterSignOff = false;
    }
    if (SIGN_OFF.test(line) && line.trim().length < 40) afterSignOff = true;
    offset += line.length + 1;
  }

  // Chat and transcript speakers: "[09:02] Samira Haddad: ...", "21:05 Priyanka Nair: ...".
  const speaker = new RegExp(
    String.raw`^[ \t]*(?:\[[\d:]+\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+)(${nameSource}):`,
    'gmu',
  );
  for (const m of text.matchAll(speaker)) {
    const start = m.index + m[0].length - 1 - m[1]!.length;
    add({ start, end: start + m[1]!.length });
  }

  // Data: "name": "Beatriz Almeida", name = Nikhil Bose, owner: ... (a key that starts a line or
  // follows a bracket or comma, as in JSON, YAML and INI; "Account name:" in prose is not one).
  const field =
    /(?:^|[{,])[ \t]*["']?(?:name|full_?name|customer_?name|owner|author|contact|assignee|user_?name)["']?[ \t]*[:=][ \t]*["']?(?=\p{Lu})/gimu;
  for (const m of text.matchAll(field)) {
    const s = nameAfter(m.index + m[0].length);
    // A lone word in a data field is too often a product or a role: two words at least.
    if (s && text.slice(s.start, s.end).includes(' ')) add(s);
  }

  const localParts = emailLocalParts(text);
  const guesses: Span[] = [];
  const nameRun = new RegExp(nameSource, 'gu');
  for (const m of text.matchAll(nameRun)) {
    const words = m[0].split(' ');
    if (words.some(isOrganisationWord) || words.some(isAcronym)) continue;
    const span = { start: m.index, end: m.index + m[0].length };
    const lower = words.map(fold);
    const [first, second] = [lower[0]!, lower[words.length - 1]!];
    // E-mail evidence: a name whose words are the parts of an address's local part, or whose
    // family name is, after the given name's initial ("Kenji Watanabe", k.watanabe@).
    if (
      words.length >= 2 &&
      (lower.filter((w) => localParts.words.has(w)).length >= 2 ||
        localParts.initialled.has(`${first[0]}.${second}`))
    ) {
      add(span);
      continue;
    }
    if (words.length >= 2) {
      // A given name and a family name: "Grace Adeyemi" (but not "Grace Period"), or a name and a
      // known family name ("Raj Patel").
      const familyName = !isEnglishWord(second) || familyNames.has(second);
      if (
        (givenNames.has(first) && familyName && second.length > 1) ||
        (familyNames.has(second) && !isEnglishWord(first))
      )
        add(span);
      continue;
    }
    if (isUnambiguousGivenName(first) && !isSentenceStart(text, m.index)) guesses.push(span);
  }

  const found = propagate(text, spans).map((s) => ({ ...s, bucket: 'PERSON' as const, rank: Rank.person }));
  // Lone given names are guesses: they are not spread to other mentions, and lose to a place.
  return [...found, ...guesses.map((s) => ({ ...s, bucket: 'PERSON' as const, rank: Rank.guess }))];
}

const familyNames: ReadonlySet<string> = new Set(lexiconFamilyNames);

/** Lower case without accents, as names are written in e-mail addresses (Amélie → amelie). */
function fold(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The words of e-mail local parts (jordan.whitfield82 → jordan, whitfield), and their "k.watanabe" forms. */
function emailLocalParts(text: string): { words: Set<string>; initialled: Set<string> } {
  const words = new Set<string>();
  const initialled = new Set<string>();
  for (const m of text.matchAll(/([A-Za-z][\w.+-]*)@[\w-]+\./g)) {
    const parts = m[1]!
      .toLowerCase()
      .split(/[._+\-\d]+/)
      .filter(Boolean);
    for (const p of parts) if (p.length >= 3) words.add(p);
    if (parts.length === 2 && parts[0]!.length === 1) initialled.add(`${parts[0]}.${parts[1]}`);
  }
  return { words, initialled };
}

function isSentenceStart(text: string, index: number): boolean {
  const before = text.slice(Math.max(0, index - 3), index);
  return index === 0 || /(?:^|[.!?:]\s+|\n\s*)$/.test(before);
}

/**
 * Every other mention of the words of the names found ("Wei" after "Wei Zhang", "Imran" after
 * "Imran Qureshi"), capitalised, or in lower case when the word is no English word ("aaron" in
 * a code comment). Words of two letters and English words are left: too often something else.
 */
function propagate(text: string, spans: Span[]): Span[] {
  const words = new Set<string>();
  for (const s of spans)
    for (const w of text.slice(s.start, s.end).split(/[ ]+/))
      if (w.length > 2 && !w.endsWith('.') && !isEnglishWord(w.toLowerCase())) words.add(w);
  if (words.size === 0) return spans;
  const out = [...spans];
  const escaped = [...words].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(
    String.raw`(?<![\p{L}\p{N}_@.-])(?:${escaped.join('|')})(?![\p{L}\p{N}_@-]|\.\w)`,
    'giu',
  );
  for (const m of text.matchAll(re)) {
    const exact = words.has(m[0]);
    if (!exact && m[0] !== m[0].toLowerCase()) continue;
    // The start of a company's name ("Whitcombe Garden Supplies") is not the person.
    const rest = /^(?: \p{Lu}[\p{L}'’-]*)+/u.exec(
      text.slice(m.index + m[0].length, m.index + m[0].length + 60),
    );
    if (rest?.[0].split(' ').some(isOrganisationWord)) continue;
    out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}
