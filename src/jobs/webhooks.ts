import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import { decoded } from '../scrape/fetch-url.ts';
import {
  pinnedLookup,
  type ResolveAll,
  systemResolve,
  type VettedAddress,
  vettedAddress,
} from '../scrape/vetted-address.ts';
import type { NetPolicy } from '../sessions/net-policy.ts';
import type { JobKind, JobStore, WebhookDelivery } from './job-store.ts';
import type { WebhookEvent, WebhookSpec } from './webhook-spec.ts';

/**
 * The time and timers the sender runs on: the process's, or a clock a test moves, so that retries
 * and the receiver's timeout come without the test waiting for them.
 */
export interface WebhookClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once, `ms` from now; the function returned cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** The process's own clock, looked up when called (so node:test's mock.timers applies). */
export const systemClock: WebhookClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

export interface WebhookSenderOptions {
  /** The key deliveries are signed with (X-Firecrawl-Signature); unsigned without one. */
  secret: string | undefined;
  /** Which receivers may be reached: private, loopback and link-local ones only when allowed by name. */
  policy: NetPolicy;
  /** Resolves receivers' names; the system resolver unless a test gives its own. */
  resolveAll?: ResolveAll;
  /** Where failed attempts are reported (pino's signature). */
  log: { warn(details: object, message: string): void };
  clock?: WebhookClock;
  /** The name this process's claims on deliveries are taken under; a new UUID by default. */
  owner?: string;
}

/** What an event says besides its type: `data` is the JSON text of its array, spliced in as it is. */
export interface WebhookPayload {
  success: boolean;
  /** `[]`, or `[` + a document's JSON + `]`: a document can be megabytes, so it is never re-encoded. */
  data: string;
  error?: string;
}

/** The job an event is about. */
export interface WebhookJob {
  /** The id the payload names: the job's, or the monitor's. */
  id: string;
  kind: JobKind | 'monitor';
  webhook: WebhookSpec;
  /** The job whose outbox holds the event (ordering, retention): `id`, unless a monitor's check names its job. */
  outbox?: string;
}

/** Names Quire in each delivery, so a receiver can tell its calls from others. */
const userAgent = 'Quire-Webhooks/0.1 (Firecrawl-compatible)';

const typePrefix: Record<WebhookJob['kind'], string> = {
  crawl: 'crawl',
  batch: 'batch_scrape',
  monitor: 'monitor',
};

const iso = (ms: number): string => new Date(ms).toISOString();

/** The receiver's scheme, host and port, for the logs. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * How long after `attempts` failed attempts the next one comes, or undefined when it would fall
 * past the retry window (measured along the schedule from the first): the event is given up.
 */
export function retryDelay(attempts: number): number | undefined {
  const delays = limits.webhookRetryDelaysMs;
  const delayAfter = (n: number) => delays[Math.min(n, delays.length) - 1]!;
  let elapsed = 0;
  for (let n = 1; n <= attempts; n++) elapsed += delayAfter(n);
  return elapsed > limits.webhookRetryWindowMs ? undefined : delayAfter(attempts);
}

type Outcome = { delivered: true } | { delivered: false; reason: string; refused: boolean };

/**
 * Webhook events of crawls and batch scrapes (jobs-and-formats §3). `emit` writes the event,
 * body and all, to the store's outbox and returns: a job never waits for its receiver, and an
 * event survives the process that emitted it. The delivery loop (`start`) claims due events
 * from the outbox (any process's: in a cluster the claim keeps two from sending one) and POSTs
 * them, signed when a secret is set; a receiver that does not answer 2xx within the timeout is
 * tried again on the back-off schedule, for up to a day. A job's events go one at a time in the
 * order emitted, each waiting until the one before is delivered or given up; different jobs'
 * events go in parallel.
 */
export class WebhookSender {
  private readonly store: JobStore;
  private readonly options: WebhookSenderOptions;
  private readonly clock: WebhookClock;
  private readonly owner: string;
  private running = false;
  /** The claim under way, and whether another should follow it (something was woken meanwhile). */
  private pumping: Promise<void> | undefined;
  private again = false;
  private readonly inFlight = new Set<Promise<void>>();
  private cancelPoll: (() => void) | undefined;

  constructor(store: JobStore, options: WebhookSenderOptions) {
    this.store = store;
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.owner = options.owner ?? randomUUID();
  }

  /**
   * Queue the event for delivery, unless the webhook does not ask for it. Resolves once the
   * outbox holds it; rejects only when the store cannot be written.
   */
  async emit(job: WebhookJob, event: WebhookEvent, payload: WebhookPayload): Promise<void> {
    if (!job.webhook.events.includes(event)) return;
    const { data } = payload;
    if (data[0] !== '[' || data[data.length - 1] !== ']')
      throw new TypeError('A webhook payload\'s data must be the JSON text of an array ("[]", "[{…}]")');
    const id = randomUUID();
    // Upstream's key order; `data` is spliced in, the rest encoded here.
    let body = `{"success":${payload.success},"type":${JSON.stringify(`${typePrefix[job.kind]}.${event}`)}`;
    body += `,"id":${JSON.stringify(job.id)},"data":${data}`;
    if (payload.error !== undefined) body += `,"error":${JSON.stringify(payload.error)}`;
    body += `,"metadata":${JSON.stringify(job.webhook.metadata)},"webhookId":"${id}"}`;
    await this.store.queueWebhook({
      id,
      jobId: job.outbox ?? job.id,
      url: job.webhook.url,
      headers: JSON.stringify(job.webhook.headers),
      body,
      attempts: 0,
      nextAt: iso(this.clock.now()),
    });
    this.wake();
  }

  /** Start delivering: now, whenever an event is emitted or a delivery ends, and every poll. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.poll();
  }

  /** Stop claiming; resolves once the deliveries under way have ended (each within the timeout). */
  async close(): Promise<void> {
    this.running = false;
    this.cancelPoll?.();
    this.cancelPoll = undefined;
    await this.idle();
  }

  /** Resolves once no claim and no delivery is under way (what is due now has been tried). */
  async idle(): Promise<void> {
    while (this.pumping || this.inFlight.size > 0) await Promise.allSettled([this.pumping, ...this.inFlight]);
  }

  /** Retries, and other processes' leftovers, are found by looking now and then. */
  private poll(): void {
    if (!this.running) return;
    this.cancelPoll = this.clock.after(limits.webhookPollMs, () => this.poll());
    this.wake();
  }

  /** Claim what is due, or once the claim under way has ended. */
  private wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.again = false;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.again) this.wake();
    });
  }

  private async pump(): Promise<void> {
    const room = limits.webhookConcurrency - this.inFlight.size;
    if (room <= 0) return;
    const now = this.clock.now();
    let claimed: WebhookDelivery[];
    try {
      claimed = await this.store.claimWebhooks(this.owner, iso(now), iso(now + limits.webhookLeaseMs), room);
    } catch (err) {
      this.options.log.warn({ err }, 'webhooks: the outbox could not be read; trying again at the next poll');
      return;
    }
    for (const delivery of claimed) {
      const running: Promise<void> = this.deliver(delivery)
        .catch((err: unknown) =>
          this.options.log.warn({ err, webhookId: delivery.id }, 'webhooks: a delivery failed unexpectedly'),
        )
        .finally(() => {
          this.inFlight.delete(running);
          // The job's next event, or another job's that waited for room.
          this.wake();
        });
      this.inFlight.add(running);
    }
  }

  /** One attempt, and what follows from it in the outbox; never throws. */
  private async deliver(delivery: WebhookDelivery): Promise<void> {
    const attempt = delivery.attempts + 1;
    const outcome = await this.attempt(delivery);
    const { log } = this.options;
    // Not the body, nor the headers, path or query: they may hold the receiver's credentials.
    const about = { job: delivery.jobId, webhookId: delivery.id, receiver: originOf(delivery.url), attempt };
    try {
      if (outcome.delivered) {
        await this.store.removeWebhook(delivery.id);
        return;
      }
      const delay = outcome.refused ? undefined : retryDelay(attempt);
      if (delay === undefined) {
        await this.store.removeWebhook(delivery.id);
        log.warn(
          { ...about, reason: outcome.reason },
          outcome.refused
            ? 'webhooks: receiver refused; event dropped'
            : `webhooks: delivery failed; event given up after ${attempt} attempts`,
        );
        return;
      }
      const nextAt = iso(this.clock.now() + delay);
      await this.store.retryWebhook(delivery.id, attempt, nextAt);
      log.warn({ ...about, reason: outcome.reason, nextAt }, 'webhooks: delivery failed; will retry');
    } catch (err) {
      // The claim lapses, and the event is tried again (perhaps a second time, if it was delivered).
      log.warn({ ...about, err }, 'webhooks: the outbox could not be updated');
    }
  }

  /** POST the event to its receiver's vetted address, within the timeout. */
  private async attempt(delivery: WebhookDelivery): Promise<Outcome> {
    const seconds = limits.webhookTimeoutMs / 1000;
    const controller = new AbortController();
    const cancel = this.clock.after(limits.webhookTimeoutMs, () =>
      controller.abort(new Error(`no answer within ${seconds} s`)),
    );
    try {
      const url = new URL(delivery.url);
      const vetted = await vettedAddress(
        url,
        this.options.policy,
        this.options.resolveAll ?? systemResolve,
        controller.signal,
      );
      const status = await this.post(url, vetted, delivery, controller.signal);
      if (status >= 200 && status < 300) return { delivered: true };
      return { delivered: false, refused: false, reason: `the receiver answered ${status}` };
    } catch (error) {
      // A private address can never be reached: trying again would only be refused again.
      if (error instanceof ApiError && error.status === 403)
        return { delivered: false, refused: true, reason: error.message };
      if (controller.signal.aborted)
        return { delivered: false, refused: false, reason: `no answer within ${seconds} s` };
      const code = (error as NodeJS.ErrnoException).code;
      const message = (error as Error).message;
      return {
        delivered: false,
        refused: false,
        reason: code && !message.includes(code) ? `${code}: ${message}` : message,
      };
    } finally {
      cancel();
    }
  }

  /** The answer's status; its body is not read. Redirects are answers like any other, not followed. */
  private post(
    url: URL,
    vetted: VettedAddress,
    delivery: WebhookDelivery,
    signal: AbortSignal,
  ): Promise<number> {
    const secure = url.protocol === 'https:';
    // The caller's headers cannot replace those that frame the body or sign it.
    const headers: Record<string, string> = {
      'User-Agent': userAgent,
      ...(JSON.parse(delivery.headers) as Record<string, string>),
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(delivery.body)),
    };
    const { secret } = this.options;
    if (secret)
      headers['X-Firecrawl-Signature'] =
        `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`;
    const options: https.RequestOptions = {
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers,
      // A connection of its own: a pooled socket would be picked by host name, not by the address vetted.
      agent: false,
      lookup: pinnedLookup(vetted),
      signal,
      maxHeaderSize: limits.scrapeResponseHeaderBytes,
    };
    if (url.username) options.auth = `${decoded(url.username)}:${decoded(url.password)}`;
    return new Promise((resolve, reject) => {
      const sent = (secure ? https : http).request(options, (response) => {
        resolve(response.statusCode ?? 0);
        response.on('error', () => {});
        response.destroy();
      });
      // `on`, not `once`: a request may report a second error, which unheard would end the process.
      sent.on('error', reject);
      sent.end(delivery.body);
    });
  }
}
