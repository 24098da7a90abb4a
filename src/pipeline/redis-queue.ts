import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { limits } from '../limits.ts';
import { untilAborted } from '../until-aborted.ts';
import type { WorkerResult } from './answer.ts';
import { ClusterFairness } from './cluster-fairness.ts';
import type { Requester } from './fair-queue.ts';
import { type ConversionRunner, PoolError, type PoolFailure, type RunnerStats } from './runner.ts';
import type { WorkerJob } from './worker.ts';
import type { ConversionPool, PoolObserver } from './worker-pool.ts';

/** The logger calls the queue makes (pino's, handed over once the HTTP server exists). */
export interface QueueLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ClusterSettings {
  /** QUIRE_REDIS_URL. */
  url: string;
  /** QUIRE_REDIS_PREFIX: every key Quire and BullMQ make starts with it. */
  prefix: string;
}

/** BullMQ's name for the queue, under the prefix. */
const QUEUE = 'conversions';

/**
 * What a job holds in BullMQ itself: whose it is and until when, never the document or its name,
 * which travel in the upload key beside it and are gone when the job ends (zero data retention).
 */
interface JobData {
  team: string;
  key: string;
  /** Epoch ms after which the worker gives up, should the API process that would cancel it have died. */
  deadlineAt: number;
}

/** What a worker hands back through Redis: the conversion's result, or why there is none. */
type Outcome =
  | { result: WorkerResult }
  | { failure: Exclude<PoolFailure['kind'], 'crashed'> }
  | { crashed: string };

/** How a job ended, as the API process hears it from BullMQ's events. */
type JobEnd = { completed: true } | { failed: string };

const keysOf = (prefix: string, id: string) => ({
  upload: `${prefix}:upload:${id}`,
  result: `${prefix}:result:${id}`,
});
/** Pub/sub channel on which API processes name the running jobs that nobody waits for any more. */
const cancelChannel = (prefix: string) => `${prefix}:cancel`;

/**
 * KEYS: upload, result. ARGV: outcome, its ttl. The worker's answer is stored only while the upload
 * is still there, and the upload goes with it: the API process deletes both when its request
 * ends, so an answer that comes after that (a deadline passed, a client gone) is never kept.
 */
const STORE_RESULT = `if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`;

/** BullMQ's message for a job whose workers died `maxStalledCount` + 1 times. */
const STALLED_OUT = /stalled more than/i;

interface Waiter {
  team: string;
  active: boolean;
  askedAt: number;
  end: (end: JobEnd) => void;
}

export interface RedisQueueSettings extends ClusterSettings {
  /** Conversions that may wait for a worker, across the cluster (QUIRE_QUEUE_SIZE). */
  queueSize: number;
  /** Conversion processes this process runs itself (role all), for stats. */
  localWorkers: number;
  observer?: PoolObserver;
}

/**
 * Cluster mode's conversion runner, in the API process: a conversion is a BullMQ job in Redis that
 * any worker process takes (ClusterWorker), and its answer comes back to the process holding the
 * request's connection. The document's bytes (with the job's options, v8-serialised) go into one
 * Redis key for the job's life, read by the worker that takes it and deleted when the job ends;
 * the answer, the body the worker already serialised, comes back the same way and is read once
 * (GETDEL) and passed on as it is. Redis rather than PostgreSQL or a shared folder: every process
 * of the cluster already reaches it, it holds bytes in memory without touching a disk (nothing to
 * sweep after a crash: each key has a TTL), and the job and its bytes live and die together.
 *
 * Scheduling follows the fair queue as far as shared state allows (ClusterFairness): the team
 * with the least worker time lately goes first. A request whose deadline passes or whose client
 * leaves takes its job out of the queue, or, once a worker runs it, tells that worker to stop,
 * which kills the conversion's process. A worker that dies mid-conversion loses its claim on the
 * job after limits.clusterJobLockMs; another worker then runs it once more, and a second loss
 * answers 500 (BullMQ's stalled-job recovery, maxStalledCount 1).
 */
export class RedisJobQueue implements ConversionRunner {
  private readonly settings: RedisQueueSettings;
  private readonly redis: Redis;
  private readonly queue: Queue<JobData>;
  private readonly events: QueueEvents;
  private readonly fairness: ClusterFairness;
  private readonly waiters = new Map<string, Waiter>();
  private log: QueueLogger | undefined;

  private constructor(settings: RedisQueueSettings) {
    this.settings = settings;
    this.redis = new Redis(settings.url);
    const bull = { connection: { url: settings.url }, prefix: settings.prefix };
    this.queue = new Queue<JobData>(QUEUE, bull);
    this.events = new QueueEvents(QUEUE, {
      ...bull,
      connection: { url: settings.url, maxRetriesPerRequest: null },
    });
    this.fairness = new ClusterFairness(this.redis, settings.prefix);
    this.events.on('active', ({ jobId }) => {
      const waiter = this.waiters.get(jobId);
      if (!waiter) return;
      waiter.active = true;
      this.settings.observer?.queueWait((performance.now() - waiter.askedAt) / 1000);
    });
    this.events.on('completed', ({ jobId }) => this.waiters.get(jobId)?.end({ completed: true }));
    this.events.on('failed', ({ jobId, failedReason }) =>
      this.waiters.get(jobId)?.end({ failed: failedReason }),
    );
  }

  /** Connects, and listens to the queue's events before any job is added, so none is missed. */
  static async open(settings: RedisQueueSettings): Promise<RedisJobQueue> {
    const runner = new RedisJobQueue(settings);
    await Promise.all([runner.queue.waitUntilReady(), runner.events.waitUntilReady()]);
    return runner;
  }

  useLogger(log: QueueLogger): void {
    this.log = log;
  }

  async run(job: WorkerJob, who: Requester, signal: AbortSignal): Promise<WorkerResult> {
    if (signal.aborted) throw new PoolError({ kind: 'aborted' });
    const id = randomUUID();
    const ended = new Promise<JobEnd>((end) =>
      this.waiters.set(id, { team: who.team, active: false, askedAt: performance.now(), end }),
    );
    try {
      return await untilAborted(
        this.submit(job, who, id, ended, signal),
        signal,
        () => new PoolError({ kind: 'aborted' }),
        () => this.cancel(id),
      );
    } finally {
      this.waiters.delete(id);
      const keys = keysOf(this.settings.prefix, id);
      // Whatever happened, the upload and any late answer go now; not awaited, since the answer
      // must not wait on Redis (in an outage its commands retry), and what fails here has a TTL.
      void Promise.allSettled([this.redis.del(keys.upload, keys.result), this.fairness.leave(who.team, id)]);
    }
  }

  private async submit(
    job: WorkerJob,
    who: Requester,
    id: string,
    ended: Promise<JobEnd>,
    signal: AbortSignal,
  ): Promise<WorkerResult> {
    const counts = await this.queue.getJobCounts('waiting', 'prioritized');
    if ((counts.waiting ?? 0) + (counts.prioritized ?? 0) >= this.settings.queueSize)
      throw new PoolError({ kind: 'queue-full' });
    const keys = keysOf(this.settings.prefix, id);
    const ttl = job.options.timeout + limits.clusterUploadTtlMarginMs;
    await this.redis.set(keys.upload, v8.serialize(job), 'PX', ttl);
    // Steps taken after the request ended would leave what its cleanup already removed.
    if (signal.aborted) return never();
    const priority = await this.fairness.enqueue(who.team, id, ttl);
    if (signal.aborted) return never();
    await this.queue.add(
      'convert',
      { team: who.team, key: who.key, deadlineAt: Date.now() + ttl },
      { jobId: id, priority, removeOnComplete: true, removeOnFail: true },
    );
    // An abort while the job was being added may have tried to remove it before it existed.
    if (signal.aborted) {
      await this.cancel(id);
      return never();
    }
    this.log?.debug({ team: who.team, jobId: id, priority }, 'conversion queued');
    const end = await ended;
    if ('failed' in end)
      throw new PoolError(
        STALLED_OUT.test(end.failed) ? { kind: 'lost' } : { kind: 'crashed', error: new Error(end.failed) },
      );
    const stored = await this.redis.getdelBuffer(keys.result);
    if (!stored)
      throw new PoolError({ kind: 'crashed', error: new Error('the conversion answer was not in Redis') });
    const outcome = v8.deserialize(stored) as Outcome;
    if ('result' in outcome) return outcome.result;
    if ('failure' in outcome) throw new PoolError({ kind: outcome.failure });
    throw new PoolError({ kind: 'crashed', error: new Error(outcome.crashed) });
  }

  /** A waiting job is taken out of the queue; a running one's worker is told to stop it. */
  private async cancel(id: string): Promise<void> {
    if ((await this.queue.remove(id)) === 0)
      await this.redis.publish(cancelChannel(this.settings.prefix), id);
  }

  /** This process's own conversions: those waiting in the cluster's queue and those running. */
  stats(): RunnerStats {
    let busy = 0;
    const teams = new Set<string>();
    for (const waiter of this.waiters.values()) {
      if (waiter.active) busy++;
      teams.add(waiter.team);
    }
    return {
      busy,
      waiting: this.waiters.size - busy,
      teams: teams.size,
      workers: this.settings.localWorkers,
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.queue.close(), this.events.close()]);
    this.redis.disconnect();
  }
}

/** A promise that never settles: the request already ended, and its answer was given. */
const never = () => new Promise<never>(() => {});

export interface ClusterWorkerSettings extends ClusterSettings {
  /** The local pool the jobs run in; as many jobs are taken at once as it has processes. */
  pool: ConversionPool;
  workers: number;
  log: QueueLogger;
  /** How often this worker looks for jobs whose worker died (QUIRE_CLUSTER_STALLED_CHECK_MS). */
  stalledCheckMs: number;
}

/**
 * The worker role: takes jobs from the Redis queue, as many at once as its local pool has
 * processes, and runs each there. Its pool's own fair queue never has to choose (it is never
 * given more jobs than workers): the order is the cluster queue's.
 */
export class ClusterWorker {
  private readonly settings: ClusterWorkerSettings;
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly worker: Worker<JobData>;
  private readonly fairness: ClusterFairness;

  private constructor(settings: ClusterWorkerSettings) {
    this.settings = settings;
    this.redis = new Redis(settings.url);
    this.subscriber = new Redis(settings.url);
    this.fairness = new ClusterFairness(this.redis, settings.prefix);
    this.worker = new Worker<JobData>(QUEUE, (job, _token, signal) => this.process(job, signal), {
      connection: { url: settings.url, maxRetriesPerRequest: null },
      prefix: settings.prefix,
      concurrency: settings.workers,
      lockDuration: limits.clusterJobLockMs,
      stalledInterval: settings.stalledCheckMs,
      maxStalledCount: 1,
      autorun: false,
    });
    this.worker.on('error', (err) => settings.log.warn({ err }, 'conversion queue error'));
    this.subscriber.on('message', (_channel: string, id: string) => {
      if (this.worker.cancelJob(id, 'nobody waits for it'))
        settings.log.debug({ jobId: id }, 'conversion cancelled');
    });
  }

  static async start(settings: ClusterWorkerSettings): Promise<ClusterWorker> {
    const worker = new ClusterWorker(settings);
    await worker.subscriber.subscribe(cancelChannel(settings.prefix));
    await worker.worker.waitUntilReady();
    void worker.worker.run();
    return worker;
  }

  private async process(job: Job<JobData>, signal: AbortSignal | undefined): Promise<void> {
    const id = job.id!;
    const keys = keysOf(this.settings.prefix, id);
    const who = { team: job.data.team, key: job.data.key };
    const upload = await this.redis.getBuffer(keys.upload);
    // Its request ended while it waited (the deadline passed, or the client left).
    if (!upload) return;
    this.settings.log.debug({ team: who.team, jobId: id, priority: job.priority }, 'conversion started');
    const deadline = AbortSignal.timeout(Math.max(1, job.data.deadlineAt - Date.now()));
    const started = performance.now();
    let outcome: Outcome;
    try {
      const result = await this.settings.pool.run(
        v8.deserialize(upload) as WorkerJob,
        who,
        signal ? AbortSignal.any([signal, deadline]) : deadline,
      );
      outcome = { result };
    } catch (error) {
      if (!(error instanceof PoolError)) throw error;
      const failure = error.failure;
      outcome = failure.kind === 'crashed' ? { crashed: failure.error.message } : { failure: failure.kind };
    } finally {
      // The conversion is done whether or not its time can be counted.
      await this.fairness
        .charge(who.team, performance.now() - started)
        .catch((err: unknown) => this.settings.log.warn({ err }, 'worker time not counted'));
    }
    await this.redis.eval(
      STORE_RESULT,
      2,
      keys.upload,
      keys.result,
      v8.serialize(outcome),
      limits.clusterResultTtlMs,
    );
  }

  /** Stops taking jobs and lets the running ones finish (a shutdown's drain), then disconnects. */
  async close(): Promise<void> {
    await this.worker.close();
    this.subscriber.disconnect();
    this.redis.disconnect();
  }
}
