import { countries } from 'countries-list';

/**
 * Country names as written in English and natively, with common aliases ("United Kingdom",
 * "Deutschland", "Britain"), mapped to ISO 3166-1 alpha-2 codes. Two-letter aliases ("UK",
 * "US") are left out: as words they are too often something else.
 */
export const countryByName: ReadonlyMap<string, string> = (() => {
  const byName = new Map<string, string>();
  for (const [code, c] of Object.entries(countries)) {
    for (const name of [c.name, c.native, ...(c.alias ?? [])]) {
      if (name.length > 2 && !byName.has(name)) byName.set(name, code);
    }
  }
  return byName;
})();

/** Capital cities, for the places gazetteer. */
export const capitals: readonly string[] = Object.values(countries)
  .map((c) => c.capital)
  .filter((c) => c.length > 2);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every country name, longest first so "United States of America" wins over "United States". */
export const countryNamePattern = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...countryByName.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|')})(?![\\p{L}\\p{N}])`,
  'gu',
);
