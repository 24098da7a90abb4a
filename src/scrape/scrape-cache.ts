import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { isModelFormat } from '../enrich/plan.ts';
import { limits } from '../limits.ts';
import type { ScrapeRequest } from '../options/scrape-options.ts';
import type { ScrapeCacheEntry, Store } from '../store/store.ts';
import { consentSignature } from './render/consent.ts';

const compress = promisify(zlib.brotliCompress);
const decompress = promisify(zlib.brotliDecompress);
/** Quality 5: within ~10% of brotli's best on HTML-sized JSON, at a few ms per MB (11 takes ~1 s per MB). */
const brotliParams = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };

/**
 * Options that do not change the answer, left out of the key so that they do not split the cache:
 * the deadline, who asks and why (origin, integration, auditMetadata), the cache's own options,
 * zero data retention (under it the cache is never used), and those accepted without effect in
 * this build (proxy, fastMode; they join the key if they ever take effect). `blockAds` is keyed
 * below, with the filter lists and consent rules it applies.
 */
const outputNeutral = new Set([
  'timeout',
  'origin',
  'integration',
  'auditMetadata',
  'maxAge',
  'storeInCache',
  'zeroDataRetention',
  'blockAds',
  'proxy',
  'fastMode',
  // Empty whenever the cache is used (see cachePlan); the settings below stand for the rest.
  'headers',
  'actions',
  'waitFor',
  'mobile',
]);

/** JSON with object keys sorted at every level, so equal options give equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The URL as the cache knows it: WHATWG-normalised (scheme and host in lower case, default port
 * and dot segments gone, percent-encoding made uniform). Query and fragment stay: both can select
 * different content (a hash-routed app renders by its fragment).
 */
export function cacheUrl(url: string): string {
  return new URL(url).href;
}

/** How one scrape uses the cache; undefined when it must not touch it at all. */
export interface CachePlan {
  key: string;
  team: string;
  url: string;
  /** Oldest entry that may answer, in ms before now; 0: do not read. */
  maxAge: number;
  /** Whether a fresh answer is stored. */
  write: boolean;
}

/** What besides the request shapes the answer: the model that writes summary and json, and captures' base URL. */
export interface CacheContext {
  /** The configured model (base URL and name), when one is. */
  model: string | undefined;
  /** Where clients reach Quire, which screenshot URLs start with. */
  captureBase: string;
  /** Which ad filter lists `blockAds` applies (src/scrape/ad-filter.ts), null when none are installed. */
  adLists: string | null;
}

/**
 * Whether, and under which key, a scrape reads and writes the cache. Never under zero data
 * retention (nothing of the page may be kept). Never with `actions` or `headers`, as upstream
 * (its index skips both): actions make a page interactive, so the same steps may give another
 * result, and headers often carry one user's credentials or cookies. Never with changeTracking,
 * whose answer is about this fetch against the last one: a kept answer would report a stale
 * comparison, and a served one would compare nothing.
 */
export function cachePlan(
  team: string,
  scrape: ScrapeRequest,
  zeroDataRetention: boolean,
  context: CacheContext,
): CachePlan | undefined {
  if (zeroDataRetention) return undefined;
  if (scrape.render.actions.length > 0 || Object.keys(scrape.fetch.headers).length > 0) return undefined;
  if (scrape.changeTracking) return undefined;
  if (scrape.cache.maxAge === 0 && !scrape.cache.store) return undefined;
  const options = Object.fromEntries(Object.entries(scrape.options).filter(([k]) => !outputNeutral.has(k)));
  const modelShaped = scrape.options.formats.some(isModelFormat) || scrape.options.redactPII !== false;
  const url = cacheUrl(scrape.url);
  const material = canonical({
    v: 1,
    team,
    url,
    options,
    acceptLanguage: scrape.fetch.acceptLanguage ?? null,
    // Defaults written out, so that `waitFor: 0` and no waitFor share an entry.
    waitFor: scrape.render.waitFor,
    mobile: scrape.render.mobile,
    screenshot: scrape.render.screenshot ?? null,
    model: modelShaped ? (context.model ?? null) : null,
    captureBase: scrape.render.screenshot ? context.captureBase : null,
    // Blocking changes the answer, and so do other lists (a Debian update) or consent rules (an
    // autoconsent update): an answer filtered by others, or by no lists because they were
    // missing, is not served for this one.
    blockAds: scrape.options.blockAds
      ? { lists: context.adLists ?? 'no lists', consent: consentSignature() }
      : false,
  });
  return {
    key: createHash('sha256').update(material).digest('hex'),
    team,
    url,
    maxAge: scrape.cache.maxAge,
    write: scrape.cache.store,
  };
}

interface Answer {
  success: true;
  data: { metadata: Record<string, unknown> } & Record<string, unknown>;
}

function isAnswer(value: unknown): value is Answer {
  const data = (value as { data?: { metadata?: unknown } } | null)?.data;
  return typeof data?.metadata === 'object' && data.metadata !== null;
}

/** A cached answer as this request's: its own sourceURL and scrapeId, no queue wait, and the cache's state. */
export interface CacheHit {
  body: Buffer;
  creditsUsed: number;
}

/** The scrape cache: answers in the store, compressed, under a size cap, swept of entries past their end. */
export class ScrapeCache {
  private readonly store: Store;
  readonly capBytes: number;
  private readonly sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  /** `now`: epoch milliseconds, injected so that tests move the entries' lifetimes. */
  constructor(
    store: Store,
    capBytes: number,
    onSweepError: (error: unknown) => void,
    now: () => number = () => Date.now(),
  ) {
    this.store = store;
    this.capBytes = capBytes;
    this.now = now;
    if (capBytes > 0) {
      this.sweeper = setInterval(
        () => void this.store.purgeScrapeCache(new Date(this.now()).toISOString()).catch(onSweepError),
        limits.scrapeCacheSweepMs,
      );
      this.sweeper.unref();
    }
  }

  get enabled(): boolean {
    return this.capBytes > 0;
  }

  /** The newest answer under the plan's key no older than its maxAge, rewritten for this request. */
  async get(plan: CachePlan, sourceURL: string): Promise<CacheHit | undefined> {
    if (!this.enabled || plan.maxAge === 0) return undefined;
    const now = this.now();
    const oldest = now - Math.min(plan.maxAge, limits.scrapeCacheRetentionMs);
    const found = await this.store.getScrapeCache(
      plan.key,
      new Date(oldest).toISOString(),
      new Date(now).toISOString(),
    );
    if (!found) return undefined;
    const answer: unknown = JSON.parse((await decompress(found.body)).toString('utf8'));
    if (!isAnswer(answer)) throw new Error('a cached scrape answer has no metadata');
    const { concurrencyQueueDurationMs: _waited, ...metadata } = answer.data.metadata;
    answer.data.metadata = {
      ...metadata,
      // The address as this caller wrote it: equal URLs may be written differently.
      sourceURL,
      scrapeId: randomUUID(),
      concurrencyLimited: false,
      cacheState: 'hit',
      cachedAt: found.cachedAt,
    };
    const credits = answer.data.metadata.creditsUsed;
    return {
      body: Buffer.from(JSON.stringify(answer)),
      creditsUsed: typeof credits === 'number' ? credits : 1,
    };
  }

  /**
   * Keep a fresh answer. One holding screenshot URLs is served only while they have
   * `scrapeCacheCaptureMarginMs` left of their 24 hours, so a hit never hands out a dead link.
   * An entry over half the cap is not kept: it would push out most of the others.
   */
  async put(plan: CachePlan, body: Buffer, holdsCaptureUrls: boolean): Promise<boolean> {
    if (!this.enabled || !plan.write) return false;
    const packed = await compress(body, brotliParams);
    if (packed.length > this.capBytes / 2) return false;
    const now = this.now();
    const life = holdsCaptureUrls
      ? limits.screenshotTtlMs - limits.scrapeCacheCaptureMarginMs
      : limits.scrapeCacheRetentionMs;
    const entry: ScrapeCacheEntry = {
      key: plan.key,
      team: plan.team,
      url: plan.url,
      body: packed,
      cachedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + life).toISOString(),
    };
    await this.store.putScrapeCache(entry, this.capBytes);
    return true;
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }
}
