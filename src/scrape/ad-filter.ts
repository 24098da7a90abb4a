import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ENGINE_VERSION, FiltersEngine, Request, type RequestType } from '@ghostery/adblocker';
import { limits } from '../limits.ts';
import { untilAborted } from './vetted-address.ts';

/**
 * The lists `blockAds` uses, under the folder of Debian's webext-ublock-origin-chromium
 * (QUIRE_FILTER_LISTS_DIR): uBlock Origin's default ad and privacy lists that the package ships.
 * Its cookie-notice and annoyance lists are fetched by the extension from a CDN, not shipped, so
 * they are not here. The badware and URLhaus lists are left out: they block whole sites as
 * malware, which for a scrape would be a failed page rather than a page without ads.
 */
export const FILTER_LISTS = [
  'thirdparties/easylist/easylist.txt',
  'thirdparties/easylist/easyprivacy.txt',
  'ublock/filters.min.txt',
  'ublock/privacy.min.txt',
  'ublock/quick-fixes.min.txt',
  // Exceptions that keep the others from breaking sites: without it, more is hidden than should be.
  'ublock/unbreak.min.txt',
];

/** Classes, ids and link targets of a page: what picks the generic element-hiding rules that may apply. */
export interface PageFeatures {
  classes: string[];
  ids: string[];
  hrefs: string[];
}

/** An image or frame of a page, by its `src` as written. */
export interface PageSource {
  tag: 'img' | 'iframe';
  src: string;
}

/** `value` as a CSS string, for an attribute selector. */
function cssString(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

/** A loaded engine: which requests to block and which elements to hide on a page. */
export class AdFilter {
  private readonly engine: FiltersEngine;
  /** Generic hiding rules that no class, id or site picks (`[data-ad-cls]`, `AD-SLOT`): they apply everywhere. */
  private readonly base: string[];

  constructor(engine: FiltersEngine) {
    this.engine = engine;
    const generic = engine.cosmetics.genericRules.getFilters();
    const unhidden = new Set(engine.cosmetics.unhideIndex.getFilters().map((f) => f.getSelector()));
    // As the engine splits them (lazyPopulateGenericRulesCache): the rest come with the page's matches.
    this.base = generic
      .filter(
        (f) =>
          !f.hasCustomStyle() &&
          !f.isScriptInject() &&
          !f.isExtended() &&
          !f.hasHostnameConstraint() &&
          !unhidden.has(f.getSelector()),
      )
      .map((f) => f.getSelector());
  }

  /** Whether a request a page at `pageUrl` makes is an ad or a tracker the lists block. */
  blocks(url: string, pageUrl: string, type: RequestType): boolean {
    if (!/^(?:https?|wss?):/i.test(url)) return false;
    const request = Request.fromRawDetails({ url, sourceUrl: pageUrl, type });
    return this.engine.match(request).match;
  }

  /**
   * CSS selectors of the elements to hide on the page at `url`: the generic rules its classes,
   * ids and links pick, the site's own rules, and the base rules, less the lists' exceptions.
   */
  hidingSelectors(url: string, features: PageFeatures): string[] {
    let hostname: string;
    let domain: string;
    try {
      ({ hostname, domain } = Request.fromRawDetails({ url, type: 'document' }));
    } catch {
      return [];
    }
    const { matches: found, allowGenericHides } = this.engine.matchCosmeticFilters({
      url,
      hostname,
      domain,
      ...features,
      getRulesFromDOM: true,
      getRulesFromHostname: true,
      getInjectionRules: false,
      getExtendedRules: false,
    });
    const selectors = new Set<string>(allowGenericHides ? this.base : []);
    for (const { filter, exception } of found) {
      if (!filter || exception) continue;
      if (
        filter.isScriptInject() ||
        filter.isExtended() ||
        filter.isHtmlFiltering() ||
        filter.hasCustomStyle()
      )
        continue;
      selectors.add(filter.getSelector());
    }
    return [...selectors];
  }

  /**
   * The images and frames whose address the lists block: a browser would not load them, and
   * neither should they reach the Markdown as ads (uBlock collapses such elements too). Given as
   * selectors on the `src`, as written and resolved against the page's URL.
   */
  blockedSourceSelectors(pageUrl: string, sources: readonly PageSource[]): string[] {
    const out: string[] = [];
    for (const { tag, src } of sources) {
      let url: string;
      try {
        url = new URL(src.trim(), pageUrl).href;
      } catch {
        continue;
      }
      if (!this.blocks(url, pageUrl, tag === 'img' ? 'image' : 'sub_frame')) continue;
      // As written (the browser's DOM) and resolved (the converter's tree holds absolute URLs).
      out.push(`${tag}[src=${cssString(src)}]`);
      if (url !== src) out.push(`${tag}[src=${cssString(url)}]`);
    }
    return out;
  }
}

export interface AdBlockerSettings {
  /** Folder the lists are under (QUIRE_FILTER_LISTS_DIR); empty: no blocking. */
  listsDir: string;
  /** Where the parsed engine is kept between starts. */
  cacheFile: string;
  /** Logged once: the lists are missing or could not be loaded, and scrapes go unfiltered. */
  warn: (message: string, err?: unknown) => void;
}

/**
 * The filter lists as an engine, loaded on the first scrape that asks for blocking. Parsing the
 * lists costs seconds, so the parsed engine is written to `cacheFile`, keyed by the engine's
 * version and each list's path, size and modification time, and read back (~20 ms) on later
 * starts. Without the lists, scrapes go unfiltered and a warning is logged once.
 */
export class AdBlocker {
  private readonly settings: AdBlockerSettings;
  private loading: Promise<AdFilter> | undefined;
  private signatureMemo: string | null | undefined;

  constructor(settings: AdBlockerSettings) {
    this.settings = settings;
  }

  /** The lists present, by full path. */
  private files(): { file: string; size: number; mtimeMs: number }[] {
    if (!this.settings.listsDir) return [];
    const out: { file: string; size: number; mtimeMs: number }[] = [];
    for (const name of FILTER_LISTS) {
      const file = path.join(this.settings.listsDir, name);
      try {
        const stat = fs.statSync(file);
        if (stat.isFile()) out.push({ file, size: stat.size, mtimeMs: stat.mtimeMs });
      } catch {
        // Missing: the others are used.
      }
    }
    return out;
  }

  /**
   * What the lists are, as a short hash (engine version, each list's path, size and time), or
   * null without lists: part of the scrape cache's key, so an answer filtered by other lists (or
   * by none) is not served for this one. Read once per process, as the engine is.
   */
  signature(): string | null {
    if (this.signatureMemo === undefined) {
      const files = this.files();
      this.signatureMemo =
        files.length === 0
          ? null
          : createHash('sha256')
              .update(JSON.stringify({ engine: ENGINE_VERSION, files }))
              .digest('hex')
              .slice(0, 16);
    }
    return this.signatureMemo;
  }

  /**
   * The filter, once loaded (waited for within `signal`). Without the lists it is empty, blocking
   * and hiding nothing: `blockAds` still deals with consent popups, which need no lists.
   */
  filter(signal: AbortSignal): Promise<AdFilter> {
    this.loading ??= this.load().catch((err: unknown) => {
      this.settings.warn('the ad filter lists could not be loaded: scrapes are not filtered', err);
      return new AdFilter(new FiltersEngine());
    });
    return untilAborted(this.loading, signal);
  }

  private async load(): Promise<AdFilter> {
    const files = this.files();
    const signature = this.signature();
    if (files.length === 0 || signature === null) {
      this.settings.warn(
        `no ad filter lists under ${this.settings.listsDir || '(QUIRE_FILTER_LISTS_DIR is empty)'} (Debian package webext-ublock-origin-chromium): blockAds blocks no ads, only consent popups`,
      );
      return new AdFilter(new FiltersEngine());
    }
    if (files.length < FILTER_LISTS.length)
      this.settings.warn(`only ${files.length} of the ${FILTER_LISTS.length} ad filter lists were found`);
    const cached = await this.readCache(signature);
    if (cached) return new AdFilter(cached);
    const bytes = await build(files.map((f) => f.file));
    const engine = FiltersEngine.deserialize(bytes);
    await this.writeCache(signature, bytes).catch((err: unknown) =>
      this.settings.warn(
        'the parsed ad filter lists could not be cached: the next start parses them again',
        err,
      ),
    );
    return new AdFilter(engine);
  }

  /** The cached engine when it was built from these very lists; a stale or damaged file is rebuilt. */
  private async readCache(signature: string): Promise<FiltersEngine | undefined> {
    let data: Buffer;
    try {
      data = await fs.promises.readFile(this.settings.cacheFile);
    } catch {
      return undefined;
    }
    const header = Buffer.from(`${signature}\n`);
    if (!data.subarray(0, header.length).equals(header)) return undefined;
    try {
      // Copied: the engine reads typed arrays out of the buffer, which must start 4-byte aligned.
      return FiltersEngine.deserialize(new Uint8Array(data.subarray(header.length)));
    } catch {
      return undefined;
    }
  }

  /** Written aside and renamed, so processes sharing the data folder never read half a file. */
  private async writeCache(signature: string, bytes: Uint8Array): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.settings.cacheFile), { recursive: true });
    const temporary = `${this.settings.cacheFile}.${process.pid}.tmp`;
    await fs.promises.writeFile(temporary, Buffer.concat([Buffer.from(`${signature}\n`), bytes]));
    await fs.promises.rename(temporary, this.settings.cacheFile);
  }
}

/** The lists parsed on a worker thread, as the engine's serialised bytes. */
function build(files: string[]): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./ad-filter-build.ts', import.meta.url), {
      workerData: { files },
      resourceLimits: { maxOldGenerationSizeMb: limits.adFilterBuildHeapMb },
    });
    worker.once('message', (bytes: Uint8Array) => resolve(bytes));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the filter list parser exited with code ${code}`)));
  });
}
