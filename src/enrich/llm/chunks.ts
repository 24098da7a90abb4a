import { limits } from '../../limits.ts';

/** Tokens of a text, estimated: exact counts need the model's own tokenizer, which a generic endpoint does not share. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / limits.llmCharsPerToken);
}

/** Where a piece longer than a chunk is best cut: a paragraph, a line, a sentence, a word. */
function cutPoint(text: string, max: number): number {
  for (const mark of ['\n\n', '\n', '. ', ' ']) {
    const at = text.lastIndexOf(mark, max);
    if (at > max / 2) return at + mark.length;
  }
  return max;
}

/**
 * The text in consecutive chunks of at most `maxTokens` (estimated), cut at paragraph breaks
 * where possible so that a chunk starts where a reader would.
 */
export function chunkText(text: string, maxTokens: number): string[] {
  const max = maxTokens * limits.llmCharsPerToken;
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const at = cutPoint(rest, max);
    chunks.push(rest.slice(0, at).trim());
    rest = rest.slice(at);
  }
  if (rest.trim() || chunks.length === 0) chunks.push(rest.trim());
  return chunks;
}
