import { Frontier } from '../crawl/frontier.ts';
import { type PageLinks, pageLinks } from '../crawl/links.ts';
import { mapSite } from '../crawl/map-site.ts';
import { RobotsRules } from '../crawl/robots.ts';
import { type FetchResource, sitemapCandidates, sitemapUrls } from '../crawl/sitemaps.ts';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { ScrapeRequest } from '../options/scrape-options.ts';
import type { CallerLog } from '../pipeline/convert-to-answer.ts';
import type { Closable } from '../pipeline/deadline.ts';
import type { CreditHold, Credits } from '../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../quota/team-settings.ts';
import type { UploadBudget } from '../quota/upload-budget.ts';
import { fetchUrl } from '../scrape/fetch-url.ts';
import { type ScrapeDeps, scrapePage } from '../scrape/scrape-page.ts';
import { extractAnswer } from './extract-answer.ts';
import { type ExtractSpec, isWildcard } from './extract-request.ts';
import { type JobOptions, pageScrapes } from './job-requests.ts';
import type { JobRecord, JobStore, NewPage, PageRecord } from './job-store.ts';
import type { WebhookSpec } from './webhook-spec.ts';
import type { WebhookSender } from './webhooks.ts';

export interface JobRunnerDeps extends ScrapeDeps {
  jobs: JobStore;
  credits: Credits;
  uploads: UploadBudget;
  teams: TeamSettingsCache;
  webhooks: WebhookSender | undefined;
  log: CallerLog & { error(details: object, message: string): void };
  /** This process, as the store's leases name it. */
  owner: string;
  /** Embedded mode: this process is the store's only user, so leases left by its last run are its own. */
  soleProcess: boolean;
  /** Waits between pages (`delay`, Crawl-delay); tests pass one that returns at once and records. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** What a job keeps beside its record: where its screenshot URLs point. */
export interface StoredOptions extends JobOptions {
  base: string;
}

const ANSWER_HEAD = Buffer.from('{"success":true,"data":');

/** The data object of a scrape's answer, as the job keeps it: the bytes between the envelope's. */
export function documentOf(body: Buffer): Buffer {
  if (!body.subarray(0, ANSWER_HEAD.length).equals(ANSWER_HEAD) || body.at(-1) !== 0x7d)
    throw new Error('a scrape answer without its envelope');
  return body.subarray(ANSWER_HEAD.length, body.length - 1);
}

const iso = (ms: number) => new Date(ms).toISOString();

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A job's abort signal as the scrape's "client": the page stops when the job does. */
function closableOf(signal: AbortSignal): Closable {
  return {
    once: (_event, listener) => signal.addEventListener('abort', listener, { once: true }),
    off: (_event, listener) => signal.removeEventListener('abort', listener),
  };
}

/**
 * Drives crawls and batch scrapes: each job by one process at a time (the store's lease), its
 * pages through the scrape path (so through the same fetcher, team slots and conversion pool as
 * everyone's scrapes), its state in the store after every page. Any process runs one: a job whose
 * driver died is taken up by whichever process looks next, and carries on from the store.
 */
export class JobRunner {
  private readonly deps: JobRunnerDeps;
  /** The jobs this process drives: how to stop each, and its end (lease given back). */
  private readonly driving = new Map<string, { controller: AbortController; ended: Promise<void> }>();
  private poller: NodeJS.Timeout | undefined;
  private closed = false;
  private lastPurge = 0;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(deps: JobRunnerDeps) {
    this.deps = deps;
    this.sleep = deps.sleep ?? defaultSleep;
  }

  /** Look for jobs nobody drives now and then (and at once: an embedded restart resumes its own). */
  start(): void {
    void this.pickUp(this.deps.soleProcess);
    this.poller = setInterval(() => void this.pickUp(false), limits.jobPollMs);
    this.poller.unref();
  }

  /** Drive a job just made here, without waiting for the poll. */
  kick(id: string): void {
    void this.take(id);
  }

  /** Stop the job's pages at once, if this process drives it (others see the status on their next check). */
  stop(id: string): void {
    this.driving.get(id)?.controller.abort(new Error('the job was cancelled'));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poller);
    const driven = [...this.driving.values()];
    for (const { controller } of driven) controller.abort(new Error('Quire is shutting down'));
    await Promise.allSettled(driven.map((d) => d.ended));
  }

  private async pickUp(ownLeases: boolean): Promise<void> {
    try {
      const now = Date.now();
      if (now - this.lastPurge > limits.jobPollMs * 30) {
        this.lastPurge = now;
        await this.deps.jobs.purgeJobs(iso(now));
      }
      // A restarted embedded process finds its own leases from before; nobody else could hold them.
      const seen = ownLeases ? iso(now + limits.jobLeaseMs * 2) : iso(now);
      for (;;) {
        if (this.closed) return;
        const job = await this.deps.jobs.leaseJob(this.deps.owner, seen, iso(Date.now() + limits.jobLeaseMs));
        // Taking back its own leases, the store hands this process the job it just took again
        // (its fresh lease also ends before `seen`): that ends this round. Other jobs of the last
        // run are taken once their old leases end, within limits.jobLeaseMs.
        if (!job || this.driving.has(job.id)) return;
        this.drive(job);
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'jobs: looking for work failed');
    }
  }

  private async take(id: string): Promise<void> {
    try {
      const now = Date.now();
      const job = await this.deps.jobs.leaseJob(this.deps.owner, iso(now), iso(now + limits.jobLeaseMs), id);
      if (job) this.drive(job);
    } catch (err) {
      this.deps.log.warn({ err, job: id }, 'jobs: taking a job failed');
    }
  }

  private drive(job: JobRecord): void {
    if (this.closed || this.driving.has(job.id)) return;
    const controller = new AbortController();
    const renew = setInterval(() => {
      this.deps.jobs
        .renewLease(job.id, this.deps.owner, iso(Date.now() + limits.jobLeaseMs))
        .then((held) => {
          if (!held) controller.abort(new Error('the lease went to another process'));
        })
        .catch((err: unknown) => this.deps.log.warn({ err, job: job.id }, 'jobs: lease not renewed'));
    }, limits.jobLeaseMs / 3);
    renew.unref();
    const ended = new JobDrive(this.deps, job, controller.signal, this.sleep)
      .run()
      .catch((err: unknown) => this.deps.log.error({ err, job: job.id }, 'jobs: a job stopped on an error'))
      .finally(async () => {
        clearInterval(renew);
        this.driving.delete(job.id);
        await this.deps.jobs.releaseLease(job.id, this.deps.owner).catch(() => {});
      });
    this.driving.set(job.id, { controller, ended });
  }
}

/** One job driven to its end (or until its lease or the process goes). */
class JobDrive {
  private readonly deps: JobRunnerDeps;
  private job: JobRecord;
  private readonly signal: AbortSignal;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly options: StoredOptions;
  private readonly webhook: WebhookSpec | undefined;
  private frontier: Frontier | undefined;
  private outOfCredits = false;
  /** Made at the first page, inside its error handling (options stored by an older version may fail). */
  private scrapeOf: ((url: string) => ScrapeRequest) | undefined;

  constructor(
    deps: JobRunnerDeps,
    job: JobRecord,
    signal: AbortSignal,
    sleep: (ms: number, signal: AbortSignal) => Promise<void>,
  ) {
    this.deps = deps;
    this.job = job;
    this.signal = signal;
    this.sleep = sleep;
    this.options = JSON.parse(job.options) as StoredOptions;
    this.webhook = job.webhook ? (JSON.parse(job.webhook) as WebhookSpec) : undefined;
  }

  async run(): Promise<void> {
    const { jobs } = this.deps;
    // Pages a driver before this one had started: their results were never stored.
    await jobs.requeueActive(this.job.id);
    const extract = this.options.extract;
    if (extract && !this.job.kickoffDone) await this.expandWildcards(extract);
    const crawler = this.options.crawler;
    if (crawler) {
      // Re-read after kickoff: it stored the robots.txt the pages are checked against.
      if (!this.job.kickoffDone) this.job = (await this.kickoff()) ?? this.job;
      this.frontier = new Frontier(
        this.job.url!,
        crawler,
        this.job.robots ? RobotsRules.parse(this.robotsUrl(), this.job.robots) : RobotsRules.allowAll(),
      );
    }
    const delayS =
      crawler?.delay ??
      (crawler && !crawler.ignoreRobotsTxt ? this.frontier!.robots.crawlDelayS() : undefined);
    const concurrency = delayS
      ? 1
      : Math.min(limits.crawlMaxConcurrency, this.options.maxConcurrency ?? limits.crawlDefaultConcurrency);
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      if (this.signal.aborted) break;
      const fresh = await jobs.getJob(this.job.id);
      if (fresh?.status !== 'scraping') break;
      this.job = fresh;
      // An extract past its timeout reads no more pages; its answer merges those read.
      if (extract?.deadline && Date.now() >= Date.parse(extract.deadline)) await jobs.skipQueued(this.job.id);
      const free = this.outOfCredits ? 0 : concurrency - inFlight.size;
      const claimed = free > 0 ? await jobs.claimPages(this.job.id, free) : [];
      for (const page of claimed) {
        const run = this.runPage(page).finally(() => inFlight.delete(run));
        inFlight.add(run);
        if (delayS) await this.sleep(delayS * 1000, this.signal);
      }
      // The pages ended during the delay after them: the next is due now, not at the next poll.
      if (claimed.length > 0 && inFlight.size === 0) continue;
      if (inFlight.size === 0) {
        const counts = await jobs.pageCounts(this.job.id);
        if (counts.queued === 0 && counts.active === 0) {
          await this.finish('completed');
          return;
        }
        if (this.outOfCredits) {
          await jobs.skipQueued(this.job.id);
          continue;
        }
      }
      // A page finishing frees a slot; the poll notices a cancel made through another process.
      await Promise.race([...inFlight, this.sleep(limits.jobPollMs, this.signal)]);
    }
    await Promise.allSettled(inFlight);
    const after = await jobs.getJob(this.job.id);
    if (after?.status === 'cancelled') await this.finish('cancelled');
  }

  private robotsUrl(): string {
    return new URL('/robots.txt', this.job.url!).href;
  }

  /** The job's end: queued pages skipped, status and time set once, the completed event sent. */
  private async finish(status: 'completed' | 'cancelled'): Promise<void> {
    const { jobs } = this.deps;
    await jobs.skipQueued(this.job.id);
    if (status === 'completed' && this.options.extract) {
      const answer = await extractAnswer(jobs, this.job.id, this.options.extract);
      await jobs.updateJob(
        this.job.id,
        'result' in answer
          ? { status, completedAt: iso(Date.now()), result: JSON.stringify(answer.result) }
          : { status: 'failed', completedAt: iso(Date.now()), error: answer.error },
      );
    } else if (status === 'completed')
      await jobs.updateJob(this.job.id, { status, completedAt: iso(Date.now()) });
    await this.emit('completed', { success: true, data: '[]' });
    this.deps.log.info({ job: this.job.id, status }, 'job finished');
  }

  private async emit(
    event: 'started' | 'page' | 'completed',
    payload: { success: boolean; data: string; error?: string },
  ): Promise<void> {
    if (!this.webhook || !this.deps.webhooks) return;
    await this.deps.webhooks
      .emit({ id: this.job.id, kind: this.job.kind, webhook: this.webhook }, event, payload)
      .catch((err: unknown) =>
        this.deps.log.warn({ err, job: this.job.id }, 'jobs: webhook event not queued'),
      );
  }

  /** A GET through the scrape fetcher (address policy on every hop), for robots.txt and sitemaps. */
  private readonly fetchResource: FetchResource = async (url, signal) => {
    const hold = this.deps.uploads.open(this.job.team);
    try {
      const page = await fetchUrl(
        url,
        { headers: {}, acceptLanguage: undefined, skipTlsVerification: false },
        { policy: this.deps.policy, hold, signal, resolveAll: this.deps.resolveAll },
      );
      return { status: page.status, contentType: page.contentType, bytes: page.bytes };
    } catch {
      return undefined;
    } finally {
      hold.releaseAll();
    }
  };

  /**
   * Discovery from the start: robots.txt (kept with the job, so every process reads the same
   * rules), the seed, then the sitemaps' URLs, all at hop 0. Safe to run again after a crash:
   * the store queues each key once.
   */
  private async kickoff(): Promise<JobRecord | undefined> {
    const { jobs } = this.deps;
    const crawler = this.options.crawler!;
    const seed = this.job.url!;
    let robots = RobotsRules.allowAll();
    let robotsText: string | null = null;
    const answer = await this.fetchResource(this.robotsUrl(), this.signal);
    if (answer && answer.status >= 200 && answer.status < 300) {
      robotsText = answer.bytes.toString('utf8');
      robots = RobotsRules.parse(this.robotsUrl(), robotsText, answer.contentType);
    }
    if (!crawler.ignoreRobotsTxt) await jobs.updateJob(this.job.id, { robots: robotsText });
    const frontier = new Frontier(seed, crawler, crawler.ignoreRobotsTxt ? RobotsRules.allowAll() : robots);
    await jobs.enqueuePages(this.job.id, [frontier.seed(seed)], crawler.limit);
    await this.emit('started', { success: true, data: '[]' });
    if (crawler.sitemap !== 'skip') {
      const found = sitemapUrls(sitemapCandidates(seed, robots.sitemaps()), this.fetchResource, {
        maxSitemaps: limits.crawlSitemaps,
        maxUrls: crawler.limit * 4,
        signal: this.signal,
      });
      let batch: string[] = [];
      let queued = 1;
      const flush = async () => {
        const added = await jobs.enqueuePages(this.job.id, frontier.offer(batch, 0), crawler.limit);
        queued += added.filter((p) => p.state === 'queued').length;
        batch = [];
      };
      for await (const url of found) {
        batch.push(url);
        if (batch.length >= 500) await flush();
        if (queued >= crawler.limit) break;
      }
      await flush();
    }
    await jobs.updateJob(this.job.id, { kickoffDone: true });
    return jobs.getJob(this.job.id);
  }

  /**
   * An extract's `/*` URLs, each mapped (its sitemaps and links, ranked by the prompt's words) and
   * its first pages queued after the URLs given as they are. A site that cannot be mapped is
   * queued as its one page, so that its failure is the page's, named in the answer's warnings.
   */
  private async expandWildcards(spec: ExtractSpec): Promise<void> {
    const { jobs } = this.deps;
    for (const wildcard of spec.urls.filter(isWildcard)) {
      const url = wildcard.slice(0, -2) || wildcard;
      const hold = this.deps.uploads.open(this.job.team);
      let found: string[];
      try {
        const links = await mapSite(
          {
            url,
            search: spec.prompt?.slice(0, limits.mapSearchChars),
            sitemap: spec.map.ignoreSitemap ? 'skip' : 'include',
            includeSubdomains: spec.map.includeSubdomains,
            ignoreQueryParameters: true,
            limit: spec.map.limit,
            timeout: undefined,
            filterByPath: true,
            allowExternalLinks: spec.map.allowExternalLinks,
            headers: {},
          },
          { policy: this.deps.policy, hold, signal: this.signal, resolveAll: this.deps.resolveAll },
        );
        found = links.map((link) => link.url);
      } catch {
        found = [url];
      } finally {
        hold.releaseAll();
      }
      await jobs.enqueuePages(
        this.job.id,
        found.map((page) => ({ key: page, url: page, depth: 0 })),
        Number.POSITIVE_INFINITY,
      );
    }
    await jobs.updateJob(this.job.id, { kickoffDone: true });
  }

  /** Credits for one page, counting what the answer settles (a document's cost is known only then). */
  private async reserve(): Promise<{ hold: CreditHold; cost: () => number } | undefined> {
    const hold = await this.deps.credits.reserve({ team: this.job.team, keyId: this.job.keyId });
    if (!hold) return undefined;
    let cost = 0;
    return {
      hold: {
        settle: (c) => {
          cost = c;
          return hold.settle(c);
        },
        release: hold.release,
        extend: hold.extend,
        metered: hold.metered,
      },
      cost: () => cost,
    };
  }

  private async runPage(page: PageRecord): Promise<void> {
    const { jobs } = this.deps;
    const now = () => iso(Date.now());
    const credit = await this.reserve();
    if (!credit) {
      this.outOfCredits = true;
      await jobs.failPage(
        page.id,
        { code: 'INSUFFICIENT_CREDITS', message: 'The team ran out of credits; the job stopped here.' },
        now(),
      );
      return;
    }
    const hold = this.deps.uploads.open(this.job.team);
    try {
      this.scrapeOf ??= pageScrapes(this.options);
      const scrape = this.scrapeOf(page.url);
      // The job's zero data retention covers every page, whatever its scrape options say.
      const options = underZdrPolicy(
        this.job.zeroDataRetention ? { ...scrape.options, zeroDataRetention: true } : scrape.options,
        (await this.deps.teams.get(this.job.team)).zdr,
      );
      const outcome = await scrapePage(this.deps, {
        caller: { team: this.job.team, keyId: this.job.keyId, log: this.deps.log, background: true },
        scrape,
        options,
        hold,
        credit: credit.hold,
        base: this.options.base,
        client: closableOf(this.signal),
        useCache: this.job.kind === 'batch',
      });
      const document = documentOf(outcome.body);
      const found = this.frontier && outcome.page ? this.linksOf(outcome.page) : undefined;
      const refused = this.frontier && outcome.page ? this.follow(page, outcome.page) : undefined;
      if (refused) {
        await jobs.failPage(page.id, { code: 'CRAWL_URL_REFUSED', message: refused }, now());
      } else if (found && (await this.isCopy(page, found.canonical))) {
        // The page's canonical copy is (or will be) the crawl's document for it: not a second one.
        await jobs.failPage(
          page.id,
          { code: null, message: 'a copy of its canonical page', hidden: true },
          now(),
        );
      } else {
        await jobs.completePage(page.id, document, credit.cost(), now());
        await this.emit('page', { success: true, data: `[${document.toString('utf8')}]` });
      }
      if (found && outcome.page) await this.queueLinks(page, outcome.page, found);
    } catch (error) {
      // A full queue (the pool's, or the team's own depth) is a turn to wait, not the page's failure.
      if (error instanceof ApiError && error.status === 429 && !this.signal.aborted) {
        await jobs.requeueActive(this.job.id, page.id);
        await this.sleep(limits.jobPollMs, this.signal);
        return;
      }
      const stopped = this.signal.aborted;
      const code = error instanceof ApiError ? (error.code ?? null) : null;
      const message = error instanceof ApiError ? error.message : 'Quire failed on this page.';
      if (!(error instanceof ApiError) && !stopped)
        this.deps.log.error({ err: error, job: this.job.id }, 'jobs: a page failed on an error');
      await jobs.failPage(page.id, { code, message, hidden: stopped }, now());
    } finally {
      hold.releaseAll();
      await credit.hold.release();
    }
  }

  /**
   * Why a fetched page is not one of the crawl's (its final URL left the scope through a
   * redirect, or it is the seed and fails the include patterns), or undefined. A seed that
   * redirected to another host re-bases the crawl there, as upstream does.
   */
  private follow(page: PageRecord, fetched: { url: string }): string | undefined {
    const frontier = this.frontier!;
    const isSeed = page.depth === 0 && page.url === this.job.url;
    if (isSeed && new URL(fetched.url).host !== new URL(page.url).host) frontier.rebase(fetched.url);
    if (fetched.url !== page.url || isSeed) return frontier.refuse(fetched.url);
    return undefined;
  }

  /** The links and canonical URL of a fetched HTML page; undefined for anything else. */
  private linksOf(fetched: { url: string; contentType: string | undefined; bytes: Buffer }) {
    if (!/html|xml/i.test(fetched.contentType ?? 'text/html')) return undefined;
    return pageLinks(fetched.bytes.toString('utf8'), fetched.url);
  }

  /**
   * Whether the page names another page as its canonical copy that the crawl already holds: then
   * that one is the document. A canonical copy not yet seen is kept as skipped, so this page
   * stands for it and it is never fetched.
   */
  private async isCopy(page: PageRecord, canonical: string | undefined): Promise<boolean> {
    const frontier = this.frontier!;
    if (!canonical || frontier.refuse(canonical) !== undefined) return false;
    const key = frontier.key(canonical);
    if (key === page.key) return false;
    const added = await this.deps.jobs.enqueuePages(
      this.job.id,
      [{ key, url: canonical, depth: page.depth, state: 'skipped' }],
      Number.POSITIVE_INFINITY,
    );
    return added.length === 0;
  }

  private async queueLinks(page: PageRecord, fetched: { url: string }, found: PageLinks) {
    const frontier = this.frontier!;
    if (!frontier.follows(page.depth) || found.robotsNoFollow) return;
    const pages: NewPage[] = frontier.offer(found.links, page.depth + 1, fetched.url);
    if (pages.length > 0) await this.deps.jobs.enqueuePages(this.job.id, pages, this.options.crawler!.limit);
  }
}
