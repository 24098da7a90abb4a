/**
 * How names are written: capitalised words (with hyphens and apostrophes: Mbeki-Hale,
 * O'Sullivan, McAllister) and initials ("A."), joined by single spaces, with the particles
 * family names carry (de, van, von, bin, ...) between them.
 */
const WORD = String.raw`(?:\p{Lu}[\p{L}'’-]*\p{L}|\p{Lu}\.)`;
const PARTICLE = `(?:de|da|di|do|dos|das|del|della|van|von|der|den|le|la|du|bin|binti|al|el|ten|ter|y)`;
const NAME = `${WORD}(?: (?:${PARTICLE} )?${WORD}){0,3}`;

export const nameSource = NAME;

/** Words that end a company's or a place's name, never a person's. */
const NOT_PERSON = new Set([
  'ltd',
  'limited',
  'inc',
  'llc',
  'llp',
  'plc',
  'gmbh',
  'ag',
  'ab',
  'bv',
  'b.v.',
  'sa',
  'sas',
  'sl',
  's.l.',
  'srl',
  's.r.l.',
  'sprl',
  'corp',
  'co',
  'company',
  'group',
  'bank',
  'hotel',
  'café',
  'cafe',
  'restaurant',
  'school',
  'academy',
  'university',
  'universidad',
  'hospital',
  'hôpital',
  'clinic',
  'centre',
  'center',
  'street',
  'road',
  'avenue',
  'lane',
  'drive',
  'court',
  'terrace',
  'park',
  'fund',
  'times',
  'systems',
  'analytics',
  'software',
  'supplies',
  'hub',
  'summit',
  'services',
  'shipping',
  'energy',
  'airlines',
  'team',
  'club',
  'society',
  'council',
  'office',
  'department',
]);

/** Whether a word marks the name it ends as an organisation's or a place's. */
export function isOrganisationWord(word: string): boolean {
  return NOT_PERSON.has(word.toLowerCase());
}

/** Capitals throughout (URI, MAC, NSW) are acronyms far more often than names; "M." is an initial. */
export function isAcronym(word: string): boolean {
  return word.length > 1 && !word.endsWith('.') && !/\p{Ll}/u.test(word);
}

/** The name that starts at `index` (spaces skipped), or undefined; at most four words. */
export function nameAt(text: string, index: number): { start: number; end: number } | undefined {
  const re = new RegExp(`[ \\t]*(${NAME})`, 'uy');
  re.lastIndex = index;
  const m = re.exec(text);
  if (!m) return undefined;
  let value = m[1]!;
  const start = m.index + m[0].length - value.length;
  // An initial at the end ("Smith J.") keeps its dot; a sentence's full stop after a name does not
  // reach here, since WORD ends in a letter.
  const words = value.split(' ');
  if (words.some((w) => isOrganisationWord(w))) return undefined;
  if (words.some(isAcronym)) return undefined;
  value = words.join(' ');
  return { start, end: start + value.length };
}
