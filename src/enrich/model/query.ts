import { limits } from '../../limits.ts';
import type { JsonObject } from '../json.ts';
import { estimateTokens } from '../llm/chunks.ts';
import { highlightMessages, questionMessages } from '../llm/prompts.ts';
import type { LanguageModel } from '../llm/provider.ts';
import { completeJson } from '../llm/structured.ts';
import { bm25 } from '../query/bm25.ts';
import { passages } from '../query/offline.ts';

/**
 * The page's passages that one call can read, chosen by how well they match the query (BM25,
 * the best first until the model's input budget is spent) and given in the page's order: a
 * long page's answer is in its relevant parts, not in its first ones.
 */
function relevantPassages(markdown: string, query: string, maxTokens: number): string[] {
  const all = passages(markdown);
  const scores = bm25(all, query);
  const order = all.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const chosen: number[] = [];
  let tokens = 0;
  for (const i of order) {
    const cost = estimateTokens(all[i]!) + 4;
    if (tokens + cost > maxTokens) continue;
    chosen.push(i);
    tokens += cost;
  }
  return chosen.sort((a, b) => a - b).map((i) => all[i]!);
}

/** `question`: the model's short answer from the page's passages that bear on it most. */
export async function answerWithModel(
  model: LanguageModel,
  markdown: string,
  question: string,
  signal: AbortSignal,
): Promise<string> {
  const text = relevantPassages(markdown, question, model.settings.maxInputTokens).join('\n\n');
  const messages = questionMessages(text, question);
  return (await model.complete({ messages, maxTokens: limits.llmSummaryTokens, signal })).trim();
}

const HIGHLIGHTS_SCHEMA: JsonObject = {
  type: 'object',
  properties: { passages: { type: 'array', items: { type: 'integer' } } },
  required: ['passages'],
  additionalProperties: false,
};

/**
 * `highlights`: the passages the model picks, by number, from those that bear on the query
 * most; returned verbatim, in the page's order (null when it picks none).
 */
export async function highlightWithModel(
  model: LanguageModel,
  markdown: string,
  query: string,
  signal: AbortSignal,
): Promise<string | null> {
  const offered = relevantPassages(markdown, query, model.settings.maxInputTokens);
  const numbered = offered.map((p, i) => `[${i + 1}]\n${p}`).join('\n\n');
  const check = (value: unknown) => {
    const picked = (value as { passages?: unknown } | null)?.passages;
    if (!Array.isArray(picked) || !picked.every((n) => Number.isInteger(n) && n >= 1 && n <= offered.length))
      return `"passages" must be a list of passage numbers from 1 to ${offered.length}`;
    return undefined;
  };
  const answer = (await completeJson(
    model,
    highlightMessages(numbered, query),
    HIGHLIGHTS_SCHEMA,
    check,
    signal,
  )) as {
    passages: number[];
  };
  // The model lists the most relevant first: those are kept, then put in the page's order.
  const picked = [...new Set(answer.passages)].slice(0, limits.highlightPassages).sort((a, b) => a - b);
  return picked.length > 0 ? picked.map((n) => offered[n - 1]).join('\n\n') : null;
}
