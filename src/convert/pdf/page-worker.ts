import { parentPort } from 'node:worker_threads';
import { loadPdfJs, openPdf } from './load-document.ts';
import {
  HELPER,
  IDLE,
  type Mode,
  processPages,
  type RangeResult,
  READING,
  startState,
  takePages,
} from './page-pipeline.ts';

/** A long document to help with: its bytes, and the pages left, shared with the main thread (sharePages). */
export interface HelpJob {
  kind: 'job';
  id: number;
  bytes: Uint8Array;
  mode: Mode;
  shared: SharedArrayBuffer;
}

/** Sent once the main thread has read the first pages: what they settled. */
export interface HelpStart {
  kind: 'start';
  id: number;
  anchorLinks: boolean;
}

export type HelpReply = { id: number; result: RangeResult } | { id: number; error: string };

/**
 * The second thread for long documents: it keeps its pdf.js loaded between jobs. For each
 * job it opens the document while the main thread reads the first pages, then takes pages
 * from the shared counter until none are left, one job at a time.
 */
const pdfjs = await loadPdfJs();
const started = new Map<number, boolean>();
const waiting = new Map<number, (anchorLinks: boolean) => void>();
let queue = Promise.resolve();

function startOf(id: number): Promise<boolean> {
  const anchorLinks = started.get(id);
  started.delete(id);
  if (anchorLinks !== undefined) return Promise.resolve(anchorLinks);
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function help(job: HelpJob): Promise<HelpReply> {
  const start = startOf(job.id);
  const pdf = await openPdf(pdfjs, job.bytes, job.mode);
  try {
    const state = { ...startState(job.mode), anchorLinks: await start };
    // The main thread may have read every page already and shut this thread out.
    if (Atomics.compareExchange(new Int32Array(job.shared), HELPER, IDLE, READING) !== IDLE)
      return {
        id: job.id,
        result: { pages: [], failed: [], ocrPages: 0, ocrFailed: 0, oversizedStreams: 0 },
      };
    return {
      id: job.id,
      result: await processPages(pdfjs, pdf, takePages(job.shared, 'back'), state, job.mode),
    };
  } finally {
    await pdf.close();
  }
}

parentPort?.on('message', (message: HelpJob | HelpStart) => {
  if (message.kind === 'start') {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    if (resolve) resolve(message.anchorLinks);
    else started.set(message.id, message.anchorLinks);
    return;
  }
  queue = queue.then(async () => {
    let reply: HelpReply;
    try {
      reply = await help(message);
    } catch (err) {
      reply = { id: message.id, error: String(err) };
    }
    parentPort?.postMessage(reply);
  });
});
