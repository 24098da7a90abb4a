import { ConversionError } from '../convert/converter.ts';
import { type ParseData, type ParseJob, parseDocument } from './parse-document.ts';

/** What the HTTP layer adds to a document's metadata, known before the conversion starts. */
export interface EnvelopeMetadata {
  scrapeId: string;
  concurrencyLimited: boolean;
  concurrencyQueueDurationMs?: number;
}

export interface WorkerJob extends ParseJob {
  envelope: EnvelopeMetadata;
}

/**
 * What crosses back from a worker: the whole answer body, already serialised, or a refusal the
 * caller should see as a 4xx. The worker serialises so that the API process only passes the
 * text on: it never builds or re-encodes a large answer itself.
 */
export type WorkerResult =
  | { ok: true; body: string }
  | { ok: false; code: ConversionError['code']; message: string };

/** The envelope upstream answers with, metadata last as it does. */
export function answerBody(data: ParseData, envelope: EnvelopeMetadata): string {
  return JSON.stringify({ success: true, data: { ...data, metadata: { ...data.metadata, ...envelope } } });
}

/**
 * Conversion worker entry. Errors lose their class crossing the process boundary, so a
 * refusal is returned as a value; anything thrown is a bug and becomes a 500.
 */
export default async function run(job: WorkerJob): Promise<WorkerResult> {
  try {
    return { ok: true, body: answerBody(await parseDocument(job), job.envelope) };
  } catch (error) {
    if (error instanceof ConversionError) return { ok: false, code: error.code, message: error.message };
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return { ok: false, code: 'RESOURCE_LIMIT', message: 'The document is nested too deeply to convert.' };
    }
    throw error;
  }
}
