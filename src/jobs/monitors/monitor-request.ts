import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { badRequest } from '../../errors.ts';
import { limits } from '../../limits.ts';
import { httpUrl } from '../../options/scrape-options.ts';
import { validationError } from '../../options/validate.ts';
import { callerKeys, checkScrapeOptions, validateCrawlBody } from '../job-requests.ts';
import { monitorWebhookSchema, type WebhookSpec } from '../webhook-spec.ts';

/** What a monitor checks: pages listed, or a crawl's pages. Each has an id its check's pages name. */
export type MonitorTarget =
  | { id: string; type: 'scrape'; urls: string[]; scrapeOptions: Record<string, unknown> }
  | {
      id: string;
      type: 'crawl';
      url: string;
      crawlOptions: Record<string, unknown>;
      scrapeOptions: Record<string, unknown>;
    };

const options = z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional();
const targetId = z.string({ error: 'must be a string' }).min(1).max(64).optional();

const target = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      id: targetId,
      type: z.literal('scrape'),
      urls: z
        .array(httpUrl, { error: 'must be an array of URLs' })
        .min(1, { error: 'must hold at least one URL' })
        .max(limits.monitorMaxUrls, { error: `may hold at most ${limits.monitorMaxUrls} URLs` }),
      scrapeOptions: options,
    }),
    z.strictObject({
      id: targetId,
      type: z.literal('crawl'),
      url: httpUrl,
      crawlOptions: options,
      scrapeOptions: options,
    }),
    z.strictObject({ id: targetId, type: z.literal('search') }).passthrough(),
  ],
  { error: 'must be a target of type "scrape" or "crawl"' },
);

const schedule = z.strictObject({
  cron: z.string({ error: 'must be a string' }).max(200).optional(),
  text: z.string({ error: 'must be a string' }).max(200).optional(),
  timezone: z.string({ error: 'must be a string' }).max(64).optional(),
});

const notification = z
  .strictObject({
    email: z
      .strictObject({
        enabled: z.boolean({ error: 'must be true or false' }).optional(),
        recipients: z.array(z.string()).max(50).optional(),
        includeDiffs: z.boolean({ error: 'must be true or false' }).optional(),
      })
      .optional(),
  })
  .nullable()
  .optional();

const fields = {
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(limits.monitorNameChars, { error: `must be at most ${limits.monitorNameChars} characters` }),
  schedule,
  webhook: monitorWebhookSchema.nullable().optional(),
  notification,
  targets: z
    .array(target, { error: 'must be an array of targets' })
    .min(1, { error: 'must hold at least one target' })
    .max(limits.monitorMaxTargets, { error: `may hold at most ${limits.monitorMaxTargets} targets` }),
  retentionDays: z
    .number({ error: `must be a whole number of days from 1 to ${limits.monitorMaxRetentionDays}` })
    .int({ error: `must be a whole number of days from 1 to ${limits.monitorMaxRetentionDays}` })
    .min(1, { error: `must be a whole number of days from 1 to ${limits.monitorMaxRetentionDays}` })
    .max(limits.monitorMaxRetentionDays, {
      error: `must be a whole number of days from 1 to ${limits.monitorMaxRetentionDays}`,
    })
    .optional(),
  goal: z
    .string({ error: 'must be a string' })
    .max(limits.monitorGoalChars, { error: `must be at most ${limits.monitorGoalChars} characters` })
    .nullable()
    .optional(),
  judgeEnabled: z.boolean({ error: 'must be true or false' }).optional(),
};

export const createMonitorSchema = z.strictObject({ ...fields, ...callerKeys });
export const updateMonitorSchema = z.strictObject({
  name: fields.name.optional(),
  status: z.enum(['active', 'paused'], { error: 'must be "active" or "paused"' }).optional(),
  schedule: schedule.optional(),
  webhook: fields.webhook,
  notification,
  targets: fields.targets.optional(),
  retentionDays: fields.retentionDays,
  goal: fields.goal,
  judgeEnabled: fields.judgeEnabled,
  ...callerKeys,
});

export interface MonitorChanges {
  name?: string;
  status?: 'active' | 'paused';
  schedule?: { cron?: string; text?: string; timezone?: string };
  /** null: remove it. */
  webhook?: WebhookSpec | null;
  targets?: MonitorTarget[];
  retentionDays?: number;
  goal?: string | null;
  judgeEnabled?: boolean;
}

/**
 * The formats a monitor's page is scraped with: the target's own, with Markdown (what is
 * compared) and changeTracking under the monitor's own tag, so that its baselines are its own
 * and not those of the team's other scrapes of the same page.
 */
export function checkFormats(formats: unknown, tag: string): unknown[] {
  const given = Array.isArray(formats) ? formats : ['markdown'];
  const kept = given.filter((f) => {
    const type = typeof f === 'string' ? f : (f as { type?: unknown } | null)?.type;
    return type !== 'changeTracking';
  });
  const hasMarkdown = kept.some(
    (f) => f === 'markdown' || (f as { type?: unknown } | null)?.type === 'markdown',
  );
  return [
    ...(hasMarkdown ? [] : ['markdown']),
    ...kept,
    { type: 'changeTracking', modes: ['git-diff'], tag },
  ];
}

/** The changeTracking tag a monitor's target keeps its pages' baselines under. */
export const baselineTag = (monitorId: string, targetId: string) => `monitor:${monitorId}:${targetId}`;

/** Each target checked as its check will run it (its scrape options, a crawl's options), ids given. */
function readTargets(raw: z.output<typeof target>[]): MonitorTarget[] {
  const ids = new Set<string>();
  return raw.map((t, i) => {
    const where = `body.targets[${i}]`;
    if (t.type === 'search')
      throw badRequest(
        `${where}: search targets need a search engine, which Quire does not have; use "scrape" or "crawl"`,
      );
    const id = t.id ?? randomUUID();
    if (ids.has(id)) throw badRequest(`${where}.id repeats another target's id`);
    ids.add(id);
    const scrapeOptions = t.scrapeOptions ?? {};
    checkScrapeOptions(
      { ...scrapeOptions, formats: checkFormats(scrapeOptions.formats, 'probe') },
      `${where}.scrapeOptions`,
    );
    if (scrapeOptions.zeroDataRetention === true)
      throw badRequest(
        `${where}.scrapeOptions.zeroDataRetention: a monitor compares each page with its last check, which zero data retention forbids keeping`,
      );
    if (t.type === 'scrape') return { id, type: 'scrape', urls: t.urls, scrapeOptions };
    const crawlOptions = t.crawlOptions ?? {};
    if ('prompt' in crawlOptions)
      throw badRequest(
        `${where}.crawlOptions.prompt: a monitor's crawl takes its options as they are, not a prompt`,
      );
    try {
      validateCrawlBody({ ...crawlOptions, url: t.url });
    } catch (error) {
      if (error instanceof Error && 'status' in error)
        throw badRequest(error.message.replaceAll('body.', `${where}.crawlOptions.`));
      throw error;
    }
    return { id, type: 'crawl', url: t.url, crawlOptions, scrapeOptions };
  });
}

function refuseUnbuilt(body: { notification?: z.output<typeof notification> }): void {
  if (body.notification?.email?.enabled)
    throw badRequest('body.notification.email: Quire sends no email; use body.webhook to be told of changes');
}

export function validateCreateMonitor(
  raw: unknown,
): Required<Pick<MonitorChanges, 'name' | 'schedule' | 'targets'>> & MonitorChanges {
  const parsed = createMonitorSchema.safeParse(raw);
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const body = parsed.data;
  refuseUnbuilt(body);
  return {
    name: body.name,
    schedule: body.schedule,
    webhook: body.webhook ?? null,
    targets: readTargets(body.targets),
    retentionDays: body.retentionDays,
    goal: body.goal ?? null,
    judgeEnabled: body.judgeEnabled ?? false,
  };
}

export function validateUpdateMonitor(raw: unknown): MonitorChanges {
  const parsed = updateMonitorSchema.safeParse(raw ?? {});
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const body = parsed.data;
  refuseUnbuilt(body);
  const { origin: _origin, integration: _integration, notification: _notification, targets, ...rest } = body;
  return { ...rest, ...(targets ? { targets: readTargets(targets) } : {}) };
}
