import { jsonChanges, type ReadJson } from '../changes/json-changes.ts';
import type { ChangeTracker } from '../changes/tracker.ts';
import type { Config } from '../config.ts';
import { brandingProfile } from '../enrich/branding/branding.ts';
import type { JsonObject, JsonValue } from '../enrich/json.ts';
import { isModelFormat } from '../enrich/plan.ts';
import { ApiError } from '../errors.ts';
import type { ParseOptions } from '../options/parse-options.ts';
import type { ChangeTrackingSpec, ScrapeRequest } from '../options/scrape-options.ts';
import { validateParseOptions } from '../options/validate.ts';
import {
  type AnswerAdditions,
  type Caller,
  type ConversionInput,
  type ConvertDeps,
  convertToAnswer,
} from '../pipeline/convert-to-answer.ts';
import { type Closable, type Deadline, deadline } from '../pipeline/deadline.ts';
import type { CreditHold } from '../quota/credits.ts';
import type { UploadHold } from '../quota/upload-budget.ts';
import type { NetPolicy } from '../sessions/net-policy.ts';
import type { AdBlocker } from './ad-filter.ts';
import { fetchBusy } from './fetch-errors.ts';
import { type FetchContext, type FetchedPage, fetchUrl } from './fetch-url.ts';
import { pageInput } from './page-input.ts';
import { isAppShell } from './render/needs-render.ts';
import { type RenderedPage, renderPage } from './render/render-page.ts';
import type { ScrapeRenderer } from './render/renderer.ts';
import { type CacheHit, type CachePlan, cachePlan, type ScrapeCache } from './scrape-cache.ts';
import { type ResolveAll, systemResolve, vettedAddress } from './vetted-address.ts';

/** What a scrape needs besides the conversion: the network's rules, the browsers, the cache. */
export interface ScrapeDeps extends ConvertDeps {
  /** Compares a tracked scrape with the team's last one of the page (changeTracking). */
  changes: ChangeTracker;
  /** Which hosts a scrape may reach (private and loopback ones only when the operator allows them). */
  policy: NetPolicy;
  resolveAll?: ResolveAll;
  renderer: ScrapeRenderer;
  config: Config;
  cache: ScrapeCache;
  /** The ad and tracker filter lists `blockAds` applies. */
  adBlocker: AdBlocker;
}

/** One scrape: a request's, or one page of a crawl or batch. */
export interface ScrapeCall {
  caller: Caller;
  scrape: ScrapeRequest;
  /** The conversion's options, after the team's zero data retention policy. */
  options: ParseOptions;
  /** The fetched bytes count against the node's and the team's budget, as an upload's do. */
  hold: UploadHold;
  /** Taken before the call; settled here with what the answer cost. */
  credit: CreditHold;
  /** Where clients reach Quire (screenshot URLs start with it). */
  base: string;
  /** What ends the scrape early besides its timeout: the client's socket, or a job's cancellation. */
  client?: Closable;
  /** Whether the scrape cache may answer or keep the answer (as the scrape's maxAge and storeInCache say). */
  useCache: boolean;
}

/** The answer, and the page it was made from (none when the cache answered). */
export interface ScrapeOutcome {
  body: Buffer;
  page: FetchedPage | undefined;
}

/** What the conversion reads: the fetched bytes, or the rendered DOM with the origin's own type in its metadata. */
function renderedInput(sourceURL: string, page: RenderedPage, context: FetchContext): ConversionInput {
  const bytes = Buffer.from(page.html);
  const over = context.hold.take(bytes.length);
  if (over) throw fetchBusy(over);
  // The DOM is serialised as UTF-8, whatever charset the origin's bytes were in.
  const input = pageInput(sourceURL, { ...page, contentType: 'text/html; charset=utf-8', bytes });
  return { ...input, origin: { ...input.origin!, contentType: page.contentType } };
}

interface PageRead {
  input: ConversionInput;
  page: FetchedPage;
  rendered?: RenderedPage;
}

/**
 * The page, rendered when it needs a browser: always for the options only a browser honours
 * (waitFor, mobile, actions, screenshot), else when the plain fetch brought back an app shell.
 * A document (PDF, DOCX, ...) is never rendered: the browser would only download it.
 */
async function readPage(
  scrape: ScrapeRequest,
  deps: ScrapeDeps,
  context: FetchContext,
  clock: Deadline,
  blockAds: boolean,
): Promise<PageRead> {
  const render = async () => {
    const resolve = deps.resolveAll ?? systemResolve;
    // Loaded on the first render that blocks (seconds, once per list version; then read from disk).
    const ads = blockAds ? await deps.adBlocker.filter(clock.signal) : undefined;
    const job = {
      url: scrape.url,
      fetch: scrape.fetch,
      render: scrape.render,
      remaining: clock.remaining,
      signal: clock.signal,
      ads,
      vet: (url: URL) =>
        vettedAddress(url, deps.policy, resolve, clock.signal).then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof ApiError) return error;
            throw error;
          },
        ),
    };
    return deps.renderer.pool.withContext(clock.signal, (browserContext) => renderPage(browserContext, job));
  };
  const fromRender = (rendered: RenderedPage): PageRead => {
    const input = renderedInput(scrape.sourceURL, rendered, context);
    const { buffer, byteOffset, byteLength } = input.file.bytes;
    const bytes = Buffer.from(buffer, byteOffset, byteLength);
    const page = { url: rendered.url, status: rendered.status, contentType: 'text/html', bytes };
    return { input, page, rendered };
  };
  if (scrape.render.required) {
    // Refused or unresolvable addresses fail here, before a browser is started for them.
    await vettedAddress(new URL(scrape.url), deps.policy, deps.resolveAll ?? systemResolve, clock.signal);
    const rendered = await render();
    if (rendered.kind === 'page') return fromRender(rendered);
  }
  const page: FetchedPage = await fetchUrl(scrape.url, scrape.fetch, context);
  if (!scrape.render.required && isAppShell(page)) {
    const rendered = await render();
    if (rendered.kind === 'page') return fromRender(rendered);
  }
  return { input: pageInput(scrape.sourceURL, page), page };
}

/** The cached answer for the plan, if any; a cache that cannot be read is a miss, never a failed scrape. */
async function cachedAnswer(
  deps: ScrapeDeps,
  plan: CachePlan,
  call: ScrapeCall,
): Promise<CacheHit | undefined> {
  try {
    return await deps.cache.get(plan, call.scrape.sourceURL);
  } catch (err) {
    call.caller.log.warn({ err }, 'scrape cache not read');
    return undefined;
  }
}

/**
 * Whether a fresh answer may be kept: only the origin's 2xx pages, so that a passing 404 or 500
 * does not stand in for the page for days (upstream's index, holding several entries per URL,
 * skips back to the newest 2xx one; this cache holds one). An answer whose model step failed
 * (summary, json or redactPII with a warning) is fetched again rather than kept with its gap.
 */
function cacheWorthy(deps: ScrapeDeps, call: ScrapeCall, status: number | undefined, body: Buffer): boolean {
  if (status === undefined || status < 200 || status > 299) return false;
  const modelShaped =
    deps.model !== undefined &&
    (call.options.formats.some(isModelFormat) || call.options.redactPII !== false);
  if (!modelShaped) return true;
  const answer = JSON.parse(body.toString('utf8')) as { data?: { warning?: unknown } };
  return answer.data?.warning === undefined;
}

/** How this scrape uses the cache; undefined when it does not. */
function planFor(deps: ScrapeDeps, call: ScrapeCall): CachePlan | undefined {
  if (!call.useCache || !deps.cache.enabled) return undefined;
  return cachePlan(call.caller.team, call.scrape, call.options.zeroDataRetention, {
    model: deps.config.QUIRE_LLM_BASE_URL
      ? `${deps.config.QUIRE_LLM_BASE_URL} ${deps.config.QUIRE_LLM_MODEL}`
      : undefined,
    captureBase: call.base,
    adLists: deps.adBlocker.signature(),
  });
}

/** A hold for work the page's own credits cover: json mode's second look at the Markdown. */
const covered: CreditHold = {
  metered: false,
  extend: async (n) => n,
  settle: async () => {},
  release: async () => {},
};

/**
 * What a page's Markdown gives for a schema or prompt, read as an upload of it would be with the
 * json format (the conversion pool's offline extractor, or the model), within the scrape's clock.
 */
function markdownJson(deps: ScrapeDeps, call: ScrapeCall, clock: Deadline): ReadJson {
  return async (markdown, spec) => {
    const options = validateParseOptions({ formats: [{ type: 'json', ...spec }] });
    const input = {
      file: { bytes: Buffer.from(markdown), filename: 'page.md', contentType: 'text/markdown' },
    };
    // Without the scrape's audit: its event names the page's format, not this look's.
    const caller = { ...call.caller, audit: undefined };
    const body = await convertToAnswer(deps, caller, input, options, clock, covered);
    const { data } = JSON.parse(body.toString('utf8')) as { data: { json?: JsonValue; warning?: string } };
    return { value: data.json ?? null, ...(data.warning ? { warning: data.warning } : {}) };
  };
}

/**
 * changeTracking for one scrape: nothing is kept or compared under zero data retention (the
 * field is left out and upstream's warning says why); a store that cannot be read or written
 * leaves it out too, with upstream's warning, rather than failing the scrape. json mode reads
 * a changed page's values from both versions (json-changes.ts).
 */
function tracking(
  deps: ScrapeDeps,
  call: ScrapeCall,
  spec: ChangeTrackingSpec,
  statusCode: number,
  clock: Deadline,
): NonNullable<AnswerAdditions['track']> {
  return async (markdown) => {
    if (call.options.zeroDataRetention)
      return { warning: 'Change tracking is not supported with zero data retention.' };
    if (markdown === undefined) throw new Error('change tracking needs the answer’s Markdown');
    let tracked: Awaited<ReturnType<ScrapeDeps['changes']['track']>>;
    try {
      tracked = await deps.changes.track({
        team: call.caller.team,
        url: call.scrape.url,
        spec,
        markdown,
        statusCode,
      });
    } catch (err) {
      call.caller.log.warn({ err }, 'change tracking failed');
      return { warning: 'Comparing failed, please try again later.' };
    }
    const { previous, changeTracking, warning } = tracked;
    if (!spec.modes.includes('json')) return { changeTracking, warning };
    if (changeTracking.changeStatus !== 'changed' || previous === undefined) {
      changeTracking.json = null;
      return { changeTracking, warning };
    }
    const read = markdownJson(deps, call, clock);
    const looked = await jsonChanges(
      read,
      previous,
      markdown,
      { schema: spec.schema as JsonObject | undefined, prompt: spec.prompt },
      deps.model !== undefined,
    ).catch((err: unknown) => {
      if (clock.signal.aborted) throw err;
      call.caller.log.warn({ err }, 'change tracking: json mode failed');
      return { json: null, warning: 'Structured diff generation failed.' };
    });
    changeTracking.json = looked.json;
    const warnings = [warning, looked.warning].filter((w): w is string => w !== undefined);
    return { changeTracking, ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}) };
  };
}

/**
 * Fetch the URL over HTTP(S), then convert what came back exactly as an upload of it would be
 * (the same detection, worker pool and answer), with the page's own addresses and status in its
 * metadata; rendered in the browser pool when it needs one (see `readPage`); answered from the
 * cache when the scrape allows it. Throws the scrape's ApiError (408 on its timeout).
 */
export async function scrapePage(deps: ScrapeDeps, call: ScrapeCall): Promise<ScrapeOutcome> {
  const { scrape, options, credit } = call;
  const plan = planFor(deps, call);
  const hit = plan && (await cachedAnswer(deps, plan, call));
  if (hit) {
    await credit.settle(hit.creditsUsed);
    return { body: hit.body, page: undefined };
  }
  const clock = deadline(options.timeout, 'scrape', call.client);
  try {
    const context = {
      policy: deps.policy,
      hold: call.hold,
      signal: clock.signal,
      resolveAll: deps.resolveAll,
    };
    const { input, page, rendered } = await readPage(scrape, deps, context, clock, options.blockAds);
    const origin = input.origin!;
    // Upstream reports cacheState only when the cache was looked in (not for maxAge 0).
    const additions: AnswerAdditions = plan && plan.maxAge > 0 ? { cacheState: 'miss' } : {};
    if (rendered)
      additions.captures = () => deps.renderer.answerFields(rendered, options.zeroDataRetention, call.base);
    if (scrape.render.branding)
      additions.branding = rendered?.branding
        ? { value: brandingProfile(rendered.branding) }
        : {
            value: null,
            warning: `branding: ${origin.url} is a document (${origin.contentType ?? 'no Content-Type'}), not a page with styles of its own; branding is null.`,
          };
    if (scrape.changeTracking)
      additions.track = tracking(deps, call, scrape.changeTracking, origin.statusCode, clock);
    const body = await convertToAnswer(deps, call.caller, input, options, clock, credit, additions).catch(
      (error: unknown) => {
        throw error instanceof ApiError && error.code === 'UNSUPPORTED_FILE_TYPE'
          ? new ApiError(
              400,
              'SCRAPE_UNSUPPORTED_FILE_ERROR',
              `${origin.url} returned ${origin.contentType ? `"${origin.contentType}"` : 'no Content-Type'}, which Quire cannot convert: ${error.message}`,
            )
          : error;
      },
    );
    if (plan?.write && cacheWorthy(deps, call, origin.statusCode, body)) {
      // Screenshots served by Quire expire after 24 hours; data URLs do not.
      const captureUrls = rendered?.screenshot !== undefined && deps.config.QUIRE_SCRAPE_CAPTURES === 'url';
      // A cache that fails (its store unreachable) costs the next scrape a fetch, not this answer.
      await deps.cache
        .put(plan, body, captureUrls)
        .catch((err: unknown) => call.caller.log.warn({ err }, 'scrape answer not cached'));
    }
    return { body, page };
  } finally {
    clock.done();
  }
}
