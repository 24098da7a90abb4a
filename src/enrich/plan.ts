import { limits } from '../limits.ts';
import type {
  HighlightsFormat,
  ParseOptions,
  QueryFormat,
  QuestionFormat,
} from '../options/parse-options.ts';
import type { JsonObject } from './json.ts';

/**
 * How `summary` and `json` are made for one parse, decided in the API process (which knows the
 * model's configuration) and carried to the conversion worker with the job, as plain data.
 */
export interface EnrichPlan {
  /** `model`: the worker hands back the Markdown and the API process calls the model; `offline`: the worker does it all. */
  method: 'model' | 'offline';
  summary: boolean;
  json: { schema: JsonObject | undefined; prompt: string | undefined } | undefined;
  /** The `question` format's question: `answer`. */
  question: string | undefined;
  /** The `highlights` format's query: `highlights`. */
  highlights: string | undefined;
  /** The deprecated `query` format's prompt in `directQuote` mode: passages, as `answer`. */
  quote: string | undefined;
  /** Why the offline methods run, for their warning. */
  offlineReason: 'no-model' | 'zero-data-retention';
  /** Markdown characters the model step reads at most (its input budget over all its calls). */
  modelInputChars: number;
}

type Format = ParseOptions['formats'][number];
/** A `json` format object (the format union does not narrow on `type` alone). */
export type JsonFormat = Extract<Format, { type: 'json' }>;
export const isJsonFormat = (f: Format): f is JsonFormat => f.type === 'json';

/** The formats a language model makes when one is configured (the offline methods otherwise). */
export const isModelFormat = (f: Format): boolean =>
  f.type === 'summary' ||
  f.type === 'json' ||
  f.type === 'question' ||
  f.type === 'highlights' ||
  f.type === 'query';

/** What the plan needs to know of the configured model. */
export interface ModelSettings {
  zeroRetention: boolean;
  maxInputTokens: number;
}

export function planEnrichment(
  options: ParseOptions,
  model: ModelSettings | undefined,
): EnrichPlan | undefined {
  const summary = options.formats.some((f) => f.type === 'summary');
  const json = options.formats.find(isJsonFormat);
  const query = options.formats.find((f): f is QueryFormat => f.type === 'query');
  const question =
    options.formats.find((f): f is QuestionFormat => f.type === 'question')?.question ??
    (query?.mode === 'freeform' ? query.prompt : undefined);
  const quote = query?.mode === 'directQuote' ? query.prompt : undefined;
  const highlights = options.formats.find((f): f is HighlightsFormat => f.type === 'highlights')?.query;
  if (!summary && !json && question === undefined && highlights === undefined && quote === undefined)
    return undefined;
  // Under zero data retention no content leaves for a model unless the operator has said the
  // provider keeps nothing.
  const usable = model !== undefined && (!options.zeroDataRetention || model.zeroRetention);
  return {
    method: usable ? 'model' : 'offline',
    summary,
    // The options arrived as JSON text, so the schema is JSON.
    json: json ? { schema: json.schema as JsonObject | undefined, prompt: json.prompt } : undefined,
    question,
    highlights,
    quote,
    offlineReason: model ? 'zero-data-retention' : 'no-model',
    modelInputChars: model ? model.maxInputTokens * limits.llmCharsPerToken * limits.llmMaxChunks : 0,
  };
}

/** Why the offline method ran, as the start of its warning. */
export function offlineCause(plan: EnrichPlan): string {
  return plan.offlineReason === 'no-model'
    ? 'no language model is configured'
    : 'zero data retention is on and the configured language model is not marked as keeping nothing (QUIRE_LLM_ZERO_RETENTION), so no content was sent to it';
}
