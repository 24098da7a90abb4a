import type { PiiBucket, PiiSpan } from '../../src/transform/pii/spans.ts';
import type { LabelledEntity } from './labelled-set.ts';

export interface Tally {
  /** Labelled entities, and those whose every letter and digit the system redacted in the right bucket. */
  gold: number;
  found: number;
  /** Spans the system redacted, and those that fall on a labelled entity of their bucket. */
  predicted: number;
  correct: number;
}

export const emptyTally = (): Tally => ({ gold: 0, found: 0, predicted: 0, correct: 0 });

const isWordChar = (ch: string) => /[\p{L}\p{N}]/u.test(ch);

/**
 * Scores one document. An entity counts as redacted when every letter and digit of it lies in
 * spans of its bucket (punctuation between the parts of an address may stay: it tells nothing).
 * A span counts as correct when it overlaps an entity of its bucket and at least a third of its
 * letters and digits are inside such entities (a span that also hides a label, "password: x",
 * still did its job; one that hides a whole paragraph for one name did not).
 */
export function scoreDocument(
  text: string,
  gold: readonly LabelledEntity[],
  predicted: readonly PiiSpan[],
  into: Map<PiiBucket, Tally>,
  errors?: { missed: LabelledEntity[]; wrong: PiiSpan[] },
): void {
  const tally = (b: PiiBucket) => {
    const t = into.get(b) ?? emptyTally();
    into.set(b, t);
    return t;
  };
  const coveredBy = (
    bucket: PiiBucket,
    spans: readonly { start: number; end: number; bucket: PiiBucket }[],
  ) => {
    const mask = new Uint8Array(text.length);
    for (const s of spans) if (s.bucket === bucket) mask.fill(1, s.start, s.end);
    return mask;
  };
  const predictedMask = new Map<PiiBucket, Uint8Array>();
  const goldMask = new Map<PiiBucket, Uint8Array>();
  for (const e of gold) {
    const t = tally(e.bucket);
    t.gold++;
    const mask = predictedMask.get(e.bucket) ?? coveredBy(e.bucket, predicted);
    predictedMask.set(e.bucket, mask);
    let all = true;
    for (let i = e.start; i < e.end; i++) if (isWordChar(text[i]!) && !mask[i]) all = false;
    if (all) t.found++;
    else errors?.missed.push(e);
  }
  for (const s of predicted) {
    const t = tally(s.bucket);
    t.predicted++;
    const mask = goldMask.get(s.bucket) ?? coveredBy(s.bucket, gold);
    goldMask.set(s.bucket, mask);
    let inside = 0;
    let chars = 0;
    for (let i = s.start; i < s.end; i++) {
      if (!isWordChar(text[i]!)) continue;
      chars++;
      if (mask[i]) inside++;
    }
    if (inside > 0 && inside * 3 >= chars) t.correct++;
    else errors?.wrong.push(s);
  }
}

export const precision = (t: Tally) => (t.predicted === 0 ? 1 : t.correct / t.predicted);
export const recall = (t: Tally) => (t.gold === 0 ? 1 : t.found / t.gold);
