import { findAddresses } from './detectors/addresses.ts';
import { findPeople } from './detectors/people.ts';
import { findPlaces } from './detectors/places.ts';
import type { NameFinder } from './find-pii.ts';
import { loadPlaces } from './gazetteer/places.ts';
import type { Candidate } from './spans.ts';

/**
 * People and places for `aggressive` mode: context rules and gazetteers. Loaded on first use
 * (the gazetteers take about a second to build), once per worker.
 */
export async function loadNameFinder(): Promise<NameFinder> {
  const places = loadPlaces();
  const isPlace = (name: string) => places.known.has(name) || places.minor.has(name);
  return (text, buckets) => {
    const out: Candidate[] = [];
    if (buckets.has('PERSON')) out.push(...findPeople(text));
    if (buckets.has('LOCATION'))
      out.push(...joinNeighbours(text, [...findAddresses(text, isPlace), ...findPlaces(text, places)]));
    return out;
  };
}

/**
 * The parts of one address written on one line ("Unit 6, 31 Beach Road, Coogee NSW 2034",
 * "Lyon, France") become one span: nothing but a comma and spaces stands between them.
 */
function joinNeighbours(text: string, parts: Candidate[]): Candidate[] {
  const sorted = [...parts].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Candidate[] = [];
  for (const p of sorted) {
    const last = out[out.length - 1];
    if (last && (p.start <= last.end || /^[ \t]*,?[ \t]*$/.test(text.slice(last.end, p.start)))) {
      last.end = Math.max(last.end, p.end);
      last.rank = Math.min(last.rank, p.rank);
    } else out.push({ ...p });
  }
  return out;
}
