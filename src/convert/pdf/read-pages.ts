import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { limits } from '../../limits.ts';
import type { OpenedPdf, PdfJs } from './load-document.ts';
import {
  CLOSED,
  HELPER,
  IDLE,
  type Mode,
  pageRange,
  processPages,
  type RangeResult,
  sharePages,
  startState,
  takePages,
} from './page-pipeline.ts';
import type { HelpJob, HelpReply, HelpStart } from './page-worker.ts';
import { FIRST_PAGES } from './read-page.ts';

/**
 * Whether long PDFs are read on this thread alone, never starting the helper: QUIRE_PDF_THREADS
 * (1 or 2; config.ts checks it), by default 1 on machines of fewer than limits.pdfHelperCores
 * cores, where a helper costs more CPU than it saves time.
 */
const oneThread =
  (Number(process.env.QUIRE_PDF_THREADS) || (os.availableParallelism() >= limits.pdfHelperCores ? 2 : 1)) < 2;

/**
 * The pages to lay out. A long document is shared with a helper thread: pdf.js is
 * single-threaded and CPU-bound, so a second instance on a free core halves the wall time.
 * This thread reads the first pages (they settle whether later pages' links are read), then
 * takes pages onward from the front while the helper takes them from the back, until the two
 * meet (see takePages): when the helper starts late or its core is busy, this thread simply
 * reads more. A page comes out the same
 * whichever thread reads it. The helper thread is started once and kept (unreferenced, so it
 * never holds the process open); pages it took but could not deliver are read here.
 */
export async function readPages(
  pdfjs: PdfJs,
  pdf: OpenedPdf,
  bytes: Uint8Array,
  count: number,
  mode: Mode,
): Promise<RangeResult> {
  const state = startState(mode);
  if (oneThread || count < limits.pdfParallelPages || mode === 'ocr')
    return processPages(pdfjs, pdf, pageRange(0, count), state, mode);
  const shared = sharePages(FIRST_PAGES, count);
  const job = inHelper({ kind: 'job', bytes: new Uint8Array(bytes), mode, shared });
  const results: RangeResult[] = [];
  // Only links depend on the first pages; without them the helper need not wait for those.
  if (!state.wantLinks) job.start(false);
  try {
    results.push(await processPages(pdfjs, pdf, pageRange(0, FIRST_PAGES), state, mode));
  } finally {
    if (state.wantLinks) job.start(state.anchorLinks);
  }
  results.push(await processPages(pdfjs, pdf, takePages(shared, 'front'), state, mode));
  // A helper that has not begun is shut out; one that has is waited for.
  if (Atomics.compareExchange(new Int32Array(shared), HELPER, IDLE, CLOSED) !== IDLE) {
    const theirs = await job.result;
    if (theirs) results.push(theirs);
  }
  const done = new Set<number>();
  for (const r of results) {
    for (const p of r.pages) done.add(p.index);
    for (const i of r.failed) done.add(i);
  }
  const lost = Array.from({ length: count }, (_, i) => i).filter((i) => !done.has(i));
  if (lost.length > 0) results.push(await processPages(pdfjs, pdf, () => lost.shift(), state, mode));
  return {
    pages: results.flatMap((r) => r.pages).sort((a, b) => a.index - b.index),
    failed: results.flatMap((r) => r.failed),
    ocrPages: results.reduce((n, r) => n + r.ocrPages, 0),
    ocrFailed: results.reduce((n, r) => n + r.ocrFailed, 0),
    oversizedStreams: results.reduce((n, r) => n + r.oversizedStreams, 0),
  };
}

/**
 * Starts the helper thread ahead of need, while this thread opens a file that is probably
 * long: its start-up (a thread, pdf.js compiled again) then overlaps the opening.
 */
export function warmHelper(): void {
  if (oneThread) return;
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
  worker.on('message', (reply: HelpReply) => {
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

/** A job sent to the helper: `start` lets it take pages, `result` is what it read (undefined if it failed). */
function inHelper(job: Omit<HelpJob, 'id'>): {
  start(anchorLinks: boolean): void;
  result: Promise<RangeResult | undefined>;
} {
  const id = nextId++;
  const result = new Promise<RangeResult | undefined>((resolve) => {
    try {
      helper ??= startHelper();
      waiting.set(id, resolve);
      helper.ref();
      helper.postMessage({ ...job, id } satisfies HelpJob, [job.bytes.buffer as ArrayBuffer]);
    } catch {
      resolve(undefined);
    }
  });
  return {
    start(anchorLinks) {
      helper?.postMessage({ kind: 'start', id, anchorLinks } satisfies HelpStart);
    },
    result,
  };
}
