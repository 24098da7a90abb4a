import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../../errors.ts';
import type { TargetRun } from '../../jobs/monitors/monitor-checks.ts';
import {
  type MonitorChanges,
  type MonitorTarget,
  validateCreateMonitor,
  validateUpdateMonitor,
} from '../../jobs/monitors/monitor-request.ts';
import type {
  CheckPageRecord,
  CheckRecord,
  MonitorRecord,
  PageStatus,
} from '../../jobs/monitors/monitor-store.ts';
import { nextRun, readSchedule, runsPerMonth, type Schedule } from '../../jobs/monitors/schedule.ts';
import type { MonitorScheduler } from '../../jobs/monitors/scheduler.ts';
import type { WebhookSpec } from '../../jobs/webhook-spec.ts';
import { limits } from '../../limits.ts';
import { uuidv7 } from '../../sessions/tokens.ts';
import { publicBase } from './interact.ts';
import type { JobRouteDeps } from './jobs.ts';

export interface MonitorRouteDeps extends JobRouteDeps {
  scheduler: MonitorScheduler;
  now(): number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const monitorNotFound = () => new ApiError(404, undefined, 'Monitor not found');
const checkNotFound = () => new ApiError(404, undefined, 'Monitor check not found');

/** Pages a month of checks reads: the schedule's runs in 30 days times the targets' pages. */
function creditsPerMonth(schedule: Schedule, targets: MonitorTarget[], now: number): number | null {
  const runs = runsPerMonth(schedule, new Date(now));
  if (runs === null) return null;
  const perRun = targets.reduce(
    (sum, t) =>
      sum + (t.type === 'scrape' ? t.urls.length : Number(t.crawlOptions.limit ?? limits.crawlDefaultPages)),
    0,
  );
  return Math.round(runs * perRun);
}

/** A monitor as the SDK reads it (`Monitor`). */
function monitorView(m: MonitorRecord, now: number): object {
  const schedule = JSON.parse(m.schedule) as Schedule;
  const targets = JSON.parse(m.targets) as MonitorTarget[];
  const webhook = m.webhook ? (JSON.parse(m.webhook) as WebhookSpec) : null;
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    schedule,
    nextRunAt: m.nextRunAt,
    lastRunAt: m.lastRunAt,
    currentCheckId: m.currentCheckId,
    targets,
    webhook,
    notification: null,
    retentionDays: m.retentionDays,
    estimatedCreditsPerMonth: creditsPerMonth(schedule, targets, now),
    lastCheckSummary: m.lastCheckSummary ? JSON.parse(m.lastCheckSummary) : null,
    goal: m.goal,
    judgeEnabled: m.judgeEnabled,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** A check as the SDK reads it (`MonitorCheck`): a check whose pages are being written still runs. */
function checkView(c: CheckRecord): Record<string, unknown> {
  const runs = JSON.parse(c.targetResults) as TargetRun[];
  return {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status === 'finishing' ? 'running' : c.status,
    trigger: c.trigger,
    scheduledFor: c.scheduledFor,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    estimatedCredits: null,
    reservedCredits: null,
    actualCredits: c.actualCredits,
    billingStatus: c.actualCredits ? 'confirmed' : 'not_applicable',
    summary: JSON.parse(c.summary),
    targetResults: runs.map((r) =>
      r.type === 'scrape'
        ? { targetId: r.targetId, type: r.type, expectedJobs: [r.jobId] }
        : { targetId: r.targetId, type: r.type, crawlId: r.jobId },
    ),
    notificationStatus: c.notificationStatus ? JSON.parse(c.notificationStatus) : null,
    error: c.error,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

function pageView(p: CheckPageRecord): object {
  return {
    id: p.id,
    targetId: p.targetId,
    url: p.url,
    status: p.status,
    previousScrapeId: null,
    currentScrapeId: p.scrapeId,
    statusCode: p.statusCode,
    error: p.error,
    diff: p.diff === null ? null : { text: p.diff },
    createdAt: p.createdAt,
  };
}

/** ?limit and ?offset (or ?skip) of a list, checked. */
function window(query: Record<string, unknown>, names: [string, string], page: number, max: number) {
  const read = (name: string, min: number, top: number, fallback: number) => {
    const raw = query[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > top)
      throw badRequest(`query.${name} must be an integer from ${min}${top < Infinity ? ` to ${top}` : ''}`);
    return n;
  };
  return { limit: read(names[0], 1, max, page), offset: read(names[1], 0, Infinity, 0) };
}

/**
 * The monitor API (the SDK's createMonitor, listMonitors, getMonitor, updateMonitor,
 * deleteMonitor, runMonitor, listMonitorChecks, getMonitorCheck) over Quire's own scheduler
 * (src/jobs/monitors): checks are batch scrapes and crawls with changeTracking under the
 * monitor's own tag, each page's status taken from it.
 */
export async function monitorRoutes(app: FastifyInstance, deps: MonitorRouteDeps): Promise<void> {
  const { monitors } = deps.store;
  const teamMonitor = async (request: FastifyRequest): Promise<MonitorRecord> => {
    const { id } = request.params as { id: string };
    const monitor = await monitors.getMonitor(id);
    if (!monitor || monitor.team !== request.principal!.team) throw monitorNotFound();
    return monitor;
  };
  const refuseJudge = (changes: MonitorChanges) => {
    if (changes.judgeEnabled)
      throw badRequest(
        'body.judgeEnabled: Quire does not judge whether a change is meaningful; each check reports every page that changed, with its diff',
      );
  };

  app.post('/v2/monitor', async (request) => {
    const body = validateCreateMonitor(request.body);
    refuseJudge(body);
    const principal = request.principal!;
    const held = await monitors.listMonitors(principal.team, limits.monitorsPerTeam, 0);
    if (held.length >= limits.monitorsPerTeam)
      throw badRequest(`A team may keep at most ${limits.monitorsPerTeam} monitors; delete one first`);
    const now = deps.now();
    const schedule = readSchedule(body.schedule, new Date(now));
    const record: MonitorRecord = {
      id: uuidv7(now),
      team: principal.team,
      keyId: principal.keyId,
      name: body.name,
      status: 'active',
      schedule: JSON.stringify(schedule),
      targets: JSON.stringify(body.targets),
      webhook: body.webhook ? JSON.stringify(body.webhook) : null,
      retentionDays: body.retentionDays ?? limits.monitorDefaultRetentionDays,
      goal: body.goal ?? null,
      judgeEnabled: false,
      base: publicBase(deps.config, request).http,
      nextRunAt: nextRun(schedule, new Date(now)),
      lastRunAt: null,
      currentCheckId: null,
      lastCheckSummary: null,
      createdAt: iso(now),
      updatedAt: iso(now),
    };
    await monitors.createMonitor(record);
    return { success: true, data: monitorView(record, now) };
  });

  app.get('/v2/monitor', async (request) => {
    const { limit, offset } = window(
      request.query as Record<string, unknown>,
      ['limit', 'offset'],
      limits.monitorListPage,
      limits.monitorListMaxPage,
    );
    const now = deps.now();
    const list = await monitors.listMonitors(request.principal!.team, limit, offset);
    return { success: true, data: list.map((m) => monitorView(m, now)) };
  });

  app.get('/v2/monitor/:id', async (request) => ({
    success: true,
    data: monitorView(await teamMonitor(request), deps.now()),
  }));

  app.patch('/v2/monitor/:id', async (request) => {
    const monitor = await teamMonitor(request);
    const changes = validateUpdateMonitor(request.body);
    refuseJudge(changes);
    const now = deps.now();
    const schedule = changes.schedule
      ? readSchedule(changes.schedule, new Date(now))
      : (JSON.parse(monitor.schedule) as Schedule);
    const status = changes.status ?? monitor.status;
    const rescheduled = changes.schedule !== undefined || status !== monitor.status;
    await monitors.updateMonitor(monitor.id, {
      name: changes.name,
      status,
      schedule: changes.schedule ? JSON.stringify(schedule) : undefined,
      targets: changes.targets ? JSON.stringify(changes.targets) : undefined,
      webhook: changes.webhook === undefined ? undefined : changes.webhook && JSON.stringify(changes.webhook),
      retentionDays: changes.retentionDays,
      goal: changes.goal,
      // Paused: no next run; resumed or rescheduled: the next from now.
      nextRunAt: rescheduled ? (status === 'paused' ? null : nextRun(schedule, new Date(now))) : undefined,
      updatedAt: iso(now),
    });
    if (status === 'paused' && monitor.nextRunAt !== null)
      await monitors.updateMonitor(monitor.id, { nextRunAt: null });
    return { success: true, data: monitorView((await monitors.getMonitor(monitor.id)) ?? monitor, now) };
  });

  app.delete('/v2/monitor/:id', async (request) => {
    const monitor = await teamMonitor(request);
    await monitors.deleteMonitor(monitor.id);
    return { success: true };
  });

  app.post('/v2/monitor/:id/run', async (request, reply) => {
    const monitor = await teamMonitor(request);
    const check = await deps.scheduler.runNow(monitor);
    if (!check)
      return reply.code(409).send({
        success: false,
        error: `A check of this monitor is running (${monitor.currentCheckId ?? 'starting'}); run it again once it has finished.`,
      });
    return { success: true, data: checkView(check) };
  });

  app.get('/v2/monitor/:id/checks', async (request) => {
    const monitor = await teamMonitor(request);
    const { limit, offset } = window(
      request.query as Record<string, unknown>,
      ['limit', 'offset'],
      limits.monitorListPage,
      limits.monitorListMaxPage,
    );
    const checks = await monitors.listChecks(monitor.id, limit, offset);
    return { success: true, data: checks.map(checkView) };
  });

  app.get('/v2/monitor/:id/checks/:checkId', async (request) => {
    const monitor = await teamMonitor(request);
    const { checkId } = request.params as { checkId: string };
    const check = await monitors.getCheck(checkId);
    if (!check || check.monitorId !== monitor.id) throw checkNotFound();
    const query = request.query as Record<string, unknown>;
    const { limit, offset: skip } = window(
      query,
      ['limit', 'skip'],
      limits.monitorCheckPage,
      limits.monitorCheckMaxPage,
    );
    const statuses: PageStatus[] = ['same', 'new', 'changed', 'removed', 'error'];
    const status = query.status === undefined || query.status === '' ? undefined : String(query.status);
    if (status !== undefined && !statuses.includes(status as PageStatus))
      throw badRequest(`query.status must be one of ${statuses.join(', ')}`);
    // One more than asked: whether there is a next page.
    const pages = await monitors.readCheckPages(check.id, skip, limit + 1, status as PageStatus | undefined);
    let next: string | null = null;
    if (pages.length > limit) {
      pages.pop();
      const params = new URLSearchParams({ skip: String(skip + limit), limit: String(limit) });
      if (status) params.set('status', status);
      next = `${publicBase(deps.config, request).http}/v2/monitor/${monitor.id}/checks/${check.id}?${params}`;
    }
    return { success: true, data: { ...checkView(check), pages: pages.map(pageView), next }, next };
  });
}
