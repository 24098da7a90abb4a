import { limits } from '../../limits.ts';
import { isJsonObject, type JsonObject } from '../json.ts';

/**
 * What a JSON Schema asks for, as the offline extraction needs it: the type of each value, an
 * object's properties with their names, titles and descriptions, an array's items. Read
 * defensively from a caller's schema: local `$ref`s resolved, `allOf` merged, the non-null branch
 * of `anyOf`/`oneOf` taken, and anything it cannot read treated as "unknown" rather than trusted.
 */
export type Shape =
  | { type: 'object'; properties: Property[] }
  | { type: 'array'; items: Shape }
  | { type: 'string'; format: string | undefined; enum: string[] | undefined }
  | { type: 'number' | 'integer' | 'boolean' | 'unknown' };

export interface Property {
  name: string;
  title: string | undefined;
  description: string | undefined;
  shape: Shape;
}

const unknown: Shape = { type: 'unknown' };

/** `#/$defs/Item` inside the root schema; other references are not followed. */
function resolveRef(ref: string, root: JsonObject): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isJsonObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function declaredType(node: JsonObject): string | undefined {
  const t = node.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null');
  if (isJsonObject(node.properties)) return 'object';
  if (node.items !== undefined) return 'array';
  if (Array.isArray(node.enum) && node.enum.every((v) => typeof v === 'string')) return 'string';
  return undefined;
}

/** `allOf` parts and the first branch of `anyOf`/`oneOf` that is not `{type: "null"}`, folded in. */
function flatten(node: JsonObject, root: JsonObject, depth: number): JsonObject {
  let out: JsonObject = { ...node };
  if (typeof out.$ref === 'string') {
    const target = resolveRef(out.$ref, root);
    if (isJsonObject(target) && depth < limits.schemaDepth)
      out = { ...flatten(target, root, depth + 1), ...out };
    delete out.$ref;
  }
  const branches = [out.anyOf, out.oneOf].find(Array.isArray);
  if (branches && declaredType(out) === undefined) {
    const pick = branches.find((b) => isJsonObject(b) && b.type !== 'null');
    if (isJsonObject(pick)) out = { ...flatten(pick, root, depth + 1), ...out };
  }
  if (Array.isArray(out.allOf)) {
    const properties: JsonObject = isJsonObject(out.properties) ? { ...out.properties } : {};
    for (const part of out.allOf) {
      if (!isJsonObject(part)) continue;
      const flat = flatten(part, root, depth + 1);
      if (isJsonObject(flat.properties)) Object.assign(properties, flat.properties);
      out = { ...flat, ...out };
    }
    if (Object.keys(properties).length > 0) out.properties = properties;
  }
  return out;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** The shape of one schema node; `root` is the whole schema, for `$ref`s. */
export function shapeOf(node: unknown, root: JsonObject, depth = 0): Shape {
  if (!isJsonObject(node) || depth > limits.schemaDepth) return unknown;
  const flat = flatten(node, root, depth);
  switch (declaredType(flat)) {
    case 'object': {
      const properties = isJsonObject(flat.properties) ? flat.properties : {};
      return {
        type: 'object',
        properties: Object.entries(properties).map(([name, sub]) => {
          const subFlat = isJsonObject(sub) ? flatten(sub, root, depth + 1) : {};
          return {
            name,
            title: text(subFlat.title),
            description: text(subFlat.description),
            shape: shapeOf(sub, root, depth + 1),
          };
        }),
      };
    }
    case 'array':
      return { type: 'array', items: shapeOf(flat.items, root, depth + 1) };
    case 'string':
      return {
        type: 'string',
        format: text(flat.format),
        enum: Array.isArray(flat.enum)
          ? flat.enum.filter((v): v is string => typeof v === 'string')
          : undefined,
      };
    case 'number':
    case 'integer':
    case 'boolean':
      return { type: declaredType(flat) as 'number' | 'integer' | 'boolean' };
    default:
      return unknown;
  }
}
