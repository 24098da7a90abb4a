import type { piiEntities } from '../../options/parse-options.ts';

/** The contract's buckets: what a redacted span is shown as (`<EMAIL>`) and what `entities` names. */
export type PiiBucket = (typeof piiEntities)[number];

/** A found span of `text`: UTF-16 offsets, end exclusive. */
export interface PiiSpan {
  start: number;
  end: number;
  bucket: PiiBucket;
}

/**
 * A span as a detector proposes it. `rank` orders detectors by how sure their evidence is
 * (0: a checksum or a fixed format; higher: context and names), and decides overlaps.
 */
export interface Candidate extends PiiSpan {
  rank: number;
}

/** Ranks, strongest evidence first. */
export const Rank = {
  /** Fixed formats that nothing else has: private-key blocks, JWTs, vendor key prefixes. */
  format: 0,
  /** Numbers that pass a checksum or an issuing rule: IBANs, cards, SSNs. */
  checksum: 1,
  email: 2,
  phone: 3,
  /** Values of password and key fields, and credentials in URLs. */
  credential: 4,
  /** Numbers a label names: "Account number: …". */
  labelled: 5,
  address: 6,
  person: 7,
  /** Places from the gazetteer, given names with a family name: the gazetteers' evidence alone. */
  name: 8,
  /** A lone given name: a place or anything else with evidence wins over it. */
  guess: 9,
} as const;

/** Every match of a global pattern, as candidates of one bucket and rank. */
export function matchCandidates(text: string, pattern: RegExp, bucket: PiiBucket, rank: number): Candidate[] {
  const out: Candidate[] = [];
  for (const m of text.matchAll(pattern))
    out.push({ start: m.index, end: m.index + m[0].length, bucket, rank });
  return out;
}

/**
 * The spans to redact: where candidates overlap, the one with the strongest evidence (then the
 * longer) wins, so a password inside a connection string is not also read as an e-mail address.
 * Sorted by start.
 */
export function chooseSpans(candidates: readonly Candidate[]): PiiSpan[] {
  const ordered = [...candidates]
    .filter((c) => c.end > c.start)
    .sort((a, b) => a.rank - b.rank || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const chosen: Candidate[] = [];
  // Characters already taken, so each candidate is checked against its own range only.
  const taken = new Uint8Array(ordered.reduce((n, c) => Math.max(n, c.end), 0));
  for (const c of ordered) {
    if (taken.subarray(c.start, c.end).includes(1)) continue;
    taken.fill(1, c.start, c.end);
    chosen.push(c);
  }
  return chosen.sort((a, b) => a.start - b.start).map(({ start, end, bucket }) => ({ start, end, bucket }));
}
