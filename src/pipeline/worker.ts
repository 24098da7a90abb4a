import { ConversionError } from '../convert/converter.ts';
import { type ParseData, type ParseJob, parseDocument } from './parse-document.ts';

/** What crosses back from a worker: data, or a refusal the caller should see as a 4xx. */
export type WorkerResult =
  | { ok: true; data: ParseData }
  | { ok: false; code: ConversionError['code']; message: string };

/**
 * Conversion worker entry. Errors lose their class crossing the process boundary, so a
 * refusal is returned as a value; anything thrown is a bug and becomes a 500.
 */
export default async function run(job: ParseJob): Promise<WorkerResult> {
  try {
    return { ok: true, data: await parseDocument(job) };
  } catch (error) {
    if (error instanceof ConversionError) return { ok: false, code: error.code, message: error.message };
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return { ok: false, code: 'RESOURCE_LIMIT', message: 'The document is nested too deeply to convert.' };
    }
    throw error;
  }
}
