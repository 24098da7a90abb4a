import { Tinypool } from 'tinypool';
import type { ParseJob } from './parse-document.ts';
import type { WorkerResult } from './worker.ts';

export interface PoolSettings {
  workers: number;
  heapMb: number;
  queueSize: number;
}

/** Why a task did not produce a result, in terms the HTTP layer can answer with. */
export type PoolFailure =
  | { kind: 'aborted' }
  | { kind: 'queue-full' }
  /** The conversion process died: it ran out of memory, or native code crashed on the input. */
  | { kind: 'worker-died' }
  | { kind: 'crashed'; error: Error };

export class PoolError extends Error {
  readonly failure: PoolFailure;
  constructor(failure: PoolFailure) {
    super(failure.kind);
    this.failure = failure;
  }
}

/**
 * Conversions run here, off the event loop, in a bounded pool of child processes. Processes
 * rather than worker threads because V8 cannot always stop a thread at its heap limit: an
 * allocation that fails first aborts the whole server. A process with its own heap limit
 * dies alone, and an aborted task (timeout, client gone) kills its process too.
 */
export class ConversionPool {
  private readonly pool: Tinypool;

  constructor(settings: PoolSettings) {
    this.pool = new Tinypool({
      filename: new URL('./worker.ts', import.meta.url).href,
      runtime: 'child_process',
      // Structured clone keeps the upload a Uint8Array on the way in.
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${settings.heapMb}`],
      env: process.env as Record<string, string>,
      minThreads: settings.workers,
      maxThreads: settings.workers,
      maxQueue: settings.queueSize,
      idleTimeout: 60_000,
    });
  }

  async run(job: ParseJob, signal: AbortSignal): Promise<WorkerResult> {
    try {
      return (await this.pool.run(job, { signal })) as WorkerResult;
    } catch (error) {
      const err = error as Error;
      if (signal.aborted || err.name === 'AbortError') throw new PoolError({ kind: 'aborted' });
      if (/queue is at limit/i.test(err.message)) throw new PoolError({ kind: 'queue-full' });
      if (/exited unexpectedly/i.test(err.message)) throw new PoolError({ kind: 'worker-died' });
      throw new PoolError({ kind: 'crashed', error: err });
    }
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
