import { parentPort } from 'node:worker_threads';
import { loadPdfJs, openPdf } from './load-document.ts';
import { type Mode, processRange, type RangeResult } from './page-pipeline.ts';

export interface RangeJob {
  id: number;
  bytes: Uint8Array;
  from: number;
  to: number;
  mode: Mode;
}

export type RangeReply = { id: number; result: RangeResult } | { id: number; error: string };

/**
 * The second thread for long documents: it keeps its pdf.js loaded between jobs and lays
 * out the page range of each job it is sent, one job at a time.
 */
const pdfjs = await loadPdfJs();
let queue = Promise.resolve();
parentPort?.on('message', (job: RangeJob) => {
  queue = queue.then(async () => {
    let reply: RangeReply;
    try {
      const { task, doc } = await openPdf(pdfjs, job.bytes);
      try {
        reply = { id: job.id, result: await processRange(pdfjs, doc, job.from, job.to, job.mode) };
      } finally {
        await task.destroy().catch(() => {});
      }
    } catch (err) {
      reply = { id: job.id, error: String(err) };
    }
    parentPort?.postMessage(reply);
  });
});
