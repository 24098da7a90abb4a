import { spawn } from 'node:child_process';
import { limits } from '../../../limits.ts';

export const TESSERACT_MISSING = 'OCR is not available: the tesseract command is not installed';

/**
 * Tesseract runs at a time in this process. The service already runs one conversion process
 * per core, so one here keeps the machine at one recognizer per core; a single-process
 * deployment can raise it with `setOcrConcurrency`.
 */
let capacity = 1;
let running = 0;
const waiting: (() => void)[] = [];

export function setOcrConcurrency(slots: number): void {
  capacity = Math.max(1, Math.floor(slots));
  while (running < capacity && waiting.length > 0) {
    running++;
    waiting.shift()?.();
  }
}

/** Runs `work` when a recognizer slot is free; the slot covers the page's raster too. */
export async function withOcrSlot<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  signal?.throwIfAborted();
  if (running < capacity) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    signal?.throwIfAborted();
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Runs the tesseract CLI on an image given on stdin and returns what it prints on stdout.
 * `OMP_THREAD_LIMIT=1`: Tesseract's own OpenMP threads thrash when cores are shared (9.5 s
 * wall for 1.2 s of CPU measured on two cores); parallelism comes from separate pages.
 */
export function runTesseract(image: Buffer, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('tesseract', ['stdin', 'stdout', ...args], {
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const onAbort = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('OCR aborted'));
    const timer = setTimeout(
      () => stop(new Error(`OCR gave up on a page after ${limits.ocrPageMs / 1000} s`)),
      limits.ocrPageMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.ocrOutputBytes) stop(new Error('OCR output of one page is over its size limit'));
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    // Tesseract may exit before reading all of a bad image; the exit code tells what happened.
    child.stdin.on('error', () => {});
    child.on('error', (error: NodeJS.ErrnoException) => {
      stop(error.code === 'ENOENT' ? new Error(TESSERACT_MISSING) : error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else if (code !== 0)
        reject(new Error(`OCR failed: tesseract exited with ${code}: ${stderr.trim().slice(0, 300)}`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    child.stdin.end(image);
  });
}
