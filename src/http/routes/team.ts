import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.ts';
import type { Credits } from '../../quota/credits.ts';
import type { TeamConcurrency } from '../../quota/team-concurrency.ts';
import type { TeamSettingsCache } from '../../quota/team-settings.ts';
import { monthBounds } from '../../quota/usage.ts';
import type { Store, UsageMonth } from '../../store/store.ts';

export interface TeamRouteDeps {
  store: Store;
  credits: Credits;
  teams: TeamSettingsCache;
  concurrency: TeamConcurrency;
}

/**
 * What "no limit" reads as where both SDKs require an integer (the Python SDK's models fail on
 * null): the largest integer JSON carries exactly, so that a caller's `remaining >= needed`
 * holds, as it should; `unlimited: true` beside it says so outright.
 */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** How far back `mostRecentSuccess` looks, as upstream's queue status does. */
const RECENT_SUCCESS_MS = 24 * 60 * 60 * 1000;

/** `?byApiKey=true|false`, named in a 400 when it is anything else. */
function byApiKey(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown> | undefined)?.byApiKey;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('Invalid request parameters: query.byApiKey: must be true or false');
}

/** What a key is called in historical usage: its label, else the printed start of the key. */
async function keyNames(store: Store, team: string): Promise<Map<string, string>> {
  const keys = await store.listApiKeys(team);
  return new Map(keys.map((k) => [k.id, k.label ?? `${k.prefix}…`]));
}

interface Period {
  startDate: string;
  endDate: string | null;
  apiKey?: string;
  used: number;
}

/**
 * Months ascending (and keys by name within a month), each [start, end) in UTC; the current
 * month, still running, ends null (upstream's shape).
 */
async function periods(
  deps: TeamRouteDeps,
  team: string,
  split: boolean,
  amount: (m: UsageMonth) => number,
): Promise<Period[]> {
  const rows = await deps.credits.usage.read(team);
  const names = split ? await keyNames(deps.store, team) : undefined;
  const current = deps.credits.usage.month();
  const byPeriod = new Map<string, Period>();
  for (const row of rows) {
    const apiKey = names ? (names.get(row.keyId) ?? row.keyId) : undefined;
    const id = `${row.month} ${apiKey ?? ''}`;
    const { start, end } = monthBounds(row.month);
    const period = byPeriod.get(id) ?? {
      startDate: start,
      endDate: row.month === current ? null : end,
      ...(apiKey !== undefined && { apiKey }),
      used: 0,
    };
    period.used += amount(row);
    byPeriod.set(id, period);
  }
  return [...byPeriod.values()].sort(
    (a, b) => a.startDate.localeCompare(b.startDate) || (a.apiKey ?? '').localeCompare(b.apiKey ?? ''),
  );
}

/** This month's totals and its bounds: Quire's billing period is the calendar month (UTC). */
async function thisMonth(deps: TeamRouteDeps, team: string) {
  const month = deps.credits.usage.month();
  const rows = (await deps.credits.usage.read(team)).filter((r) => r.month === month);
  const { start, end } = monthBounds(month);
  return {
    credits: rows.reduce((sum, r) => sum + r.credits, 0),
    tokens: rows.reduce((sum, r) => sum + r.tokens, 0),
    billingPeriodStart: start,
    billingPeriodEnd: end,
  };
}

/** Pages of the team's running crawls and batch scrapes that wait to be fetched. */
async function queuedPages(store: Store, team: string): Promise<number> {
  const jobs = [
    ...(await store.jobs.listActiveJobs(team, 'crawl')),
    ...(await store.jobs.listActiveJobs(team, 'batch')),
  ];
  const counts = await Promise.all(jobs.map((job) => store.jobs.pageCounts(job.id)));
  return counts.reduce((sum, c) => sum + c.queued, 0);
}

/**
 * The SDK's team methods (jobs-and-formats §8): credits and model tokens used (now and by month,
 * from the usage ledger), the team's concurrency, and its queue. Quire has no plans: a team's
 * balance is what `quire teams set --credits` gave it, or none (unlimited), and no team has a
 * token budget; what was used this month is given beside what remains.
 */
export async function teamRoutes(app: FastifyInstance, deps: TeamRouteDeps): Promise<void> {
  app.get('/v2/team/credit-usage', async (request) => {
    const { team } = request.principal!;
    const [stored, month] = await Promise.all([deps.store.getTeam(team), thisMonth(deps, team)]);
    const balance = stored?.credits ?? null;
    return {
      success: true,
      data: {
        remainingCredits: balance ?? UNLIMITED,
        unlimited: balance === null,
        planCredits: null,
        billingPeriodStart: month.billingPeriodStart,
        billingPeriodEnd: month.billingPeriodEnd,
        creditsUsed: month.credits,
      },
    };
  });

  app.get('/v2/team/token-usage', async (request) => {
    const month = await thisMonth(deps, request.principal!.team);
    return {
      success: true,
      data: {
        remainingTokens: UNLIMITED,
        unlimited: true,
        planTokens: null,
        billingPeriodStart: month.billingPeriodStart,
        billingPeriodEnd: month.billingPeriodEnd,
        tokensUsed: month.tokens,
      },
    };
  });

  app.get('/v2/team/credit-usage/historical', async (request) => {
    const rows = await periods(deps, request.principal!.team, byApiKey(request), (m) => m.credits);
    return { success: true, periods: rows.map(({ used, ...p }) => ({ ...p, creditsUsed: used })) };
  });

  app.get('/v2/team/token-usage/historical', async (request) => {
    const rows = await periods(deps, request.principal!.team, byApiKey(request), (m) => m.tokens);
    return { success: true, periods: rows.map(({ used, ...p }) => ({ ...p, tokensUsed: used })) };
  });

  app.get('/v2/concurrency-check', async (request) => {
    const { team } = request.principal!;
    const [load, settings] = await Promise.all([deps.concurrency.inUse(team), deps.teams.get(team)]);
    return { success: true, concurrency: load.running, maxConcurrency: settings.concurrency };
  });

  app.get('/v2/team/queue-status', async (request) => {
    const { team } = request.principal!;
    const [load, settings, pages, usage] = await Promise.all([
      deps.concurrency.inUse(team),
      deps.teams.get(team),
      queuedPages(deps.store, team),
      deps.credits.usage.read(team),
    ]);
    const waiting = load.waiting + pages;
    const last = usage.reduce<string | null>(
      (latest, r) => (latest && latest > r.lastAt ? latest : r.lastAt),
      null,
    );
    const now = deps.credits.usage.time().getTime();
    const recent = last !== null && now - Date.parse(last) <= RECENT_SUCCESS_MS ? last : null;
    return {
      success: true,
      jobsInQueue: load.running + waiting,
      activeJobsInQueue: load.running,
      waitingJobsInQueue: waiting,
      maxConcurrency: settings.concurrency,
      mostRecentSuccess: recent,
    };
  });
}
