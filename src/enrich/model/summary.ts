import { limits } from '../../limits.ts';
import { chunkText, estimateTokens } from '../llm/chunks.ts';
import { combineMessages, summaryMessages } from '../llm/prompts.ts';
import type { LanguageModel } from '../llm/provider.ts';

/**
 * An abstractive summary. A document past the model's input budget is summarised chunk by chunk
 * (the calls run side by side, as the model's concurrency allows), then the chunks' summaries are
 * combined, in groups that each fit the budget, until one is left.
 */
export async function summariseWithModel(
  model: LanguageModel,
  markdown: string,
  signal: AbortSignal,
): Promise<string> {
  const ask = async (messages: ReturnType<typeof summaryMessages>) =>
    (await model.complete({ messages, maxTokens: limits.llmSummaryTokens, signal })).trim();
  const chunks = chunkText(markdown, model.settings.maxInputTokens);
  let summaries = await Promise.all(
    chunks.map((chunk, index) => ask(summaryMessages(chunk, { index, count: chunks.length }))),
  );
  while (summaries.length > 1) {
    const groups: string[][] = [[]];
    let tokens = 0;
    for (const summary of summaries) {
      const cost = estimateTokens(summary);
      // A group holds at least two summaries, so every round halves their number at least.
      if (tokens + cost > model.settings.maxInputTokens && groups[groups.length - 1]!.length >= 2) {
        groups.push([]);
        tokens = 0;
      }
      groups[groups.length - 1]!.push(summary);
      tokens += cost;
    }
    summaries = await Promise.all(
      groups.map((group) => (group.length === 1 ? group[0]! : ask(combineMessages(group)))),
    );
  }
  return summaries[0] ?? '';
}
