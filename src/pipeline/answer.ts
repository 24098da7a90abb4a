// The answer a conversion gives, as it crosses from a conversion process to the API process: a
// module of its own, so that the API process, which joins answers, loads no converter.
import type { ConversionError } from '../convert/converter.ts';
import type { Enriched, ModelInput } from '../enrich/in-worker.ts';
import type { ParseData, Usage } from './parse-document.ts';

/** What the HTTP layer adds to a document's metadata, known before the conversion starts. */
export interface EnvelopeMetadata {
  scrapeId: string;
  concurrencyLimited: boolean;
  concurrencyQueueDurationMs?: number;
  /** A scrape that looked in the cache and found nothing (src/scrape/scrape-cache.ts). */
  cacheState?: 'miss';
}

/** What the worker adds to the document's own metadata: the envelope, and what it cost. */
export type AnswerMetadata = EnvelopeMetadata & { creditsUsed: number };

/** What a conversion process answers the pool: a result, or word that its body went by the socket. */
export type WorkerReply = WorkerResult | { ok: true; bulkBody: number; usage: Usage };

/**
 * The answer body in pieces, for when the API process still has fields to add (summary and json
 * from a model): each piece serialised here, so the API process only joins text and never
 * parses or re-encodes the large part.
 */
export interface AnswerParts {
  /** `{"success":true,"data":{` and the outputs that come before summary and json, without a closing brace. */
  head: string;
  /** Whether `head` holds no output (no comma before the next field). */
  empty: boolean;
  /** The `metadata` object, serialised. */
  metadata: string;
  warning: string | undefined;
  /** The worker's fields that come after `warning` (`"product":{…},"menu":{…}`), serialised; '' when none. */
  trailing: string;
}

/**
 * What crosses back from a worker: the whole answer body, already serialised; or its parts and
 * the Markdown the API process's model calls read; or a refusal the caller should see as a 4xx.
 * The worker serialises so that the API process only passes the text on: it never builds or
 * re-encodes a large answer itself.
 */
export type WorkerResult =
  | { ok: true; body: Uint8Array; usage: Usage }
  | {
      ok: true;
      parts: AnswerParts;
      /** What the model reads for summary and json, when a model is to make them. */
      modelInput?: ModelInput;
      /** The answer's Markdown, when the API process compares it with an earlier scrape's. */
      markdown?: string;
      usage: Usage;
    }
  /** The text for a model to find personal information in (`redactPII` accurate, first step). */
  | { ok: true; redact: { text: string; textChars: number } }
  | { ok: false; code: ConversionError['code']; message: string };

/**
 * The envelope upstream answers with, metadata last as it does, as UTF-8 bytes: the API process
 * writes them to the socket as they are. Handed over as a string, an 11 MB answer cost the API
 * process's event loop half a second (encoding it for the socket, and the garbage), during which
 * every other request waited.
 */
export function answerBody(data: ParseData, envelope: AnswerMetadata): Uint8Array {
  return Buffer.from(
    JSON.stringify({ success: true, data: { ...data, metadata: { ...data.metadata, ...envelope } } }),
  );
}

export function answerParts(data: ParseData, envelope: AnswerMetadata): AnswerParts {
  const { metadata, warning, product, menu, ...outputs } = data;
  const head = JSON.stringify(outputs);
  const trailing = JSON.stringify({ product, menu });
  return {
    head: `{"success":true,"data":${head.slice(0, -1)}`,
    empty: head === '{}',
    metadata: JSON.stringify({ ...metadata, ...envelope }),
    warning,
    trailing: trailing === '{}' ? '' : trailing.slice(1, -1),
  };
}

/**
 * What the API process adds to a worker's answer, each field where the contract's data object
 * has it: `outputs` after the worker's outputs and before metadata (summary and json, where
 * upstream answers them, then a rendered page's screenshot and actions); `trailing` after
 * `warning` (changeTracking and branding, as the contract's table lists them); `warnings` joined to the worker's.
 */
export interface LateFields {
  outputs: Enriched & { screenshot?: string; actions?: unknown };
  trailing: { changeTracking?: unknown; branding?: unknown };
  warnings: string[];
}

export const noLateFields = (): LateFields => ({ outputs: {}, trailing: {}, warnings: [] });

/** The body from the worker's parts and the API process's fields, joined as text, never re-encoded. */
export function joinAnswer(parts: AnswerParts, late: LateFields): string {
  const pieces = [parts.head];
  let first = parts.empty;
  const add = (key: string, json: string) => {
    pieces.push(`${first ? '' : ','}"${key}":${json}`);
    first = false;
  };
  const addAll = (fields: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(fields))
      if (value !== undefined) add(key, JSON.stringify(value));
  };
  // Fixed order, whatever order the fields were made in.
  const { summary, json, answer, highlights, screenshot, actions } = late.outputs;
  addAll({ summary, json, answer, highlights, screenshot, actions });
  add('metadata', parts.metadata);
  const warning = [parts.warning, ...late.warnings].filter(Boolean).join(' ');
  if (warning) add('warning', JSON.stringify(warning));
  addAll({ changeTracking: late.trailing.changeTracking, branding: late.trailing.branding });
  if (parts.trailing) pieces.push(`,${parts.trailing}`);
  pieces.push('}}');
  return pieces.join('');
}
