import type { PlaceGazetteer } from '../gazetteer/places.ts';
import { type Candidate, Rank } from '../spans.ts';
import { isOrganisationWord } from './name-tokens.ts';

/**
 * Runs of capitalised words, in which place names are looked up; not next to `/`, since
 * Europe/London is a time zone and a path is no place.
 */
const RUN = /(?<![\p{L}\p{N}/])\p{Lu}[\p{L}'’-]*(?:[ \t]\p{Lu}[\p{L}'’-]*)*(?![\p{L}\p{N}]|\/)/gu;
/** Words before a place name that say it is one. */
const PLACE_CONTEXT =
  /(?:\b(?:in|at|from|to|near|via|outside|around|visit|visiting|based|born|lives|moved)|→|->)[ \t]+$/i;

/**
 * Place names from the gazetteer: a well-known one anywhere, a minor one where the text says a
 * place follows or where a well-known place or a region follows it ("Leeds", "Aurora, CO").
 * A place name that begins a company's name ("Dublin Office Furniture Ltd") is not a place.
 */
export function findPlaces(text: string, places: PlaceGazetteer): Candidate[] {
  const out: Candidate[] = [];
  for (const run of text.matchAll(RUN)) {
    const words = run[0].split(/[ \t]/);
    const offsets: number[] = [];
    let at = run.index;
    for (const w of words) {
      offsets.push(at);
      at += w.length + 1;
    }
    if (words.some(isOrganisationWord)) continue;
    // "Yao et al." is a citation of an author, whatever town shares the name.
    if (/^,? et al\b/.test(text.slice(run.index + run[0].length, run.index + run[0].length + 8))) continue;
    for (let i = 0; i < words.length; i++) {
      // The longest place name starting at word i.
      for (let j = Math.min(words.length, i + 4); j > i; j--) {
        const name = words
          .slice(i, j)
          .join(' ')
          .replace(/[’']s$/, '');
        const start = offsets[i]!;
        const end = start + name.length;
        const known = places.known.has(name);
        if (!known && !(places.minor.has(name) && hasPlaceContext(text, start, end, places))) continue;
        // "West Yorkshire" read whole as a region outweighs reading it as a given and family name.
        const rank = places.fixed.has(name) ? Rank.address : Rank.name;
        out.push({ start, end, bucket: 'LOCATION', rank });
        i = j - 1;
        break;
      }
    }
  }
  return out;
}

function hasPlaceContext(text: string, start: number, end: number, places: PlaceGazetteer): boolean {
  if (PLACE_CONTEXT.test(text.slice(Math.max(0, start - 14), start))) return true;
  const after = /^,[ \t]*(\p{Lu}[\p{L}]*(?:[ \t]\p{Lu}[\p{L}]*)?)/u.exec(text.slice(end, end + 40));
  return after !== null && (places.known.has(after[1]!) || /^[A-Z]{2,3}$/.test(after[1]!));
}
