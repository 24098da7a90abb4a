import { z } from 'zod';
import { limits } from '../limits.ts';
import { headerRecord } from '../options/scrape-options.ts';

/**
 * The `webhook` field of a crawl or batch scrape request (jobs-and-formats §3): a URL, or an
 * object naming the URL, headers sent with each delivery, metadata echoed in each payload and the
 * events wanted. Parsed into WebhookSpec, which the job keeps (as JSON) and WebhookSender reads.
 */

/** The events a receiver may ask for: the part of the payload's `type` after the dot. */
export const webhookEvents = ['started', 'page', 'completed', 'failed'] as const;
/** A monitor's: `changed` after a check that found a page new, changed or removed; `completed` after every check. */
export const monitorWebhookEvents = ['changed', 'completed'] as const;
export type WebhookEvent = (typeof webhookEvents)[number] | (typeof monitorWebhookEvents)[number];

/** The request's webhook, every default filled in. */
export interface WebhookSpec {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  events: WebhookEvent[];
}

/** Headers Quire signs each delivery with: a caller's own would pass for (or hide) the real one. */
const signatureHeaders = new Set(['x-firecrawl-signature', 'x-quire-signature']);

/** `crawl.page` and `batch_scrape.page` name the `page` event, as upstream's newer versions accept. */
const eventName = /^(?:(?:crawl|batch_scrape)\.)?(started|page|completed|failed)$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const headers = headerRecord('for each delivery').superRefine((all, ctx) => {
  // Upstream's refine and its message, listing what was sent.
  const forbidden = Object.keys(all).filter((name) => signatureHeaders.has(name.toLowerCase()));
  if (forbidden.length > 0)
    ctx.addIssue({
      code: 'custom',
      message: `The following headers are not allowed: ${forbidden.map((n) => n.toLowerCase()).join(', ')}`,
    });
});

/** Any JSON scalar, as the SDKs' types allow; upstream's own schema takes strings only. */
const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'must be a string, number, boolean or null',
});

const metadata = z
  .record(z.string(), metadataValue, { error: 'must be an object of strings, numbers, booleans or null' })
  .refine((all) => Buffer.byteLength(JSON.stringify(all)) <= limits.webhookMetadataBytes, {
    error: `may take at most ${limits.webhookMetadataBytes} bytes as JSON`,
  });

const event = z
  .string({ error: 'must be a string' })
  .regex(eventName, {
    error: 'must be one of started, page, completed, failed (or the same after "crawl." or "batch_scrape.")',
  })
  .transform((name) => eventName.exec(name)![1] as WebhookEvent);

const receiver = {
  url: z
    .string({ error: 'must be a string' })
    .max(limits.scrapeUrlChars, { error: `must be at most ${limits.scrapeUrlChars} characters` })
    .refine(isHttpUrl, { error: 'must be an http or https URL' }),
  headers: headers.optional(),
  metadata: metadata.optional(),
};

const webhookObject = z.strictObject(
  {
    ...receiver,
    events: z
      .array(event, { error: 'must be an array of event names' })
      .max(16, { error: 'may name at most 16 events' })
      .optional(),
  },
  { error: 'must be a URL or an object with a "url"' },
);

/**
 * The request's `webhook`: a URL string is shorthand for `{url}`. Events default to all four, as an
 * empty list does upstream (which then sends everything); `crawl.page` counts as `page`.
 */
export const webhookSchema = z.preprocess(
  (value) => (typeof value === 'string' ? { url: value } : value),
  webhookObject.transform(
    (w): WebhookSpec => ({
      url: w.url,
      headers: w.headers ?? {},
      metadata: w.metadata ?? {},
      events:
        w.events && w.events.length > 0
          ? webhookEvents.filter((e) => w.events!.includes(e))
          : [...webhookEvents],
    }),
  ),
);

const monitorEventName = /^(?:monitor\.)?(changed|completed)$/;

/** A monitor's `webhook`: the same receiver, headers and metadata; events `changed` (the default) and `completed`. */
export const monitorWebhookSchema = z
  .strictObject(
    {
      ...receiver,
      events: z
        .array(
          z
            .string({ error: 'must be a string' })
            .regex(monitorEventName, { error: 'must be changed or completed (or the same after "monitor.")' })
            .transform((name) => monitorEventName.exec(name)![1] as WebhookEvent),
          { error: 'must be an array of event names' },
        )
        .max(4, { error: 'may name at most 4 events' })
        .optional(),
    },
    { error: 'must be an object with a "url"' },
  )
  .transform(
    (w): WebhookSpec => ({
      url: w.url,
      headers: w.headers ?? {},
      metadata: w.metadata ?? {},
      events: w.events && w.events.length > 0 ? [...new Set(w.events)] : ['changed'],
    }),
  );
