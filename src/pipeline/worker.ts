import { ConversionError } from '../convert/converter.ts';
import type { Enriched, ModelInput } from '../enrich/in-worker.ts';
import { limits } from '../limits.ts';
import { mayRaisePriority, setThreadsNice } from '../process-priority.ts';
import { creditCost } from '../quota/credits.ts';
import { type BulkUpload, fetchUpload, sendAnswer } from './bulk-channel.ts';
import { type ParseData, type ParseJob, parseDocument, textToRedact, type Usage } from './parse-document.ts';

// A worker whose server has gone (killed, or crashed past its shutdown code) has nobody to answer
// and nobody to enforce the deadline: it stops at once rather than finishing a conversion that can
// run for many minutes (a long OCR) on a machine that may already run the server's replacement.
process.once('disconnect', () => process.exit(0));

/** What the HTTP layer adds to a document's metadata, known before the conversion starts. */
export interface EnvelopeMetadata {
  scrapeId: string;
  concurrencyLimited: boolean;
  concurrencyQueueDurationMs?: number;
  /** A scrape that looked in the cache and found nothing (src/scrape/scrape-cache.ts). */
  cacheState?: 'miss';
}

/** What the worker adds to the document's own metadata: the envelope, and what it cost. */
type AnswerMetadata = EnvelopeMetadata & { creditsUsed: number };

export interface WorkerJob extends ParseJob {
  envelope: EnvelopeMetadata;
}

/**
 * A job as the pool hands it to a conversion process: a large upload stays in the API process
 * until the conversion fetches it, and a large answer goes back under `answerToken`, both
 * through the pool's BulkChannel (its socket in QUIRE_BULK_SOCKET).
 */
export interface PooledJob extends Omit<WorkerJob, 'bytes'> {
  bytes: Uint8Array | BulkUpload;
  /** Absent: the answer comes back in the reply, whatever its size (a conversion run in-process). */
  answerToken?: string;
}

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
}

/**
 * What crosses back from a worker: the whole answer body, already serialised; or its parts and
 * the Markdown the API process's model calls read; or a refusal the caller should see as a 4xx.
 * The worker serialises so that the API process only passes the text on: it never builds or
 * re-encodes a large answer itself.
 */
export type WorkerResult =
  | { ok: true; body: Uint8Array; usage: Usage }
  | { ok: true; parts: AnswerParts; modelInput: ModelInput; usage: Usage }
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
  const { metadata, warning, ...outputs } = data;
  const head = JSON.stringify(outputs);
  return {
    head: `{"success":true,"data":${head.slice(0, -1)}`,
    empty: head === '{}',
    metadata: JSON.stringify({ ...metadata, ...envelope }),
    warning,
  };
}

/**
 * The body from its parts, with `late` fields (summary, json) where upstream puts them, after
 * the other outputs and before metadata, and `warnings` added to the worker's.
 */
export function joinAnswer(parts: AnswerParts, late: Enriched, warnings: string[]): string {
  const pieces = [parts.head];
  let first = parts.empty;
  const add = (key: string, json: string) => {
    pieces.push(`${first ? '' : ','}"${key}":${json}`);
    first = false;
  };
  if (late.summary !== undefined) add('summary', JSON.stringify(late.summary));
  if (late.json !== undefined) add('json', JSON.stringify(late.json));
  add('metadata', parts.metadata);
  const warning = [parts.warning, ...warnings].filter(Boolean).join(' ');
  if (warning) add('warning', JSON.stringify(warning));
  pieces.push('}}');
  return pieces.join('');
}

/**
 * Conversion worker entry. Errors lose their class crossing the process boundary, so a
 * refusal is returned as a value; anything thrown is a bug and becomes a 500.
 */
export default async function run(pooled: PooledJob): Promise<WorkerReply> {
  // The pool puts a long conversion in the background (running, a message tells it whose process
  // this is); every job starts in the foreground again. Where niceness could not be put back,
  // it is never lowered.
  process.send?.({ converting: process.pid });
  if (mayRaisePriority) setThreadsNice(process.pid, 0);
  const socketPath = process.env.QUIRE_BULK_SOCKET ?? '';
  const { answerToken, bytes, ...rest } = pooled;
  const job: WorkerJob = {
    ...rest,
    bytes: bytes instanceof Uint8Array ? bytes : await fetchUpload(socketPath, bytes),
  };
  try {
    if (job.piiModel?.stage === 'collect')
      return { ok: true, redact: await textToRedact(job, job.piiModel.maxChars) };
    const { modelInput, usage, ...data } = await parseDocument(job);
    // What the document costs is known here, so the API process never edits the body to add it;
    // beside scrapeId, where upstream has it.
    const { scrapeId, ...others } = job.envelope;
    const envelope = { scrapeId, creditsUsed: creditCost(job.format, usage), ...others };
    if (modelInput) return { ok: true, parts: answerParts(data, envelope), modelInput, usage };
    const body = answerBody(data, envelope);
    if (body.byteLength < limits.bulkMinBytes || !socketPath || !answerToken)
      return { ok: true, body, usage };
    await sendAnswer(socketPath, answerToken, body);
    return { ok: true, bulkBody: body.byteLength, usage };
  } catch (error) {
    if (error instanceof ConversionError) return { ok: false, code: error.code, message: error.message };
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return { ok: false, code: 'RESOURCE_LIMIT', message: 'The document is nested too deeply to convert.' };
    }
    throw error;
  }
}
