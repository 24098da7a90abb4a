import type { WorkerResult } from './answer.ts';
import type { Requester } from './fair-queue.ts';
import type { WorkerJob } from './worker.ts';

/** What is waiting and running now, for logs, health and metrics. */
export interface RunnerStats {
  busy: number;
  waiting: number;
  teams: number;
  /** Conversion processes this process runs (0 in an API process of a cluster). */
  workers: number;
}

/**
 * Where the HTTP layer sends a conversion: the embedded pool of child processes (ConversionPool),
 * or, in cluster mode, the Redis job queue that worker processes on any machine take from
 * (RedisJobQueue). Chosen once, in src/app.ts; both schedule per team (see FairQueue).
 */
export interface ConversionRunner {
  /** Converts `job` for `who`; rejects with a PoolError, and stops the work when `signal` aborts. */
  run(job: WorkerJob, who: Requester, signal: AbortSignal): Promise<WorkerResult>;
  stats(): RunnerStats;
  close(): Promise<void>;
}

/** Why a task did not produce a result, in terms the HTTP layer can answer with. */
export type PoolFailure =
  | { kind: 'aborted' }
  | { kind: 'queue-full' }
  /** The conversion process died: it ran out of memory, or native code crashed on the input. */
  | { kind: 'worker-died' }
  /** Cluster mode: the worker processes that took the job stopped (killed, or lost Redis) twice. */
  | { kind: 'lost' }
  | { kind: 'crashed'; error: Error };

export class PoolError extends Error {
  readonly failure: PoolFailure;
  constructor(failure: PoolFailure) {
    super(failure.kind);
    this.failure = failure;
  }
}
