import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { limits } from '../limits.ts';
import type { ChangeTrackingSpec } from '../options/scrape-options.ts';
import type { Store } from '../store/store.ts';
import { type ChangeStatus, changeStatus, gitDiff, isRemoved } from './compare.ts';

const compress = promisify(zlib.brotliCompress);
const decompress = promisify(zlib.brotliDecompress);
/** Quality 5, as the scrape cache: near brotli's best on text, at a few ms per MB. */
const brotliParams = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };

/** The contract's changeTracking object (its `json` member belongs to json mode). */
export interface ChangeTracking {
  previousScrapeAt: string | null;
  changeStatus: ChangeStatus;
  visibility: 'visible' | 'hidden';
  diff?: string | null;
  /** json mode's: the values that changed (json-changes.ts), null when the page did not change. */
  json?: unknown;
}

/** One tracked scrape: whose, of which page, asking what, and what it found. */
export interface TrackedScrape {
  team: string;
  url: string;
  spec: ChangeTrackingSpec;
  markdown: string;
  statusCode: number;
}

/**
 * Change tracking: each tracked scrape is compared with the team's last tracked scrape of the
 * same URL under the same tag (kept in the store, compressed), then becomes the baseline for the
 * next, unless the page is gone (a 404 or 410 keeps the last content it had, so a page that
 * comes back is compared with it). Every page Quire fetches was asked for or found by a crawl's
 * discovery, so `visibility` is always `visible` (upstream's `hidden` marks pages re-queued from
 * a previous crawl's memory, which Quire's crawler has none of).
 */
export class ChangeTracker {
  private readonly store: Store;
  private readonly now: () => Date;

  /** `now`: when a scrape is dated, injected so that tests move it. */
  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  /** The comparison, and the Markdown compared with (for json mode's second look), if any. */
  async track(
    scrape: TrackedScrape,
  ): Promise<{ changeTracking: ChangeTracking; warning?: string; previous?: string }> {
    const tag = scrape.spec.tag ?? '';
    const baseline = await this.store.getChangeBaseline(scrape.team, scrape.url, tag);
    const previous = baseline && (await decompress(baseline.markdown)).toString('utf8');
    const status = changeStatus(previous, scrape.markdown, scrape.statusCode);
    const changeTracking: ChangeTracking = {
      previousScrapeAt: baseline?.scrapedAt ?? null,
      changeStatus: status,
      visibility: 'visible',
    };
    if (scrape.spec.modes.includes('git-diff'))
      changeTracking.diff = status === 'changed' ? gitDiff(previous!, scrape.markdown) : null;
    const compared = typeof previous === 'string' ? { previous } : {};
    if (isRemoved(scrape.statusCode)) return { changeTracking, ...compared };
    if (scrape.markdown.length > limits.changeBaselineChars)
      return {
        changeTracking,
        ...compared,
        warning: `The page's Markdown is over ${limits.changeBaselineChars} characters, too long to keep for change tracking: the next scrape will find no earlier one.`,
      };
    const at = this.now();
    await this.store.putChangeBaseline(
      {
        team: scrape.team,
        url: scrape.url,
        tag,
        markdown: await compress(Buffer.from(scrape.markdown), brotliParams),
        scrapedAt: at.toISOString(),
      },
      new Date(at.getTime() - limits.changeBaselineRetentionMs).toISOString(),
    );
    return { changeTracking, ...compared };
  }
}
