import { limits } from '../../limits.ts';
import type { ModelEntity } from '../../transform/pii/index.ts';
import type { PiiBucket } from '../../transform/pii/spans.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import { chunkText } from '../llm/chunks.ts';
import { piiMessages } from '../llm/prompts.ts';
import type { LanguageModel } from '../llm/provider.ts';
import { completeJson } from '../llm/structured.ts';
import { compileSchema } from '../schema-validator.ts';

/** The answer's shape; `buckets` as an enum for the model, left out for the check (a type not asked for is dropped, not a failed answer). */
function entitiesSchema(buckets?: readonly PiiBucket[]): JsonObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['entities'],
    properties: {
      entities: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['text', 'type'],
          properties: {
            text: { type: 'string' },
            type: buckets ? { type: 'string', enum: [...buckets] } : { type: 'string' },
          },
        },
      },
    },
  };
}

/**
 * The personal information a language model finds in `text` (`redactPII` mode accurate), read in
 * chunks of the model's input size, at most limits.llmMaxChunks of them. A string the model
 * names is kept only if its chunk contains it verbatim: the answer is checked against the text,
 * so an invented or retyped span redacts nothing. `readChars` says how far the model read.
 */
export async function findPiiWithModel(
  model: LanguageModel,
  text: string,
  buckets: readonly PiiBucket[],
  signal: AbortSignal,
): Promise<{ entities: ModelEntity[]; readChars: number }> {
  const all = chunkText(text, model.settings.maxInputTokens);
  const chunks = all.slice(0, limits.llmMaxChunks);
  const readChars =
    chunks.length < all.length ? text.indexOf(chunks.at(-1)!) + chunks.at(-1)!.length : text.length;
  const schema = entitiesSchema(buckets);
  const check = compileSchema(entitiesSchema());
  const answers = await Promise.all(
    chunks.map((chunk, index) =>
      completeJson(
        model,
        piiMessages(chunk, buckets, { index, count: chunks.length }),
        schema,
        check,
        signal,
      ).then((value) => ({ chunk, value })),
    ),
  );
  const seen = new Set<string>();
  const entities: ModelEntity[] = [];
  for (const { chunk, value } of answers) {
    const list = isJsonObject(value) && Array.isArray(value.entities) ? value.entities : [];
    for (const item of list) {
      if (!isJsonObject(item) || typeof item.text !== 'string' || typeof item.type !== 'string') continue;
      const found = item.text.trim();
      const bucket = item.type as PiiBucket;
      const key = `${bucket}\u0000${found}`;
      // A single character would redact every occurrence of a letter or digit.
      if (found.length < 2 || !buckets.includes(bucket) || !chunk.includes(found) || seen.has(key)) continue;
      seen.add(key);
      entities.push({ text: found, bucket });
      if (entities.length >= limits.piiModelEntities) return { entities, readChars };
    }
  }
  return { entities, readChars };
}
