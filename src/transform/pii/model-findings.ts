import { findPii, type NameFinder } from './find-pii.ts';
import { type Candidate, chooseSpans, type PiiBucket, type PiiSpan, Rank } from './spans.ts';

/** What a language model named as personal information: a string of the document and its bucket. */
export interface ModelEntity {
  text: string;
  bucket: PiiBucket;
}

/**
 * How `accurate` redaction goes for one parse, decided in the API process (which holds the model)
 * and carried with the job. The model is called between two conversions, never from a worker:
 * - `collect`: convert and transform, and hand back the document's text for the model to read;
 * - `apply`: convert again and redact what the model found, with the validated patterns beside it;
 * - `fallback`: the model could not be used (`reason` says why): the aggressive mode runs.
 * Without a plan, `accurate` has no model configured and runs the aggressive mode.
 */
export type ModelRedaction =
  | { stage: 'collect'; maxChars: number }
  | { stage: 'apply'; entities: ModelEntity[]; readChars: number; textChars: number }
  | { stage: 'fallback'; reason: string };

/** A character that continues a word: a found name must not match inside a longer word. */
const WORD = /[\p{L}\p{N}_]/u;

/**
 * Every occurrence of the model's strings in `text`, at word boundaries: a name the model saw
 * once is redacted wherever it appears. Its evidence ranks beside an address's: a checksum or
 * a fixed format that overlaps it wins.
 */
function entityCandidates(text: string, entities: readonly ModelEntity[]): Candidate[] {
  const out: Candidate[] = [];
  for (const { text: needle, bucket } of entities) {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if (WORD.test(text[at - 1] ?? '') && WORD.test(needle[0]!)) continue;
      if (WORD.test(text[end] ?? '') && WORD.test(needle.at(-1)!)) continue;
      out.push({ start: at, end, bucket, rank: Rank.address });
    }
  }
  return out;
}

/**
 * The spans of `text` to redact from the model's findings and the validated patterns of `fast`
 * (which a model can miss or mistype: an IBAN's digits, a key's 40 characters), and `names`'
 * people and places where the model did not read the whole document.
 */
export function modelSpans(
  text: string,
  entities: readonly ModelEntity[],
  buckets: ReadonlySet<PiiBucket>,
  names?: NameFinder,
): PiiSpan[] {
  const patterns = findPii(text, 'fast', buckets).map((s) => ({ ...s, rank: Rank.format }));
  const found = entityCandidates(
    text,
    entities.filter((e) => buckets.has(e.bucket)),
  );
  if (names) found.push(...names(text, buckets));
  return chooseSpans([...patterns, ...found]);
}
