/**
 * JSON values as they cross Quire's boundaries (a caller's schema, a model's answer, the `json`
 * output): typed as data, never `any`, so every reader has to look before it uses one.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON a model answered with. Models asked for JSON still wrap it in a code fence or a
 * sentence now and then: the outermost object or array in the text is taken.
 */
export function parseModelJson(text: string): JsonValue {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    const start = trimmed.search(/[[{]/);
    const end = Math.max(trimmed.lastIndexOf('}'), trimmed.lastIndexOf(']'));
    if (start < 0 || end <= start) throw new SyntaxError('the answer holds no JSON value');
    return JSON.parse(trimmed.slice(start, end + 1)) as JsonValue;
  }
}
