import { Worker } from 'node:worker_threads';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { limits } from '../../limits.ts';
import type { PdfJs } from './load-document.ts';
import { type Mode, processRange, type RangeResult } from './page-pipeline.ts';
import type { RangeJob, RangeReply } from './page-worker.ts';

/**
 * Share of a long document's pages read on this thread: with the helper already running (see
 * warmHelper), an even split finishes both together (measured on a 350-page book). It does
 * not depend on whether the helper still has to start, as the split decides which pdf.js
 * instance reads which page, and that must not change the output between requests.
 */
const MAIN_SHARE = 0.5;

/**
 * Pages to lay out, split over two threads when the document is long: the tail goes to a
 * helper thread while this one does the head. pdf.js is single-threaded and CPU-bound, so
 * this halves the wall time of a long document when a core is free. The split is fixed, so
 * that each page is always read by the same pdf.js instance after the same pages (fonts and
 * link handling carry over from page to page) and the output never varies. The helper
 * thread is started once and kept (unreferenced, so it never holds the process open); if it
 * fails, its pages are read here.
 */
export async function readPages(
  pdfjs: PdfJs,
  doc: PDFDocumentProxy,
  bytes: Uint8Array,
  count: number,
  mode: Mode,
): Promise<RangeResult> {
  if (count < limits.pdfParallelPages || mode === 'ocr') return processRange(pdfjs, doc, 0, count, mode);
  const mid = Math.ceil(count * MAIN_SHARE);
  const tail = inHelper({ bytes: new Uint8Array(bytes), from: mid, to: count, mode });
  const head = await processRange(pdfjs, doc, 0, mid, mode);
  const rest = (await tail) ?? (await processRange(pdfjs, doc, mid, count, mode));
  return {
    pages: [...head.pages, ...rest.pages],
    failed: head.failed + rest.failed,
    ocrFailed: head.ocrFailed + rest.ocrFailed,
  };
}

/**
 * Starts the helper thread ahead of need, while this thread opens a file that is probably
 * long: its start-up (a thread, pdf.js compiled again) then overlaps the opening.
 */
export function warmHelper(): void {
  try {
    helper ??= startHelper();
  } catch {
    // Pages are read on this thread alone then.
  }
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
