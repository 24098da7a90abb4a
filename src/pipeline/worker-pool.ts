import { Piscina } from 'piscina';
import type { ParseJob } from './parse-document.ts';
import type { WorkerResult } from './worker.ts';

export interface PoolSettings {
  threads: number;
  heapMb: number;
  queueSize: number;
}

/** Why a task did not produce a result, in terms the HTTP layer can answer with. */
export type PoolFailure =
  | { kind: 'aborted' }
  | { kind: 'queue-full' }
  | { kind: 'out-of-memory' }
  | { kind: 'crashed'; error: Error };

export class PoolError extends Error {
  readonly failure: PoolFailure;
  constructor(failure: PoolFailure) {
    super(failure.kind);
    this.failure = failure;
  }
}

/**
 * Conversions run here, off the event loop, in a bounded pool of worker threads. Each
 * worker has a heap limit, so a document that needs too much memory kills its own worker
 * and fails alone; an aborted task (timeout, client gone) terminates its worker too.
 */
export class ConversionPool {
  private readonly pool: Piscina<ParseJob, WorkerResult>;

  constructor(settings: PoolSettings) {
    this.pool = new Piscina({
      filename: new URL('./worker.ts', import.meta.url).href,
      minThreads: settings.threads,
      maxThreads: settings.threads,
      maxQueue: settings.queueSize,
      idleTimeout: 60_000,
      resourceLimits: {
        maxOldGenerationSizeMb: settings.heapMb,
        // Tree walkers recurse; a deeper stack than the default 4 MB absorbs odd documents.
        stackSizeMb: 32,
      },
    });
  }

  async run(job: ParseJob, signal: AbortSignal): Promise<WorkerResult> {
    const transferList =
      job.bytes.byteOffset === 0 && job.bytes.byteLength === job.bytes.buffer.byteLength
        ? [job.bytes.buffer as ArrayBuffer]
        : [];
    try {
      return await this.pool.run(job, { signal, transferList });
    } catch (error) {
      const err = error as Error & { code?: string };
      if (signal.aborted || err.name === 'AbortError') throw new PoolError({ kind: 'aborted' });
      if (/queue is at limit/i.test(err.message)) throw new PoolError({ kind: 'queue-full' });
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|memory limit/i.test(err.message)) {
        throw new PoolError({ kind: 'out-of-memory' });
      }
      throw new PoolError({ kind: 'crashed', error: err });
    }
  }

  get stats(): { queued: number; running: number; threads: number } {
    return { queued: this.pool.queueSize, running: this.pool.utilization, threads: this.pool.threads.length };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
