import { ConversionError } from '../convert/converter.ts';
import { limits } from '../limits.ts';
import { mayRaisePriority, setThreadsNice } from '../process-priority.ts';
import { creditCost } from '../quota/credits.ts';
import { answerBody, answerParts, type EnvelopeMetadata, type WorkerReply } from './answer.ts';
import { type BulkUpload, fetchUpload, sendAnswer } from './bulk-channel.ts';
import { type ParseJob, parseDocument, textToRedact } from './parse-document.ts';

// A worker whose server has gone (killed, or crashed past its shutdown code) has nobody to answer
// and nobody to enforce the deadline: it stops at once rather than finishing a conversion that can
// run for many minutes (a long OCR) on a machine that may already run the server's replacement.
process.once('disconnect', () => process.exit(0));

export interface WorkerJob extends ParseJob {
  envelope: EnvelopeMetadata;
  /** What the API process still adds: then the answer comes back in parts (and its Markdown, to compare). */
  handBack?: { parts: boolean; markdown: boolean };
  /** Work nobody waits on (a crawl's or a batch's page): it runs in the background from the start. */
  background?: boolean;
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

/**
 * Conversion worker entry. Errors lose their class crossing the process boundary, so a
 * refusal is returned as a value; anything thrown is a bug and becomes a 500.
 */
export default async function run(pooled: PooledJob): Promise<WorkerReply> {
  // The pool puts a long conversion in the background (running, a message tells it whose process
  // this is); every job but a background one starts in the foreground again. Where niceness could
  // not be put back, it is never lowered.
  process.send?.({ converting: process.pid });
  if (mayRaisePriority) setThreadsNice(process.pid, pooled.background ? limits.backgroundNice : 0);
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
    if (modelInput || job.handBack?.parts) {
      const markdown = job.handBack?.markdown ? data.markdown : undefined;
      return { ok: true, parts: answerParts(data, envelope), modelInput, markdown, usage };
    }
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
