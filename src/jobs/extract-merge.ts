import { isJsonObject, type JsonObject, type JsonValue, jsonIdentity, putOwn } from '../enrich/json.ts';

/** What one page of an extract gave: its URL and the value read from it (null: nothing). */
export interface PageValue {
  url: string;
  value: JsonValue;
}

export interface Merged {
  /** The pages' values as one: null when no page gave anything. */
  data: JsonValue;
  /**
   * For each field of `data`, the pages that gave it, by path (`name`, `address.city`,
   * `products[2]`): a value from a list is one entry, the pages that listed it its sources.
   */
  sources: Record<string, string[]>;
  /** Fields on which pages disagreed, the first page's value kept: how many. */
  conflicts: number;
}

/** A value that says nothing: a later page's value takes its place. */
function isEmpty(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.values(value).every(isEmpty);
  return false;
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * One value from each page's, in the pages' order (the order the caller listed them): objects
 * merged field by field; lists joined, an item two pages list kept once; any other field the
 * first page's that states it, a later page's only where the earlier ones say nothing. The
 * pages each value came from are kept beside it.
 */
export function mergePages(pages: readonly PageValue[]): Merged {
  const sources = new Map<string, Set<string>>();
  let conflicts = 0;
  const cite = (path: string, url: string) => {
    const urls = sources.get(path) ?? new Set<string>();
    sources.set(path, urls.add(url));
  };
  const merge = (into: JsonValue | undefined, value: JsonValue, path: string, url: string): JsonValue => {
    if (isEmpty(value)) return into ?? value;
    // Nothing yet: the value goes into an empty one of its kind, so its fields are cited one by one.
    if (isEmpty(into)) {
      if (isJsonObject(value)) into = isJsonObject(into) ? into : {};
      else if (Array.isArray(value)) into = [];
      else {
        cite(path, url);
        return value;
      }
    }
    if (isJsonObject(into) && isJsonObject(value)) {
      const out: JsonObject = {};
      for (const [key, v] of Object.entries(into)) putOwn(out, key, v);
      for (const [key, v] of Object.entries(value))
        putOwn(out, key, merge(into[key], v, child(path, key), url));
      return out;
    }
    if (Array.isArray(into) && Array.isArray(value)) return mergeList(into, value, path, url);
    if (jsonIdentity(into!) === jsonIdentity(value)) cite(path, url);
    else conflicts++;
    return into!;
  };
  const mergeList = (into: JsonValue[], items: JsonValue[], path: string, url: string): JsonValue[] => {
    const out = [...into];
    const seen = new Map(out.map((item, i) => [jsonIdentity(item), i]));
    for (const item of items) {
      if (isEmpty(item)) continue;
      const key = jsonIdentity(item);
      let at = seen.get(key);
      if (at === undefined) {
        at = out.push(item) - 1;
        seen.set(key, at);
      }
      cite(`${path}[${at}]`, url);
    }
    return out;
  };
  let data: JsonValue | undefined;
  for (const page of pages) data = merge(data, page.value, '', page.url);
  // A page's whole value, when it is not an object or a list, is cited as `data`.
  const byPath: Record<string, string[]> = {};
  for (const [path, urls] of sources) byPath[path || 'data'] = [...urls];
  return { data: isEmpty(data) ? null : data!, sources: byPath, conflicts };
}
