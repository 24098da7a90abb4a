import { Worker } from 'node:worker_threads';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { limits } from '../../limits.ts';
import type { PdfJs } from './load-document.ts';
import { type Mode, processRange, type RangeResult } from './page-pipeline.ts';
import type { RangeJob, RangeReply } from './page-worker.ts';

/**
 * Pages to lay out, split over two threads when the document is long: the tail goes to a
 * helper thread while this one does the head. pdf.js is single-threaded and CPU-bound, so
 * this halves the wall time of a long document when a core is free. The helper thread is
 * started once and kept (unreferenced, so it never holds the process open); if it fails,
 * its pages are read here.
 */
export async function readPages(
  pdfjs: PdfJs,
  doc: PDFDocumentProxy,
  bytes: Uint8Array,
  count: number,
  mode: Mode,
): Promise<RangeResult> {
  if (count < limits.pdfParallelPages || mode === 'ocr') return processRange(pdfjs, doc, 0, count, mode);
  // This thread also opens the document and assembles the result afterwards: it takes less.
  const mid = Math.ceil(count * 0.45);
  const tail = inHelper({ bytes: new Uint8Array(bytes), from: mid, to: count, mode });
  const head = await processRange(pdfjs, doc, 0, mid, mode);
  const rest = (await tail) ?? (await processRange(pdfjs, doc, mid, count, mode));
  return {
    pages: [...head.pages, ...rest.pages],
    failed: head.failed + rest.failed,
    ocrFailed: head.ocrFailed + rest.ocrFailed,
  };
}

let helper: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, (result: RangeResult | undefined) => void>();

function startHelper(): Worker {
  const worker = new Worker(new URL('./page-worker.ts', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: limits.pdfWorkerHeapMb },
  });
  worker.on('message', (reply: RangeReply) => {
    const done = waiting.get(reply.id);
    waiting.delete(reply.id);
    // Idle, the thread must not keep the process alive; busy, it must (see inHelper).
    if (waiting.size === 0) worker.unref();
    done?.('result' in reply ? reply.result : undefined);
  });
  const fail = () => {
    if (helper === worker) helper = undefined;
    for (const done of waiting.values()) done(undefined);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  // Unreferenced after the listeners are added: adding one references the thread again.
  worker.unref();
  return worker;
}

function inHelper(job: Omit<RangeJob, 'id'>): Promise<RangeResult | undefined> {
  return new Promise((resolve) => {
    try {
      helper ??= startHelper();
      const id = nextId++;
      waiting.set(id, resolve);
      helper.ref();
      helper.postMessage({ ...job, id } satisfies RangeJob, [job.bytes.buffer as ArrayBuffer]);
    } catch {
      resolve(undefined);
    }
  });
}
