import { limits } from '../limits.ts';
import type { Enriched, ModelInput } from './in-worker.ts';
import type { LanguageModel } from './llm/provider.ts';
import { extractWithModel } from './model/json.ts';
import { answerWithModel, highlightWithModel } from './model/query.ts';
import { summariseWithModel } from './model/summary.ts';
import type { EnrichPlan } from './plan.ts';
import {
  answerFromSentences,
  highlightPassages,
  type PassageAsk,
  passageAsks,
  passages,
} from './query/offline.ts';

/**
 * The enrich step's part in the API process: the model calls, on the Markdown the worker handed
 * back. A failure of the model (an error, a wrong answer twice, the deadline) gives `null` and a
 * warning for that output, never a failed parse; only the request itself ending (the client
 * gone) is thrown.
 */
export async function enrichWithModel(
  model: LanguageModel,
  input: ModelInput,
  plan: EnrichPlan,
  signal: AbortSignal,
): Promise<{ fields: Enriched; warnings: string[] }> {
  const fields: Enriched = {};
  const warnings: string[] = [];
  if (input.cutFrom !== undefined) {
    warnings.push(
      `The document's Markdown (${input.cutFrom} characters) is longer than the language model reads (${limits.llmMaxChunks} calls of QUIRE_LLM_MAX_INPUT_TOKENS); summary and json cover its first ${input.markdown.length} characters.`,
    );
  }
  if (!input.markdown.trim()) {
    if (plan.summary) {
      fields.summary = null;
      warnings.push('summary: the document has no text to summarise; summary is null.');
    }
    if (plan.json) {
      fields.json = null;
      warnings.push('JSON extraction did not produce a result: the document has no text.');
    }
    // Upstream's words.
    if (plan.question !== undefined || plan.quote !== undefined) fields.answer = null;
    if (plan.highlights !== undefined) fields.highlights = null;
    if (plan.question !== undefined || plan.highlights !== undefined || plan.quote !== undefined)
      warnings.push('Query was skipped because the markdown content is empty.');
    return { fields, warnings };
  }
  const [summary, json, answer, highlights, quoted] = await Promise.allSettled([
    plan.summary ? summariseWithModel(model, input.markdown, signal) : undefined,
    plan.json ? extractWithModel(model, input.markdown, plan.json, signal) : undefined,
    plan.question !== undefined ? answerWithModel(model, input.markdown, plan.question, signal) : undefined,
    plan.highlights !== undefined
      ? highlightWithModel(model, input.markdown, plan.highlights, signal)
      : undefined,
    plan.quote !== undefined ? highlightWithModel(model, input.markdown, plan.quote, signal) : undefined,
  ]);
  const reason = (result: PromiseRejectedResult) => {
    // The request is over (its client has gone): nothing will read a warning.
    if (signal.aborted && !(signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError'))
      throw signal.reason;
    const error: unknown = result.reason;
    return (error instanceof Error ? error.message : String(error)).slice(0, limits.llmErrorChars);
  };
  if (plan.summary) {
    fields.summary = summary.status === 'fulfilled' ? (summary.value ?? null) : null;
    if (summary.status === 'rejected')
      warnings.push(`summary: the language model failed (${reason(summary)}); summary is null.`);
  }
  if (plan.json) {
    fields.json = json.status === 'fulfilled' ? (json.value?.value ?? null) : null;
    if (json.status === 'fulfilled' && json.value?.note) warnings.push(json.value.note);
    // Upstream's wording, so clients that look for it find it.
    if (json.status === 'rejected') warnings.push(`JSON extraction failed: ${reason(json)}`);
  }
  // A failed model leaves question and highlights to the offline ranking, which needs none.
  if (plan.question !== undefined) {
    if (answer.status === 'fulfilled') fields.answer = answer.value ?? null;
    else {
      fields.answer = answerFromSentences(passages(input.markdown), plan.question);
      warnings.push(
        `question: the language model failed (${reason(answer)}); the answer is the page's sentences that best match the question (ranked by BM25), not a written answer.`,
      );
    }
  }
  // A failed model leaves the passages to the offline ranking too.
  const picked = (
    ask: PassageAsk,
    result: PromiseSettledResult<string | null | undefined>,
    query: string,
  ) => {
    if (result.status === 'fulfilled') return result.value ?? null;
    warnings.push(
      `${ask.label}: the language model failed (${reason(result)}); the passages that best match the ${ask.noun} (ranked by BM25) were ${ask.verb}.`,
    );
    return highlightPassages(input.markdown, query);
  };
  if (plan.highlights !== undefined)
    fields.highlights = picked(passageAsks.highlights, highlights, plan.highlights);
  if (plan.quote !== undefined) fields.answer = picked(passageAsks.quote, quoted, plan.quote);
  return { fields, warnings };
}
