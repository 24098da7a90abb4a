import type { Redis } from 'ioredis';
import { limits } from '../limits.ts';

// Redis's own clock (TIME) in milliseconds, so that processes on machines whose clocks differ
// decay usage alike.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// A team's worker time and job count, decayed to now: both halve every half-life.
const DECAYED = `local v = redis.call('HMGET', KEYS[1], 'ms', 'jobs', 'at')
local decay = 1
if v[3] then decay = 0.5 ^ ((now - tonumber(v[3])) / tonumber(ARGV[1])) end
local ms = (tonumber(v[1]) or 0) * decay
local jobs = (tonumber(v[2]) or 0) * decay`;

/**
 * KEYS: usage hash, pending set of the team. ARGV: half-life, job id, job ttl, default job ms,
 * ms per priority step, lowest priority. The job joins the team's pending set (scored by when
 * it expires, so that a job whose API process died stops counting) and gets its priority.
 */
const ENQUEUE = `${NOW}
${DECAYED}
local perJob = tonumber(ARGV[4])
if jobs >= 1 then perJob = ms / jobs end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local ahead = redis.call('ZCARD', KEYS[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return math.min(tonumber(ARGV[6]), 1 + math.floor((ms + ahead * perJob) / tonumber(ARGV[5])))`;

/** KEYS: usage hash. ARGV: half-life, worker ms to add, how long the hash may outlive its last use. */
const CHARGE = `${NOW}
${DECAYED}
redis.call('HSET', KEYS[1], 'ms', tostring(ms + tonumber(ARGV[2])), 'jobs', tostring(jobs + 1), 'at', now)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * The fair queue's first rule across a cluster, as BullMQ priorities (lower goes first, fixed
 * when a job is queued): a job's priority is its team's worker time lately (halving every
 * limits.fairUsageHalfLifeMs, kept in Redis and charged by the workers as each job ends) plus
 * the expected time of the team's jobs already queued or running anywhere in the cluster (their
 * count times the team's mean job time). So the team that used the least worker time lately goes
 * first, a team's flood queues behind a newcomer's first file rather than before it, and teams
 * with equal claims are served in the order they asked.
 */
export class ClusterFairness {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  /** Counts job `id` as `team`'s (for at most `ttlMs`) and gives its BullMQ priority. */
  async enqueue(team: string, id: string, ttlMs: number): Promise<number> {
    const priority = await this.redis.eval(
      ENQUEUE,
      2,
      this.usageKey(team),
      this.pendingKey(team),
      limits.fairUsageHalfLifeMs,
      id,
      ttlMs,
      limits.clusterFairDefaultJobMs,
      limits.clusterFairPriorityStepMs,
      limits.clusterFairLowestPriority,
    );
    return Number(priority);
  }

  /** Job `id` no longer waits or runs. */
  async leave(team: string, id: string): Promise<void> {
    await this.redis.zrem(this.pendingKey(team), id);
  }

  /** Adds worker time `ms` to `team`'s usage, when one of its jobs ends (on the worker). */
  async charge(team: string, ms: number): Promise<void> {
    await this.redis.eval(
      CHARGE,
      1,
      this.usageKey(team),
      limits.fairUsageHalfLifeMs,
      Math.round(ms),
      limits.fairUsageHalfLifeMs * limits.clusterFairForgetHalfLives,
    );
  }

  private usageKey(team: string): string {
    return `${this.prefix}:fair:usage:${team}`;
  }

  private pendingKey(team: string): string {
    return `${this.prefix}:fair:pending:${team}`;
  }
}
