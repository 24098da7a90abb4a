import { isJsonObject, type JsonObject, type JsonValue, jsonIdentity, putOwn } from '../enrich/json.ts';

/** What a page's Markdown gives for a schema or prompt: the json format's value and its warning. */
export type ReadJson = (
  markdown: string,
  spec: { schema?: JsonObject; prompt?: string },
) => Promise<{ value: JsonValue | null; warning?: string }>;

/** The one field changeTracking's json mode adds: each top-level field that changed, before and after. */
export type JsonChanges = Record<string, { previous: JsonValue; current: JsonValue }>;

/** Upstream's warning, with why. */
const failed = (why: string) => `Structured diff generation failed: ${why}`;

const DEFAULT_PROMPT =
  'The changes between the previous and the current version of the page, as JSON: each changed item with its previous and current value.';

/**
 * changeTracking's json mode, for a page that changed: with a schema, the values it names are
 * read from the previous and the current Markdown alike (the json format's way: the model's, or
 * the offline extractor's), and each top-level field whose value differs is given before and
 * after; without one, the model reads both versions at once and says what changed, in the
 * prompt's terms. Without a model or a schema there is nothing to read by: null, and a warning.
 */
export async function jsonChanges(
  read: ReadJson,
  previous: string,
  current: string,
  spec: { schema?: JsonObject; prompt?: string },
  hasModel: boolean,
): Promise<{ json: JsonChanges | JsonValue | null; warning?: string }> {
  if (!spec.schema) {
    if (!hasModel)
      return {
        json: null,
        warning: failed(
          'without a language model, json mode needs a schema to read values by (QUIRE_LLM_BASE_URL configures one).',
        ),
      };
    const both = `Previous version of the page:\n\n${previous}\n\nCurrent version of the page:\n\n${current}`;
    const answer = await read(both, { prompt: spec.prompt ?? DEFAULT_PROMPT });
    return answer.value === null
      ? { json: null, warning: failed(answer.warning ?? 'the model gave no value.') }
      : { json: answer.value };
  }
  const [before, after] = await Promise.all([read(previous, spec), read(current, spec)]);
  if (!isJsonObject(before.value) || !isJsonObject(after.value))
    return {
      json: null,
      warning: failed(
        after.warning ?? before.warning ?? 'the schema gave no object for one version of the page.',
      ),
    };
  const changes: JsonChanges = {};
  for (const key of new Set([...Object.keys(after.value), ...Object.keys(before.value)])) {
    const was = before.value[key] ?? null;
    const is = after.value[key] ?? null;
    if (jsonIdentity(was) !== jsonIdentity(is)) putOwn(changes, key, { previous: was, current: is });
  }
  return { json: changes };
}
