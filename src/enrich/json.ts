/**
 * JSON values as they cross Quire's boundaries (a caller's schema, a model's answer, the `json`
 * output): typed as data, never `any`, so every reader has to look before it uses one.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, whatever its name (`__proto__` included): keys from a page or a schema are data. */
export function putOwn<T>(out: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A key that is the same for two values that are the same, whatever their objects' key order. */
export function jsonIdentity(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(jsonIdentity).join(',')}]`;
  if (isJsonObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${jsonIdentity(value[k]!)}`)
      .join(',')}}`;
  return JSON.stringify(value);
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
