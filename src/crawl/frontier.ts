import type { CrawlerOptions } from '../jobs/job-requests.ts';
import type { NewPage } from '../jobs/job-store.ts';
import { limits } from '../limits.ts';
import type { RobotsRules } from './robots.ts';
import { CrawlScope, isTrapLike, VariantBudget } from './scope.ts';
import { type KeyOptions, pageKey } from './url-key.ts';

/**
 * One crawl's rules for what it queues: scope (paths, hosts), robots.txt, traps, and the dedupe
 * key. It remembers the keys it has offered, so a link seen on every page costs one set lookup,
 * not a store write; the store's unique key is what makes "once" hold across processes.
 */
export class Frontier {
  private scope: CrawlScope;
  readonly robots: RobotsRules;
  private readonly options: CrawlerOptions;
  private readonly keyOptions: KeyOptions;
  private readonly offered = new Set<string>();
  private readonly variants = new VariantBudget(limits.crawlVariantsPerPattern);

  constructor(seed: string, options: CrawlerOptions, robots: RobotsRules) {
    this.options = options;
    this.scope = new CrawlScope(seed, options);
    this.robots = robots;
    this.keyOptions = {
      deduplicateSimilarURLs: options.deduplicateSimilarURLs,
      ignoreQueryParameters: options.ignoreQueryParameters,
    };
  }

  key(url: string): string {
    return pageKey(url, this.keyOptions);
  }

  /** Why `url` (reached from `from`, or from the start) is not crawled; undefined when it is. */
  refuse(url: string, from?: string): string | undefined {
    return this.scope.refuse(url, from);
  }

  /** A seed that redirected to another host: the crawl goes on from there (upstream re-bases too). */
  rebase(seed: string): void {
    this.scope = this.scope.rebase(seed);
  }

  /** Whether links found on a page at `depth` are followed. */
  follows(depth: number): boolean {
    const max = this.options.maxDiscoveryDepth;
    return this.options.sitemap !== 'only' && (max === undefined || depth < max);
  }

  /**
   * The pages worth offering the store from `urls` found at `depth` (from page `from`, or a
   * sitemap): in scope, not trap-shaped, not offered before; robots.txt's refusals kept as
   * blocked pages, which the errors list.
   */
  offer(urls: Iterable<string>, depth: number, from?: string): NewPage[] {
    const pages: NewPage[] = [];
    for (const url of urls) {
      if (this.scope.refuse(url, from) !== undefined || isTrapLike(url)) continue;
      const key = this.key(url);
      if (this.offered.has(key)) continue;
      this.offered.add(key);
      if (!this.variants.admit(url)) continue;
      const blocked = !this.options.ignoreRobotsTxt && !this.robots.allows(url);
      pages.push({ key, url, depth, ...(blocked ? { state: 'blocked' as const } : {}) });
    }
    return pages;
  }

  /** The seed: always fetched (upstream fetches it whatever robots.txt says, then checks its links). */
  seed(url: string): NewPage {
    const key = this.key(url);
    this.offered.add(key);
    return { key, url, depth: 0 };
  }
}
