/**
 * Sentences of a block of text, by Unicode's sentence rules (Intl.Segmenter) and one repair they
 * need: a full stop after an abbreviation or an initial ("Dr. Lee", "J. Smith", "No. 4") does
 * not end a sentence. Line breaks always do: a line of an address or a form is not prose that
 * runs on.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const ABBREVIATION =
  /(?:^|[\s(])(?:mr|mrs|ms|dr|prof|st|no|nos|vs|etc|e\.g|i\.e|inc|ltd|co|jr|sr|fig|approx|dept|est|vol|pp|[a-z])\.$/i;

export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let pending = '';
    for (const { segment } of segmenter.segment(line)) {
      pending += segment;
      if (ABBREVIATION.test(pending.trimEnd())) continue;
      if (pending.trim()) out.push(pending.trim());
      pending = '';
    }
    if (pending.trim()) out.push(pending.trim());
  }
  return out;
}
