import { limits } from '../../limits.ts';
import { isJsonObject, type JsonObject, type JsonValue, parseModelJson } from '../json.ts';
import type { SchemaCheck } from '../schema-validator.ts';
import { type ChatMessage, type LanguageModel, ModelError, type ResponseFormat } from './provider.ts';

/**
 * OpenAI's strict mode accepts only schemas whose every object lists all its properties as
 * required and forbids others; any other schema is sent as guidance (`strict: false`) and the
 * answer is checked here all the same.
 */
function strictCompatible(node: JsonValue): boolean {
  if (Array.isArray(node)) return node.every(strictCompatible);
  if (!isJsonObject(node)) return true;
  if (isJsonObject(node.properties)) {
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (!Object.keys(node.properties).every((k) => required.includes(k))) return false;
  }
  return Object.values(node).every(strictCompatible);
}

/** The caller's schema as a response format: without `$schema`, which some servers refuse. */
function schemaFormat(schema: JsonObject): ResponseFormat {
  const { $schema: _, ...rest } = schema;
  return {
    type: 'json_schema',
    json_schema: { name: 'extraction', schema: rest, strict: strictCompatible(rest) },
  };
}

/**
 * One call, with the best structured-output mode the server accepts: `json_schema`, else
 * `json_object`, else none (the schema is in the prompt in every case, so the model knows it).
 */
async function callForJson(
  model: LanguageModel,
  messages: ChatMessage[],
  schema: JsonObject | undefined,
  signal: AbortSignal,
): Promise<string> {
  for (;;) {
    const format: ResponseFormat | undefined =
      schema && model.accepts.json_schema
        ? schemaFormat(schema)
        : model.accepts.json_object
          ? { type: 'json_object' }
          : undefined;
    try {
      return await model.complete({
        messages,
        responseFormat: format,
        maxTokens: limits.llmJsonTokens,
        signal,
      });
    } catch (error) {
      if (!(error instanceof ModelError && error.refusedFormat && format)) throw error;
      model.accepts[format.type] = false;
    }
  }
}

/**
 * A JSON answer checked against the schema (or, for a prompt alone, for being an object). A
 * wrong answer is sent back once with what was wrong; a second wrong answer fails.
 */
export async function completeJson(
  model: LanguageModel,
  messages: ChatMessage[],
  schema: JsonObject | undefined,
  check: SchemaCheck,
  signal: AbortSignal,
): Promise<JsonValue> {
  let conversation = messages;
  let problem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const text = await callForJson(model, conversation, schema, signal);
    let value: JsonValue | undefined;
    try {
      value = parseModelJson(text);
      problem = check(value) ?? '';
    } catch (error) {
      problem = `is not JSON (${(error as Error).message})`;
    }
    if (!problem && value !== undefined) return value;
    conversation = [
      ...messages,
      { role: 'assistant', content: text.slice(0, limits.llmJsonTokens * limits.llmCharsPerToken) },
      {
        role: 'user',
        content: `That answer ${problem.startsWith('is ') ? problem : `does not match the schema: ${problem}`}. Answer again with the corrected JSON alone.`,
      },
    ];
  }
  throw new ModelError(`the model's answer did not match the schema after one retry: ${problem}`);
}
