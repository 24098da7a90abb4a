/**
 * Guess a CSV file's field delimiter from its first records.
 *
 * Each candidate splits the sample into records (quote-aware: a `"` that opens a field
 * hides delimiters and line breaks until it is closed, `""` is a literal quote), and the
 * candidate whose records most consistently have the same number of fields wins. A file
 * where no candidate ever yields two fields is a single-column file: comma is as good as
 * any and is returned.
 */

export type Delimiter = ',' | ';' | '\t' | '|';

/** In order of preference when two candidates fit equally well. */
const CANDIDATES: readonly Delimiter[] = [',', '\t', ';', '|'];

/** Records looked at, and the most characters read to find them. */
const SAMPLE_RECORDS = 50;
const SAMPLE_CHARS = 64 * 1024;

const QUOTE = 34; // "
const LF = 10;
const CR = 13;

/** Field counts of the first records of `text` when split on `delimiter`. */
function fieldCounts(text: string, delimiter: Delimiter, maxRecords = SAMPLE_RECORDS): number[] {
  const d = delimiter.charCodeAt(0);
  const end = Math.min(text.length, SAMPLE_CHARS);
  const counts: number[] = [];
  let fields = 1;
  let fieldStart = true;
  let quoted = false;
  let blank = true;
  let i = 0;
  for (; i < end && counts.length < maxRecords; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === QUOTE) {
        if (text.charCodeAt(i + 1) === QUOTE) i++;
        else quoted = false;
      }
      continue;
    }
    if (c === LF || c === CR) {
      if (c === CR && text.charCodeAt(i + 1) === LF) i++;
      if (!blank) counts.push(fields);
      fields = 1;
      fieldStart = true;
      blank = true;
      continue;
    }
    blank = false;
    if (c === d) {
      fields++;
      fieldStart = true;
      continue;
    }
    if (c === QUOTE && fieldStart) quoted = true;
    fieldStart = false;
  }
  // The last record counts only if the file ends inside the window (it may be cut short).
  if (!blank && i >= text.length && counts.length < maxRecords) counts.push(fields);
  return counts;
}

interface Fit {
  delimiter: Delimiter;
  /** The most common field count. */
  mode: number;
  /** Share of records with exactly `mode` fields. */
  consistency: number;
}

function fit(delimiter: Delimiter, counts: number[]): Fit {
  const freq = new Map<number, number>();
  for (const n of counts) freq.set(n, (freq.get(n) ?? 0) + 1);
  let mode = 1;
  let best = 0;
  for (const [n, f] of freq) {
    if (f > best || (f === best && n > mode)) {
      mode = n;
      best = f;
    }
  }
  return { delimiter, mode, consistency: counts.length > 0 ? best / counts.length : 0 };
}

/** How well `delimiter` splits the first records of `text` into rows of one width. */
export function sniffRecords(
  text: string,
  delimiter: Delimiter,
): { records: number; fields: number; consistency: number } {
  const counts = fieldCounts(text, delimiter);
  const f = fit(delimiter, counts);
  return { records: counts.length, fields: f.mode, consistency: f.consistency };
}

export function sniffDelimiter(text: string): Delimiter {
  let winner: Fit | undefined;
  for (const delimiter of CANDIDATES) {
    const f = fit(delimiter, fieldCounts(text, delimiter));
    if (f.mode < 2) continue;
    // Consistency first (the header row counts too, so a decimal comma in the body of a
    // semicolon file does not make comma look consistent), then more columns, then the
    // earlier (more common) delimiter.
    if (
      !winner ||
      f.consistency > winner.consistency ||
      (f.consistency === winner.consistency && f.mode > winner.mode)
    ) {
      winner = f;
    }
  }
  return winner?.delimiter ?? ',';
}
