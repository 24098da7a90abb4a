import { limits } from '../../limits.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.ts';
import { chunkText, estimateTokens } from '../llm/chunks.ts';
import { extractionMessages } from '../llm/prompts.ts';
import { type LanguageModel, ModelError } from '../llm/provider.ts';
import { completeJson } from '../llm/structured.ts';
import { compileSchema, type SchemaCheck } from '../schema-validator.ts';

/**
 * Two chunks' answers as one: objects property by property, lists joined (without repeats), and
 * for a single value the first chunk that states one.
 */
function merge(a: JsonValue, b: JsonValue): JsonValue {
  if (a === null || a === '') return b;
  if (b === null || b === '') return a;
  if (Array.isArray(a) && Array.isArray(b)) {
    const seen = new Set(a.map((v) => JSON.stringify(v)));
    return [...a, ...b.filter((v) => !seen.has(JSON.stringify(v)))];
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const out: JsonObject = { ...a };
    for (const [key, value] of Object.entries(b))
      out[key] = Object.hasOwn(a, key) ? merge(a[key]!, value) : value;
    return out;
  }
  return a;
}

const objectCheck: SchemaCheck = (value) => (isJsonObject(value) ? undefined : 'is not a JSON object');

/**
 * The document extracted into the caller's schema, or, for a prompt alone, into an object that
 * answers the prompt. Each chunk (when the document is past the budget left beside the schema
 * and prompt) is extracted on its own and the answers merged; the result is validated.
 */
export async function extractWithModel(
  model: LanguageModel,
  markdown: string,
  request: { schema: JsonObject | undefined; prompt: string | undefined },
  signal: AbortSignal,
): Promise<{ value: JsonValue; note: string | undefined }> {
  const check = request.schema ? compileSchema(request.schema) : objectCheck;
  const overhead = estimateTokens(JSON.stringify(request.schema ?? {}) + (request.prompt ?? ''));
  const budget = Math.max(
    model.settings.maxInputTokens - overhead,
    Math.ceil(model.settings.maxInputTokens / 4),
  );
  // A large schema leaves less room per call: the calls stay within limits.llmMaxChunks all the same.
  const all = chunkText(markdown, budget);
  const chunks = all.slice(0, limits.llmMaxChunks);
  const note =
    chunks.length < all.length
      ? `json: the schema leaves less room for the document in each model call, so the JSON covers its first ${chunks.reduce((n, c) => n + c.length, 0)} characters.`
      : undefined;
  const answers = await Promise.all(
    chunks.map((chunk, index) =>
      completeJson(
        model,
        extractionMessages(chunk, request, { index, count: chunks.length }),
        request.schema,
        check,
        signal,
      ),
    ),
  );
  const merged = answers.reduce(merge);
  const problem = answers.length > 1 ? check(merged) : undefined;
  if (problem)
    throw new ModelError(`the answers for the document's parts, merged, do not match the schema: ${problem}`);
  return { value: merged, note };
}
