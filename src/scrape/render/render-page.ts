import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, KeyInput, Page } from 'puppeteer-core';
import { ApiError } from '../../errors.ts';
import { limits } from '../../limits.ts';
import type { Action, FetchSettings, RenderSettings, ScreenshotSpec } from '../../options/scrape-options.ts';
import type { AdFilter, PageFeatures, PageSource } from '../ad-filter.ts';
import { pageTooLarge, siteError, sslError } from '../fetch-errors.ts';
import { credentials, defaultLanguage } from '../request-headers.ts';
import { type BrandingEvidence, brandingScript } from './branding-evidence.ts';
import { settleConsent } from './consent.ts';
import { HTML_TYPE } from './needs-render.ts';

/** A picture or PDF the browser made, stored or inlined by the caller. */
export interface Capture {
  type: 'png' | 'jpeg' | 'pdf';
  bytes: Uint8Array;
}

/** What rendering gave: the DOM as HTML after scripts ran, and what the actions collected. */
export interface RenderedPage {
  kind: 'page';
  url: string;
  status: number;
  contentType: string | undefined;
  html: string;
  screenshot: Capture | undefined;
  actions:
    | {
        screenshots: Capture[];
        scrapes: { url: string; html: string }[];
        javascriptReturns: { type: string; value: unknown }[];
        pdfs: Capture[];
      }
    | undefined;
  /** The computed styles the branding format reads, when it was asked for. */
  branding?: BrandingEvidence;
}

/** The URL is a document (PDF, DOCX, ...) the browser would download: it is fetched and parsed instead. */
export interface NotAPage {
  kind: 'document';
}

export interface RenderJob {
  url: string;
  fetch: FetchSettings;
  render: RenderSettings;
  /** Milliseconds left before the request's deadline. */
  remaining: () => number;
  signal: AbortSignal;
  /** Why a navigation's host is refused (resolved and checked as the fetch does), or undefined. */
  vet: (url: URL) => Promise<ApiError | undefined>;
  /**
   * Set exactly under `blockAds` (empty without the lists): the filter's requests blocked, its
   * elements removed before the DOM is read, and consent popups opted out of and removed.
   */
  ads?: AdFilter | undefined;
}

const desktop = { width: 1280, height: 800 };
/** A common phone's CSS viewport (iPhone 12 to 15). */
const phone = { width: 390, height: 844 };

/** Chromium's own name gives headless browsers away; sites answer "Chrome" differently from "HeadlessChrome". */
function userAgents(browserUa: string): { desktop: string; mobile: string } {
  const ua = browserUa.replace('HeadlessChrome', 'Chrome');
  const chrome = /Chrome\/[\d.]+/.exec(ua)?.[0] ?? 'Chrome/130.0.0.0';
  return {
    desktop: ua,
    mobile: `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) ${chrome} Mobile Safari/537.36`,
  };
}

/** The caller's headers for one request: credentials only on the first URL's origin, as the fetch sends them. */
function callerHeaders(job: RenderJob, url: string, origin: string): Record<string, string> {
  let sameOrigin = false;
  try {
    sameOrigin = new URL(url).origin === origin;
  } catch {
    // data: and blob: URLs go nowhere.
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(job.fetch.headers)) {
    const key = name.toLowerCase();
    if (key === 'accept-encoding' || (!sameOrigin && credentials.has(key))) continue;
    out[key] = value;
  }
  return out;
}

/**
 * Every request the page makes passes here first (the egress proxy checks it again on its
 * address): navigations of the main frame are resolved and checked as the fetch checks each hop,
 * so a redirect to a refused address ends the scrape with the fetch's 403 rather than rendering
 * the proxy's refusal; under `blockAds`, requests the lists match (ads, trackers, in frames too)
 * never leave the browser; the caller's headers are added.
 */
async function intercept(page: Page, job: RenderJob, refusal: { error?: ApiError }): Promise<void> {
  const origin = new URL(job.url).origin;
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    void (async () => {
      if (request.isInterceptResolutionHandled()) return;
      const mainNavigation = request.isNavigationRequest() && request.frame() === page.mainFrame();
      if (mainNavigation) {
        const refused = /^https?:/.test(request.url()) ? await job.vet(new URL(request.url())) : undefined;
        if (refused) {
          refusal.error ??= refused;
          return request.abort('blockedbyclient');
        }
      } else if (job.ads) {
        // The page asked for is never blocked, only what it loads; until it commits, page.url() is about:blank.
        const pageUrl = /^https?:/.test(page.url()) ? page.url() : job.url;
        // A frame's document is what the lists call a subdocument (`$subdocument`: ad iframes).
        const type = request.resourceType() === 'document' ? 'sub_frame' : request.resourceType();
        if (job.ads.blocks(request.url(), pageUrl, type)) return request.abort('blockedbyclient');
      }
      return request.continue({
        headers: { ...request.headers(), ...callerHeaders(job, request.url(), origin) },
      });
    })().catch(() => {
      // The page or its context closed meanwhile: nothing is waiting for this request.
    });
  });
}

/** Why a navigation failed, in the fetch's words and codes. */
function navigationError(error: Error, url: string, job: RenderJob): ApiError {
  const net = /net::(ERR_[A-Z_]+)/.exec(error.message)?.[1];
  if (net?.startsWith('ERR_CERT_') || net?.startsWith('ERR_SSL_'))
    return sslError(url, net, job.fetch.skipTlsVerification);
  return siteError(url, net ? `the browser could not load it (${net})` : error.message);
}

/** Classes, ids and link targets in the page's DOM, capped as for a fetched page. */
const featuresScript = `(() => {
  const cap = ${limits.adFilterPageFeatures};
  const classes = new Set(), ids = new Set(), hrefs = new Set();
  for (const e of document.querySelectorAll('[class], [id], a[href]')) {
    for (const c of e.classList) if (classes.size < cap) classes.add(c);
    if (e.id && ids.size < cap) ids.add(e.id);
    if (e.localName === 'a' && e.href && hrefs.size < cap) hrefs.add(e.getAttribute('href'));
  }
  const sources = [];
  for (const e of document.querySelectorAll('img[src], iframe[src]'))
    if (sources.length < cap) sources.push({ tag: e.localName, src: e.getAttribute('src') });
  return { classes: [...classes], ids: [...ids], hrefs: [...hrefs], sources };
})()`;

/**
 * The lists' element-hiding rules applied to the page: the matching elements removed from the
 * DOM (so they are neither in the HTML converted nor in a screenshot). A selector the browser
 * cannot parse is skipped alone. A page that navigated meanwhile is read as it is.
 */
async function hideAds(page: Page, ads: AdFilter): Promise<void> {
  try {
    const { sources, ...features } = (await page.evaluate(featuresScript)) as PageFeatures & {
      sources: PageSource[];
    };
    // Images and frames whose requests were blocked stay in the DOM, empty: they go too.
    const selectors = [
      ...ads.hidingSelectors(page.url(), features),
      ...ads.blockedSourceSelectors(page.url(), sources),
    ];
    if (selectors.length === 0) return;
    await page.evaluate(`(() => {
      for (const selector of ${JSON.stringify(selectors)}) {
        try { for (const e of document.querySelectorAll(selector)) e.remove(); } catch {}
      }
    })()`);
  } catch {
    // The page navigated or closed: what it shows is read unfiltered rather than failing the scrape.
  }
}

async function settle(page: Page, job: RenderJob): Promise<void> {
  const cap = Math.min(limits.renderNetworkIdleCapMs, Math.max(1, job.remaining()));
  // A page that never goes quiet (polling, streaming) is read as it is when the cap passes.
  await page.waitForNetworkIdle({ idleTime: limits.renderNetworkIdleMs, timeout: cap }).catch(() => {});
}

async function capture(page: Page, spec: ScreenshotSpec): Promise<Capture> {
  const type = spec.quality === undefined ? 'png' : 'jpeg';
  const before = page.viewport();
  if (spec.viewport) await page.setViewport({ ...before, ...spec.viewport });
  try {
    // A string, as the page's own globals are not Quire's (there is no DOM in this program).
    const size = (await page.evaluate(
      `({ width: document.documentElement.clientWidth || innerWidth,
          height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0) })`,
    )) as { width: number; height: number };
    const tall = spec.fullPage && size.height > limits.renderFullPageHeightPx;
    const bytes = await page.screenshot({
      type,
      quality: spec.quality,
      // Past the cap, the top of the page: the rest would make a picture no client can open.
      fullPage: spec.fullPage && !tall,
      clip: tall ? { x: 0, y: 0, width: size.width, height: limits.renderFullPageHeightPx } : undefined,
      captureBeyondViewport: tall,
    });
    return { type, bytes };
  } finally {
    if (spec.viewport && before) await page.setViewport(before);
  }
}

function actionError(index: number, action: Action, error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = (error as Error).message.split('\n')[0]!.slice(0, 300);
  return new ApiError(
    400,
    'SCRAPE_ACTION_ERROR',
    `body.actions[${index}] (${action.type}) failed: ${message}`,
  );
}

async function runActions(page: Page, job: RenderJob): Promise<NonNullable<RenderedPage['actions']>> {
  const out: NonNullable<RenderedPage['actions']> = {
    screenshots: [],
    scrapes: [],
    javascriptReturns: [],
    pdfs: [],
  };
  for (const [index, action] of job.render.actions.entries()) {
    const timeout = Math.max(1, job.remaining());
    try {
      switch (action.type) {
        case 'wait':
          if (action.selector !== undefined) await page.waitForSelector(action.selector, { timeout });
          else await sleep(action.milliseconds, undefined, { signal: job.signal });
          break;
        case 'click':
          if (action.all) for (const element of await page.$$(action.selector)) await element.click();
          else await page.click(action.selector);
          await settle(page, job);
          break;
        case 'write':
          await page.keyboard.type(action.text);
          break;
        case 'press':
          await page.keyboard.press(action.key as KeyInput);
          await settle(page, job);
          break;
        case 'scroll':
          await page.evaluate(`(() => {
            const selector = ${JSON.stringify(action.selector ?? null)};
            const target = selector ? document.querySelector(selector) : window;
            if (!target) throw new Error('no element matches ' + selector);
            target.scrollBy(0, ${action.direction === 'up' ? -1 : 1} * innerHeight);
          })()`);
          break;
        case 'screenshot':
          out.screenshots.push(await capture(page, action));
          break;
        case 'scrape':
          out.scrapes.push({ url: page.url(), html: await page.content() });
          break;
        case 'executeJavascript': {
          // Evaluated as a script, as upstream does: its value is the last expression's (awaited).
          const value: unknown = await page.evaluate(action.script);
          out.javascriptReturns.push({ type: value === null ? 'null' : typeof value, value: value ?? null });
          break;
        }
        case 'pdf':
          out.pdfs.push({
            type: 'pdf',
            bytes: await page.pdf({
              format: action.format,
              landscape: action.landscape,
              scale: action.scale,
              timeout,
            }),
          });
          break;
      }
    } catch (error) {
      if (job.signal.aborted) throw job.signal.reason;
      throw actionError(index, action, error);
    }
  }
  return out;
}

/**
 * Render one page in its own browser context: the scrape's viewport, User-Agent, language and
 * headers; loaded, then waited for until its network is quiet and `waitFor` has passed; the
 * actions run; the screenshot taken; and its DOM serialised as HTML for the same conversion a
 * fetched page goes through.
 */
export async function renderPage(context: BrowserContext, job: RenderJob): Promise<RenderedPage | NotAPage> {
  const page = await context.newPage();
  const { mobile, locale } = job.render;
  const agents = userAgents(await page.browser().userAgent());
  await page.setViewport(mobile ? { ...phone, isMobile: true, hasTouch: true } : desktop);
  await page.setUserAgent(mobile ? agents.mobile : agents.desktop);
  await page.setExtraHTTPHeaders({ 'accept-language': job.fetch.acceptLanguage ?? defaultLanguage });
  const cdp = await page.createCDPSession();
  if (locale) await cdp.send('Emulation.setLocaleOverride', { locale });
  await cdp.send('Security.setIgnoreCertificateErrors', { ignore: job.fetch.skipTlsVerification });
  const refusal: { error?: ApiError } = {};
  await intercept(page, job, refusal);

  let response: Awaited<ReturnType<Page['goto']>>;
  try {
    response = await page.goto(job.url, { waitUntil: 'load', timeout: Math.max(1, job.remaining()) });
  } catch (error) {
    if (job.signal.aborted) throw job.signal.reason;
    if (refusal.error) throw refusal.error;
    // A download (a PDF, an office file) aborts the navigation: it is a document, not a page.
    if (/net::ERR_ABORTED/.test((error as Error).message)) return { kind: 'document' };
    throw navigationError(error as Error, job.url, job);
  }
  if (refusal.error) throw refusal.error;
  const contentType = response?.headers()['content-type'];
  if (contentType && !HTML_TYPE.test(contentType)) return { kind: 'document' };
  await settle(page, job);
  if (job.render.waitFor > 0) await sleep(job.render.waitFor, undefined, { signal: job.signal });
  if (job.ads) {
    await settleConsent(page, job.remaining(), job.signal);
    await hideAds(page, job.ads);
  }
  const actions = job.render.actions.length > 0 ? await runActions(page, job) : undefined;
  // Actions can bring in more (a click that loads a feed with its ads, or another page with its CMP).
  if (actions && job.ads) {
    await settleConsent(page, job.remaining(), job.signal);
    await hideAds(page, job.ads);
  }
  const screenshot = job.render.screenshot && (await capture(page, job.render.screenshot));
  const branding = job.render.branding
    ? ((await page.evaluate(brandingScript)) as BrandingEvidence)
    : undefined;
  const html = await page.content();
  if (Buffer.byteLength(html) > limits.scrapeBodyBytes) throw pageTooLarge(page.url());
  return {
    kind: 'page',
    url: page.url(),
    status: response?.status() ?? 200,
    contentType,
    html,
    screenshot,
    actions,
    ...(branding ? { branding } : {}),
  };
}
