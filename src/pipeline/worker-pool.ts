import fs from 'node:fs';
import { Tinypool } from 'tinypool';
import { limits } from '../limits.ts';
import { mayRaisePriority, setTreeNice } from '../process-priority.ts';
import { untilAborted } from '../until-aborted.ts';
import type { WorkerReply, WorkerResult } from './answer.ts';
import { BulkChannel } from './bulk-channel.ts';
import { FairQueue, QueueFullError, type Requester, type WorkerSlot } from './fair-queue.ts';
import { type ConversionRunner, PoolError, type RunnerStats } from './runner.ts';
import type { PooledJob, WorkerJob } from './worker.ts';

export interface PoolSettings {
  workers: number;
  /** Idle processes kept beyond `workers`, ready to replace one killed (limits.spareWorkers). */
  spares: number;
  heapMb: number;
  queueSize: number;
  /** See FairQueueSettings.reserveMs. */
  reserveMs: number;
  /** Told how long each conversion waited for a worker, and of each worker lost. */
  observer?: PoolObserver;
}

export interface PoolObserver {
  queueWait(seconds: number): void;
  workerLost(): void;
}

/**
 * Conversions run here, off the event loop, in a bounded pool of child processes. Processes
 * rather than worker threads because V8 cannot always stop a thread at its heap limit: an
 * allocation that fails first aborts the whole server. A process with its own heap limit
 * dies alone, and an aborted task (timeout, client gone) kills its process too. The heap
 * limit does not cover memory outside the JavaScript heap (buffers, native libraries), so
 * a watchdog kills a process whose resident memory outgrows the heap limit by too much.
 * Which waiting conversion gets a free worker is the fair queue's choice, not arrival order.
 */
export class ConversionPool implements ConversionRunner {
  private readonly pool: Tinypool;
  private readonly queue: FairQueue;
  private readonly watchdog: NodeJS.Timeout;
  private readonly settings: PoolSettings;
  private readonly bulk = new BulkChannel();

  constructor(settings: PoolSettings) {
    this.settings = settings;
    // With the server's NODE_COMPILE_CACHE (compile-cache.ts) among the rest.
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      QUIRE_BULK_SOCKET: this.bulk.socketPath,
    };
    this.pool = new Tinypool({
      filename: new URL('./worker-entry.ts', import.meta.url).href,
      runtime: 'child_process',
      // Structured clone keeps the upload a Uint8Array on the way in.
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${settings.heapMb}`],
      env,
      minThreads: settings.workers + settings.spares,
      maxThreads: settings.workers + settings.spares,
      // The fair queue hands Tinypool no more tasks than it has workers; the slack covers a
      // worker that is being replaced after a kill.
      maxQueue: settings.workers,
      idleTimeout: 60_000,
    });
    const maxRssBytes = (settings.heapMb + limits.workerOffHeapMb) * 2 ** 20;
    this.watchdog = setInterval(() => {
      for (const worker of this.pool.threads) {
        // With the child_process runtime a worker's threadId is its process id.
        if (residentBytes(worker.threadId) > maxRssBytes) killQuietly(worker.threadId);
      }
    }, limits.workerWatchdogMs);
    this.watchdog.unref();
    this.queue = new FairQueue({
      slots: settings.workers,
      maxWaiting: settings.queueSize,
      usageHalfLifeMs: limits.fairUsageHalfLifeMs,
      reserveMs: settings.reserveMs,
    });
  }

  async run(job: WorkerJob, who: Requester, signal: AbortSignal): Promise<WorkerResult> {
    let slot: WorkerSlot | undefined;
    const asked = performance.now();
    try {
      slot = await this.queue.acquire(who, signal);
      this.settings.observer?.queueWait((performance.now() - asked) / 1000);
      return await this.convert(job, signal);
    } catch (error) {
      const err = error as Error;
      if (err instanceof QueueFullError) throw new PoolError({ kind: 'queue-full' });
      // An abort while running kills the worker's process; one while waiting costs nothing.
      if (signal.aborted || err.name === 'AbortError') {
        if (slot) this.settings.observer?.workerLost();
        throw new PoolError({ kind: 'aborted' });
      }
      if (/queue is at limit/i.test(err.message)) throw new PoolError({ kind: 'queue-full' });
      if (/exited unexpectedly/i.test(err.message)) {
        this.settings.observer?.workerLost();
        throw new PoolError({ kind: 'worker-died' });
      }
      throw new PoolError({ kind: 'crashed', error: err });
    } finally {
      slot?.release();
    }
  }

  /**
   * Run `job` on a worker; past backgroundAfterMs it continues in the background. The worker says
   * which process it is when it starts (through Tinypool's per-task channel, since Tinypool does
   * not tell which worker took a task).
   */
  private async convert(job: WorkerJob, signal: AbortSignal): Promise<WorkerResult> {
    let timer: NodeJS.Timeout | undefined;
    const channel = {
      postMessage(message: unknown) {
        const pid = (message as { converting?: unknown } | null)?.converting;
        if (typeof pid !== 'number' || !mayRaisePriority || timer) return;
        // Counted from the start in the worker: a task can wait for a worker that is starting.
        timer = setTimeout(() => setTreeNice(pid, limits.backgroundNice), limits.backgroundAfterMs);
        timer.unref();
      },
    };
    const size = job.bytes.byteLength;
    const upload = size >= limits.bulkMinBytes ? this.bulk.offer(job.bytes) : undefined;
    const answer = this.bulk.expect();
    const pooled: PooledJob = {
      ...job,
      bytes: upload ? { bulk: upload.token, size } : job.bytes,
      answerToken: answer.token,
    };
    try {
      const reply = (await this.pool.run(pooled, { signal, channel })) as WorkerReply;
      if (!('bulkBody' in reply)) return reply;
      const abort = () => Object.assign(new Error('aborted'), { name: 'AbortError' });
      return { ok: true, body: await untilAborted(answer.body, signal, abort), usage: reply.usage };
    } finally {
      clearTimeout(timer);
      upload?.release();
      answer.release();
    }
  }

  /** Busy workers, waiting conversions and the teams among them, and the pool's size. */
  stats(): RunnerStats {
    return { ...this.queue.stats(), workers: this.settings.workers };
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    try {
      await this.pool.destroy();
    } finally {
      this.bulk.close();
    }
  }
}

/** Resident memory of a process, from /proc (0 once it is gone, or where there is no /proc). */
export function residentBytes(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return kb ? Number(kb[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // It exited on its own in the meantime.
  }
}
