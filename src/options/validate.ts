import type { z } from 'zod';
import type { JsonObject } from '../enrich/json.ts';
import { isJsonFormat } from '../enrich/plan.ts';
import { schemaProblem } from '../enrich/schema-validator.ts';
import { ApiError, badRequest } from '../errors.ts';
import { type ParseOptions, parseOptionsSchema, scrapeOnlyFormats } from './parse-options.ts';

/** `options.parsers[0].maxPages`: the path a caller would write to reach the field. */
export function fieldPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}

/** The value at an issue's path in what the caller sent (zod does not keep it). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The issues of the one union branch whose type the value has (`redactPII` given an object is
 * judged as PII options, not as a boolean), so the message names the inner field and rule.
 */
function matchedBranch(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] | undefined {
  const typed = issue.errors.filter(
    (branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0),
  );
  if (typed.length !== 1) return undefined;
  return typed[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }));
}

export function describeIssue(root: string, issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'invalid_union') {
    const inner = matchedBranch(issue);
    if (inner) return inner.map((i) => describeIssue(root, i, input)).join('; ');
    // A shorthand string that names no variant ("parsers": ["docx"]) is wrong as a whole.
    const parent = issue.path.slice(0, -1);
    if (issue.path.length > 0 && typeof valueAt(input, parent) === 'string')
      return `${fieldPath(root, parent)} ${issue.message}`;
  }
  const where = fieldPath(root, issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    return `${where} has unrecognized key${issue.keys.length > 1 ? 's' : ''} ${keys}; see the v2 API documentation for the accepted fields`;
  }
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined)
    return `${where} is required`;
  return `${where} ${issue.message}`;
}

/** 400 BAD_REQUEST whose message names every field and rule that failed. */
export function validationError(root: string, error: z.ZodError, input: unknown): ApiError {
  const messages = error.issues.map((issue) => describeIssue(root, issue, input));
  return badRequest(messages.join('; '), error.issues);
}

const scrapeOnlyOptions: Record<string, (value: unknown) => boolean> = {
  actions: (v) => Array.isArray(v) && v.length > 0,
  waitFor: (v) => typeof v === 'number' && v > 0,
  location: (v) => v !== undefined && v !== null,
  mobile: (v) => v === true,
  minAge: (v) => v !== undefined,
  fastMode: (v) => v === true,
};

function unsupported(what: string): ApiError {
  return new ApiError(400, 'PARSE_UNSUPPORTED_OPTIONS', `Parse uploads do not support ${what}.`);
}

/** Refuse what only makes sense for a live page, naming it (upstream's PARSE_UNSUPPORTED_OPTIONS). */
function checkScrapeOnly(raw: Record<string, unknown>): void {
  const formats = raw.formats;
  if (Array.isArray(formats)) {
    formats.forEach((f, i) => {
      const type = typeof f === 'string' ? f : (f as { type?: unknown } | null)?.type;
      if (typeof type === 'string' && (scrapeOnlyFormats as readonly string[]).includes(type)) {
        throw unsupported(`the ${type} format (options.formats[${i}])`);
      }
    });
  }
  for (const [key, isUsed] of Object.entries(scrapeOnlyOptions)) {
    if (isUsed(raw[key])) throw unsupported(`options.${key}`);
  }
  if (raw.proxy !== undefined && raw.proxy !== 'basic' && raw.proxy !== 'auto') {
    throw unsupported(`options.proxy "${String(raw.proxy)}" (only "basic" and "auto" are supported)`);
  }
}

/**
 * A `json` format's schema must be one Quire can validate answers against (ajv compiles it), so a
 * broken schema is the caller's 400 rather than every answer failing later.
 */
function checkJsonSchemas(options: ParseOptions, root: string): void {
  options.formats.forEach((f, i) => {
    if (!isJsonFormat(f) || !f.schema) return;
    // The options arrived as JSON text, so the schema is JSON.
    const problem = schemaProblem(f.schema as JsonObject);
    if (problem) throw badRequest(`${root}.formats[${i}].schema ${problem}`);
  });
}

/**
 * What redactPII cannot be combined with. `rawHtml` is the source exactly as uploaded: redacting
 * it would mean rewriting markup, scripts, attributes and comments that the document model never
 * reads, and a redaction that misses one of them is worse than none, so the two are refused
 * together (the `html` format is the redacted page). An empty `entities` list would redact
 * nothing while the caller believes it redacts.
 */
function checkRedaction(options: ParseOptions, root: string): void {
  if (options.redactPII === false) return;
  const raw = options.formats.findIndex((f) => f.type === 'rawHtml');
  if (raw >= 0) {
    throw badRequest(
      `${root}.formats[${raw}] rawHtml cannot be combined with ${root}.redactPII: rawHtml is the unmodified source, which is never redacted; ask for html, which is`,
    );
  }
  if (options.redactPII !== true && options.redactPII.entities?.length === 0)
    throw badRequest(
      `${root}.redactPII.entities must name at least one of PERSON, EMAIL, PHONE, LOCATION, FINANCIAL, SECRET (leave it out for all)`,
    );
}

export function validateParseOptions(raw: unknown): ParseOptions {
  if (raw === undefined) raw = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badRequest("The 'options' field must parse to a JSON object.");
  }
  checkScrapeOnly(raw as Record<string, unknown>);
  const parsed = parseOptionsSchema.safeParse(raw);
  if (!parsed.success) throw validationError('options', parsed.error, raw);
  checkParsedOptions(parsed.data, 'options');
  return parsed.data;
}

/** The checks after the schema, shared with scrape; `root` is where the options sit (`options`, `body`). */
export function checkParsedOptions(options: ParseOptions, root: string): void {
  checkJsonSchemas(options, root);
  checkRedaction(options, root);
}
