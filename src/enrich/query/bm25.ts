import { contentWords } from '../words.ts';

/** Okapi BM25's usual constants: term frequency saturates (k1), long passages are discounted (b). */
const K1 = 1.2;
const B = 0.75;

/**
 * Okapi BM25 scores of each passage for `query`, over content words (lowercase, singular, no
 * function words): a passage scores for each query word it holds, more for words few passages
 * hold, less as it grows longer than the average. 0 for a passage that holds none. Written out
 * here rather than taken from a search library: the passages are one page's, scored once, with
 * the tokenizer the other offline methods share.
 */
export function bm25(passages: readonly string[], query: string): number[] {
  const docs = passages.map((p) => contentWords(p));
  const terms = [...new Set(contentWords(query))];
  const n = docs.length;
  if (n === 0 || terms.length === 0) return docs.map(() => 0);
  const average = docs.reduce((sum, d) => sum + d.length, 0) / n || 1;
  const holding = new Map(terms.map((t) => [t, docs.filter((d) => d.includes(t)).length]));
  return docs.map((doc) => {
    let score = 0;
    for (const term of terms) {
      const f = doc.filter((w) => w === term).length;
      if (f === 0) continue;
      const df = holding.get(term)!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / average));
    }
    return score;
  });
}
