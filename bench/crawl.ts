import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { packageVersion, repoRoot } from './corpus.ts';
import { dash, fmtMb, fmtMs, fmtRatio, table } from './format.ts';
import { createTeamKey, quireSpec, startServer, stopServer } from './load.ts';
import { postParse } from './post-parse.ts';
import { processTree, readStatusKb, treeCpuSeconds } from './proc.ts';
import { max, median, nowMs, percentile, ratio, supportedPercentiles } from './stats.ts';

// Crawls (issue 33): Quire's POST /v2/crawl over a generated static site on loopback against
// Crawlee's CheerioCrawler doing the same work per page (fetch, links, turndown to Markdown), at
// two site sizes, for pages per second, CPU per page and peak memory (whether it grows with the
// site); POST /v2/map of a 50,000-URL sitemap index against a plain fetch loop over the same
// files; and a second team's small parses while one team's large crawl runs, against the same
// parses with no crawl. The sites are served by bench/crawl-site.ts, Crawlee runs in
// bench/peers/crawlee-crawl.ts: each in a process of its own.

const apiKey = 'bench-key';
/** A page of the size a small parse has: a heading, a few paragraphs, a list, a link. */
const smallPage =
  '<html><head><title>Small</title></head><body><article><h1>A small page</h1>' +
  '<p>Quire converts documents to Markdown. '.repeat(20) +
  '</p><ul><li>one</li><li>two</li><li>three</li></ul><p><a href="/next">next</a></p></article></body></html>';
/** How often the bench asks a crawl's status (with ?limit=1, so the answer is small). */
const pollMs = 250;
/** A bound on one crawl, for a loaded machine: past it the crawl is cancelled and reported. */
const crawlDeadlineS = 3_600;

export interface CrawlBenchOptions {
  /** Site sizes crawled by both tools, the smaller first: N = limit = pages on the site. */
  pages: readonly number[];
  /** Pages each tool fetches at once. */
  concurrency: number;
  /** URLs in each of the map's 5 sitemaps. */
  sitemapUrls: number;
  /** Maps timed (and floor loops, interleaved). */
  mapRuns: number;
  /** Small parses in the unloaded phase of the fairness part; the loaded phase lasts the crawl. */
  samples: number;
  /** One small parse starts this long after the one before started (or when it ends, if later). */
  paceMs: number;
  /** Pages of the fairness part's crawl. */
  fairnessPages: number;
}

/**
 * `crawlee`: without maxRequestsPerCrawl (the site has N pages, so it stops there too);
 * `crawlee-limit`: with `maxRequestsPerCrawl: N`, which in Crawlee 3.18 makes enqueueLinks add
 * links in chunks of the budget left, a second apart, once that budget is small (measured apart).
 */
export type CrawlTool = 'quire' | 'crawlee' | 'crawlee-limit';

export interface CrawlRun {
  tool: CrawlTool;
  pages: number;
  /** Documents the crawl produced (Quire: read back from its status pages; Crawlee: handled pages). */
  documents: number;
  /** Pages that failed (Quire: its errors list; Crawlee: failedRequestHandler). */
  failed: number;
  /** Requests the site answered during the run (robots.txt and 404s included). */
  siteRequests: number;
  seconds: number;
  cpuS: number | null;
  /** Summed VmRSS of the process tree, sampled every 100 ms: just before the crawl, and the peak during it. */
  idleRssKb: number | null;
  peakRssKb: number | null;
  /** The peak of the top process alone (Quire's server process, where the crawl is driven). */
  peakOwnRssKb: number | null;
  /** Processes in the tree at the peak's sample (Quire: server, conversion workers, spares). */
  processes: number;
  error: string | null;
}

export interface MapResult {
  sitemapUrls: number;
  quireMs: number[];
  floorMs: number[];
  /** Links in Quire's answer (the last run's). */
  links: number;
  /** `<loc>`s in the files the floor loop read, and their bytes. */
  floorLocs: number;
  floorBytes: number;
  idleRssKb: number | null;
  peakRssKb: number | null;
  /** The server process alone, before and at its peak. */
  idleOwnRssKb: number | null;
  peakOwnRssKb: number | null;
  error: string | null;
}

export interface FairnessResult {
  pages: number;
  unloadedMs: number[];
  loadedMs: number[];
  unloadedStatuses: Record<string, number>;
  loadedStatuses: Record<string, number>;
  /** The crawl that ran meanwhile. */
  crawlSeconds: number;
  crawlDocuments: number;
  error: string | null;
}

export interface CrawlBenchResult {
  options: CrawlBenchOptions;
  workers: number;
  versions: Record<string, string>;
  runs: CrawlRun[];
  map: MapResult;
  fairness: FairnessResult;
}

// ------------------------------------------------------------------ processes

/** Peak of the summed VmRSS of a process and its descendants, sampled every 100 ms. */
class TreeSampler {
  peakKb: number | null = null;
  /** The top process's own peak. */
  peakOwnKb: number | null = null;
  processes = 0;
  private readonly pid: number;
  private readonly timer: NodeJS.Timeout;
  constructor(pid: number) {
    this.pid = pid;
    this.timer = setInterval(() => this.sample(), 100);
    this.sample();
  }
  sample(): void {
    const now = treeRssKb(this.pid);
    if (now === null) return;
    this.peakOwnKb = Math.max(this.peakOwnKb ?? 0, readStatusKb(this.pid, 'VmRSS') ?? 0);
    if (now.kb > (this.peakKb ?? 0)) {
      this.peakKb = now.kb;
      this.processes = now.processes;
    }
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

function treeRssKb(pid: number): { kb: number; processes: number } | null {
  const own = readStatusKb(pid, 'VmRSS');
  if (own === null) return null;
  const others = processTree(pid).slice(1);
  return {
    kb: others.reduce((sum, p) => sum + (readStatusKb(p, 'VmRSS') ?? 0), own),
    processes: others.length + 1,
  };
}

/** Children of this bench, killed if it exits early. */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

interface Site {
  base: string;
  stats(): Promise<{ requests: number; pages: number }>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** bench/crawl-site.ts in its own process, with `env` (QUIRE_SITE_MODE, ...). */
async function startSite(env: Record<string, string>): Promise<Site> {
  const child = track(
    spawn(process.execPath, [path.join(repoRoot, 'bench/crawl-site.ts')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(Number(line.split(' ')[1])));
    child.once('exit', (code) => reject(new Error(`the bench site exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    stats: async () => (await (await fetch(`${base}/__stats`)).json()) as { requests: number; pages: number },
    reset: async () => {
      await (await fetch(`${base}/__reset`)).arrayBuffer();
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

type Server = Awaited<ReturnType<typeof startServer>>;

/** Quire on its embedded defaults (a worker per core, spares), allowed to fetch loopback. */
function startQuire(dataDir: string): Promise<Server> {
  // A bound for a loaded machine, not a speed claim.
  return startServer(quireSpec(dataDir, apiKey, { QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1' }), 120_000);
}

async function api(
  server: Server,
  method: string,
  at: string,
  key: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(new URL(at, server.base), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(600_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${at}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

interface CrawlStatus {
  status: string;
  completed: number;
  total: number;
  next?: string;
  data: { markdown?: string; metadata?: { sourceURL?: string } }[];
}

/** POST /v2/crawl as the bench asks it: the whole site, no sitemap, markdown only, no delay. */
async function startCrawl(server: Server, key: string, site: Site, pages: number, concurrency: number) {
  const started = (await api(server, 'POST', '/v2/crawl', key, {
    url: `${site.base}/`,
    limit: pages,
    sitemap: 'skip',
    maxConcurrency: concurrency,
    scrapeOptions: { formats: ['markdown'] },
  })) as { id: string };
  return started.id;
}

/** Polls the status (one document per answer) until the crawl is no longer scraping; its last status. */
async function awaitCrawl(
  server: Server,
  key: string,
  id: string,
  log: (m: string) => void,
): Promise<CrawlStatus> {
  const t0 = nowMs();
  let lastLog = t0;
  for (;;) {
    const status = (await api(server, 'GET', `/v2/crawl/${id}?limit=1`, key)) as CrawlStatus;
    if (status.status !== 'scraping') return status;
    if (nowMs() - t0 > crawlDeadlineS * 1000) {
      await api(server, 'DELETE', `/v2/crawl/${id}`, key).catch(() => {});
      throw new Error(
        `the crawl had not finished after ${crawlDeadlineS} s (${status.completed} pages done)`,
      );
    }
    if (nowMs() - lastLog > 30_000) {
      lastLog = nowMs();
      log(`    ${status.completed}/${status.total} pages after ${((nowMs() - t0) / 1000).toFixed(0)} s`);
    }
    await sleep(pollMs);
  }
}

/** The crawl's documents read back page by page (each with Markdown, each URL once), and its failed pages. */
async function countDocuments(
  server: Server,
  key: string,
  id: string,
): Promise<{ documents: number; failed: number }> {
  let at: string | undefined = `/v2/crawl/${id}?limit=1000`;
  const urls = new Set<string>();
  let documents = 0;
  while (at) {
    const page = (await api(server, 'GET', at, key)) as CrawlStatus;
    for (const d of page.data) {
      // Every page has an h1: a document without its heading is not the page converted.
      if (!d.markdown?.includes('# ')) continue;
      documents++;
      if (d.metadata?.sourceURL) urls.add(d.metadata.sourceURL);
    }
    at = page.next;
  }
  const errors = (await api(server, 'GET', `/v2/crawl/${id}/errors`, key)) as { errors: unknown[] };
  if (urls.size !== documents) throw new Error(`${documents} documents but ${urls.size} distinct URLs`);
  return { documents, failed: errors.errors.length };
}

// ------------------------------------------------------------------ part 1: throughput and memory

/** A run of `tool` over `pages` pages with nothing measured yet. */
function newRun(tool: CrawlTool, pages: number): CrawlRun {
  return {
    tool,
    pages,
    documents: 0,
    failed: 0,
    siteRequests: 0,
    seconds: 0,
    cpuS: null,
    idleRssKb: null,
    peakRssKb: null,
    peakOwnRssKb: null,
    processes: 0,
    error: null,
  };
}

async function quireCrawl(
  site: Site,
  pages: number,
  concurrency: number,
  log: (m: string) => void,
): Promise<CrawlRun> {
  const run = newRun('quire', pages);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-crawl-'));
  let server: Server | undefined;
  try {
    server = await startQuire(dataDir);
    const pid = server.child.pid!;
    // One scrape first, so that the crawl does not pay for the first conversion's start-up.
    await api(server, 'POST', '/v2/scrape', apiKey, { url: `${site.base}/`, formats: ['markdown'] });
    await sleep(1_000);
    await site.reset();
    run.idleRssKb = treeRssKb(pid)?.kb ?? null;
    const sampler = new TreeSampler(pid);
    const cpu0 = treeCpuSeconds(pid);
    const t0 = nowMs();
    let id: string;
    try {
      id = await startCrawl(server, apiKey, site, pages, concurrency);
      const last = await awaitCrawl(server, apiKey, id, log);
      run.seconds = (nowMs() - t0) / 1000;
      const cpu1 = treeCpuSeconds(pid);
      run.cpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
      sampler.sample();
      if (last.status !== 'completed') run.error = `the crawl ended ${last.status}`;
    } finally {
      sampler.stop();
      run.peakRssKb = sampler.peakKb;
      run.peakOwnRssKb = sampler.peakOwnKb;
      run.processes = sampler.processes;
    }
    run.siteRequests = (await site.stats()).requests;
    Object.assign(run, await countDocuments(server, apiKey, id));
  } catch (error) {
    run.error = `${(error as Error).message}${server ? `; server log: ${server.tail().slice(-600)}` : ''}`;
  } finally {
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return run;
}

async function crawleeCrawl(
  site: Site,
  pages: number,
  concurrency: number,
  limited: boolean,
): Promise<CrawlRun> {
  const run = newRun(limited ? 'crawlee-limit' : 'crawlee', pages);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-crawlee-'));
  await site.reset();
  const child = track(
    spawn(process.execPath, [path.join(repoRoot, 'bench/peers/crawlee-crawl.ts')], {
      env: {
        ...process.env,
        CRAWL_URL: `${site.base}/`,
        CRAWL_MAX_REQUESTS: limited ? String(pages) : '',
        CRAWL_CONCURRENCY: String(concurrency),
        CRAWL_DIR: dir,
        CRAWLEE_STORAGE_DIR: dir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const sampler = new TreeSampler(child.pid!);
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    child.kill('SIGKILL');
  }, crawlDeadlineS * 1000);
  try {
    const lines = readline.createInterface({ input: child.stdout! });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let report: string | undefined;
    for await (const line of lines) {
      if (line === 'ready') run.idleRssKb = treeRssKb(child.pid!)?.kb ?? null;
      else if (line.startsWith('{')) report = line;
    }
    const code = await exited;
    if (late) throw new Error(`the crawl had not finished after ${crawlDeadlineS} s, so it was stopped`);
    if (!report) throw new Error(`Crawlee exited with ${code} without a report: ${stderr.trim()}`);
    const r = JSON.parse(report) as { documents: number; failed: number; seconds: number; cpuS: number };
    run.documents = r.documents;
    run.failed = r.failed;
    run.seconds = r.seconds;
    run.cpuS = r.cpuS;
    run.siteRequests = (await site.stats()).requests;
  } catch (error) {
    run.error = (error as Error).message;
  } finally {
    clearTimeout(deadline);
    sampler.stop();
    run.peakRssKb = sampler.peakKb;
    run.peakOwnRssKb = sampler.peakOwnKb;
    run.processes = sampler.processes;
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return run;
}

// ------------------------------------------------------------------ part 2: map of a big sitemap

/** The floor: the 6 files fetched one after another and read whole, from this process. */
async function fetchLoop(base: string): Promise<{ ms: number; bytes: number; locs: number }> {
  const t0 = nowMs();
  const index = await (await fetch(`${base}/sitemap.xml`)).text();
  const texts = [index];
  for (const m of index.matchAll(/<loc>([^<]+)<\/loc>/g)) texts.push(await (await fetch(m[1]!)).text());
  const ms = nowMs() - t0;
  return {
    ms,
    bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0),
    locs: texts.reduce((n, t) => n + (t.match(/<loc>/g)?.length ?? 0), 0) - (texts.length - 1),
  };
}

async function runMap(sitemapUrls: number, runs: number, log: (m: string) => void): Promise<MapResult> {
  const result: MapResult = {
    sitemapUrls,
    quireMs: [],
    floorMs: [],
    links: 0,
    floorLocs: 0,
    floorBytes: 0,
    idleRssKb: null,
    peakRssKb: null,
    idleOwnRssKb: null,
    peakOwnRssKb: null,
    error: null,
  };
  const site = await startSite({ QUIRE_SITE_MODE: 'map', QUIRE_SITE_SITEMAP_URLS: String(sitemapUrls) });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-map-'));
  let server: Server | undefined;
  try {
    server = await startQuire(dataDir);
    const pid = server.child.pid!;
    // The site builds each sitemap on its first request: not part of either side's time.
    await fetchLoop(site.base);
    result.idleRssKb = treeRssKb(pid)?.kb ?? null;
    result.idleOwnRssKb = readStatusKb(pid, 'VmRSS');
    const sampler = new TreeSampler(pid);
    try {
      for (let i = 0; i < runs; i++) {
        const t0 = nowMs();
        const res = await fetch(`${server.base}/v2/map`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${site.base}/`, limit: 100_000 }),
          signal: AbortSignal.timeout(600_000),
        });
        const text = await res.text();
        result.quireMs.push(nowMs() - t0);
        if (!res.ok) throw new Error(`POST /v2/map: ${res.status} ${text.slice(0, 300)}`);
        result.links = (JSON.parse(text) as { links: unknown[] }).links.length;
        const floor = await fetchLoop(site.base);
        result.floorMs.push(floor.ms);
        result.floorLocs = floor.locs;
        result.floorBytes = floor.bytes;
        log(
          `  map ${i + 1}: Quire ${fmtMs(result.quireMs.at(-1))} ms (${result.links} links), fetch loop ${fmtMs(floor.ms)} ms`,
        );
      }
    } finally {
      sampler.stop();
      result.peakRssKb = sampler.peakKb;
      result.peakOwnRssKb = sampler.peakOwnKb;
    }
  } catch (error) {
    result.error = `${(error as Error).message}${server ? `; server log: ${server.tail().slice(-600)}` : ''}`;
  } finally {
    if (server) await stopServer(server);
    await site.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return result;
}

// ------------------------------------------------------------------ part 3: fairness

async function runFairness(opts: CrawlBenchOptions, log: (m: string) => void): Promise<FairnessResult> {
  const result: FairnessResult = {
    pages: opts.fairnessPages,
    unloadedMs: [],
    loadedMs: [],
    unloadedStatuses: {},
    loadedStatuses: {},
    crawlSeconds: 0,
    crawlDocuments: 0,
    error: null,
  };
  const site = await startSite({ QUIRE_SITE_MODE: 'crawl', QUIRE_SITE_PAGES: String(opts.fairnessPages) });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-crawl-fair-'));
  let server: Server | undefined;
  try {
    server = await startQuire(dataDir);
    const quire = server;
    const smallKey = await createTeamKey(dataDir, 'small');
    const small = () =>
      postParse(quire.base, smallKey, Buffer.from(smallPage), 'small.html', { formats: ['markdown'] });
    for (let i = 0; i < 20; i++) await small();
    // Paced, one at a time, until `done`.
    const measure = async (into: number[], statuses: Record<string, number>, done: () => boolean) => {
      while (!done()) {
        const t0 = nowMs();
        const status = await small().catch(() => 0);
        into.push(nowMs() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
        await sleep(Math.max(0, opts.paceMs - (nowMs() - t0)));
      }
    };
    await measure(result.unloadedMs, result.unloadedStatuses, () => result.unloadedMs.length >= opts.samples);
    log(
      `  unloaded: ${result.unloadedMs.length} small parses, p50 ${fmtMs(percentile(result.unloadedMs, 50))} ms, p99 ${fmtMs(percentile(result.unloadedMs, 99))} ms`,
    );
    const t0 = nowMs();
    const id = await startCrawl(quire, apiKey, site, opts.fairnessPages, opts.concurrency);
    let crawling = true;
    const crawl = awaitCrawl(quire, apiKey, id, log).finally(() => {
      crawling = false;
    });
    // Let the crawl take the workers before measuring.
    await sleep(2_000);
    await measure(result.loadedMs, result.loadedStatuses, () => !crawling);
    const last = await crawl;
    result.crawlSeconds = (nowMs() - t0) / 1000;
    result.crawlDocuments = last.completed;
    if (last.status !== 'completed') result.error = `the crawl ended ${last.status}`;
    log(
      `  during the crawl: ${result.loadedMs.length} small parses, p50 ${fmtMs(percentile(result.loadedMs, 50))} ms, p99 ${fmtMs(percentile(result.loadedMs, 99))} ms`,
    );
  } catch (error) {
    result.error = `${(error as Error).message}${server ? `; server log: ${server.tail().slice(-600)}` : ''}`;
  } finally {
    if (server) await stopServer(server);
    await site.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return result;
}

// ------------------------------------------------------------------ the section

export async function runCrawlBench(
  opts: CrawlBenchOptions,
  log: (m: string) => void,
): Promise<CrawlBenchResult> {
  const runs: CrawlRun[] = [];
  for (const pages of opts.pages) {
    const site = await startSite({ QUIRE_SITE_MODE: 'crawl', QUIRE_SITE_PAGES: String(pages) });
    try {
      log(`crawl: Quire, ${pages} pages, ${opts.concurrency} at once`);
      const quire = await quireCrawl(site, pages, opts.concurrency, log);
      log(`  ${summary(quire)}`);
      runs.push(quire);
      for (const limited of [false, true]) {
        log(
          `crawl: Crawlee CheerioCrawler, ${pages} pages, ${opts.concurrency} at once${limited ? ', maxRequestsPerCrawl' : ''}`,
        );
        const crawlee = await crawleeCrawl(site, pages, opts.concurrency, limited);
        log(`  ${summary(crawlee)}`);
        runs.push(crawlee);
      }
    } finally {
      await site.stop();
    }
  }
  log(`map: a sitemap index of 5 × ${opts.sitemapUrls} URLs`);
  const map = await runMap(opts.sitemapUrls, opts.mapRuns, log);
  log(`fairness: small parses of team "small" while team A crawls ${opts.fairnessPages} pages`);
  const fairness = await runFairness(opts, log);
  return {
    options: opts,
    workers: os.availableParallelism(),
    versions: Object.fromEntries(['@crawlee/cheerio', 'turndown'].map((n) => [n, packageVersion(n)])),
    runs,
    map,
    fairness,
  };
}

function summary(r: CrawlRun): string {
  if (r.error) return `error: ${r.error.slice(0, 400)}`;
  return `${r.documents} documents, ${r.failed} failed, ${(r.documents / r.seconds).toFixed(1)} pages/s, ${fmtMs(cpuMsPerPage(r))} CPU ms/page, peak RSS ${fmtMb(r.peakRssKb)} MB`;
}

const pagesPerS = (r: CrawlRun | undefined) =>
  r && !r.error && r.seconds > 0 ? r.documents / r.seconds : null;
const cpuMsPerPage = (r: CrawlRun | undefined) =>
  r && r.cpuS !== null && r.documents > 0 ? (r.cpuS * 1000) / r.documents : null;

/** How a run is named in the tables. */
const runLabel: Record<CrawlTool, string> = {
  quire: 'Quire POST /v2/crawl',
  crawlee: 'Crawlee CheerioCrawler',
  'crawlee-limit': 'Crawlee CheerioCrawler, maxRequestsPerCrawl: N',
};

export function crawlSection(r: CrawlBenchResult): string[] {
  const { options: o } = r;
  const run = (tool: CrawlTool, pages: number) => r.runs.find((x) => x.tool === tool && x.pages === pages);
  const sizes = o.pages;
  const rate = (x: number | null) => (x === null ? dash : x.toFixed(1));
  const rows = r.runs.map((x) => [
    runLabel[x.tool],
    String(x.pages),
    `${x.documents} (${x.failed})`,
    String(x.siteRequests),
    x.seconds > 0 ? x.seconds.toFixed(1) : dash,
    rate(pagesPerS(x)),
    fmtMs(cpuMsPerPage(x)),
    fmtMb(x.peakRssKb),
    fmtMb(x.idleRssKb),
    x.peakRssKb !== null && x.idleRssKb !== null ? fmtMb(x.peakRssKb - x.idleRssKb) : dash,
    fmtMb(x.peakOwnRssKb),
    String(x.processes),
  ]);
  const ratioRows = sizes.map((n) => {
    const q = run('quire', n);
    const c = run('crawlee', n);
    return [
      String(n),
      fmtRatio(ratio(pagesPerS(q), pagesPerS(c))),
      fmtRatio(ratio(cpuMsPerPage(q), cpuMsPerPage(c))),
      fmtRatio(ratio(q?.peakRssKb, c?.peakRssKb)),
      fmtRatio(ratio(pagesPerS(q), pagesPerS(run('crawlee-limit', n)))),
    ];
  });
  const [small, large] = [sizes[0]!, sizes.at(-1)!];
  const growth = (tool: CrawlTool) => ratio(run(tool, large)?.peakRssKb, run(tool, small)?.peakRssKb);
  const errors = r.runs
    .filter((x) => x.error)
    .map((x) => `- ${runLabel[x.tool]}, N = ${x.pages}: ${x.error}`);

  const m = r.map;
  const mapRows = [
    [
      `time (ms), median of ${m.quireMs.length}`,
      fmtMs(median(m.quireMs)),
      fmtMs(median(m.floorMs)),
      fmtRatio(ratio(median(m.quireMs), median(m.floorMs))),
    ],
    ['time (ms), slowest', fmtMs(max(m.quireMs)), fmtMs(max(m.floorMs)), ''],
    [
      'URLs',
      `${m.links} links answered`,
      `${m.floorLocs} page <loc>s in ${fmtMb(m.floorBytes / 1024)} MB read`,
      '',
    ],
    ['Quire peak RSS during the maps, all processes (MB)', fmtMb(m.peakRssKb), dash, ''],
    ['Quire RSS before, all processes (MB)', fmtMb(m.idleRssKb), dash, ''],
    ['Quire peak RSS during the maps, server process (MB)', fmtMb(m.peakOwnRssKb), dash, ''],
    ['Quire RSS before, server process (MB)', fmtMb(m.idleOwnRssKb), dash, ''],
  ];

  const f = r.fairness;
  const shown = supportedPercentiles(Math.min(f.unloadedMs.length, f.loadedMs.length), [50, 99]);
  const statuses = (s: Record<string, number>) =>
    Object.entries(s)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ') || dash;
  const fairRows = [
    ...shown.flatMap((q) => [
      [
        `small parse p${q} (ms)`,
        fmtMs(percentile(f.unloadedMs, q)),
        fmtMs(percentile(f.loadedMs, q)),
        fmtRatio(ratio(percentile(f.loadedMs, q), percentile(f.unloadedMs, q))),
      ],
    ]),
    ['small parse max (ms)', fmtMs(max(f.unloadedMs)), fmtMs(max(f.loadedMs)), ''],
    ['small parses measured (n)', String(f.unloadedMs.length), String(f.loadedMs.length), ''],
    ['small parses by status', statuses(f.unloadedStatuses), statuses(f.loadedStatuses), ''],
    [
      "team A's crawl",
      dash,
      `${f.crawlDocuments} pages in ${f.crawlSeconds.toFixed(0)} s (${(f.crawlDocuments / Math.max(1e-3, f.crawlSeconds)).toFixed(1)} pages/s)`,
      '',
    ],
  ];

  return [
    '## Crawls and map',
    '',
    `A generated static site on loopback (bench/crawl-site.ts, its own process, seeded): N pages of 16-30 KB ` +
      '(header and nav of ~20 links, an article of 3-5 sections of paragraphs with inline links, a list, a table, an ' +
      'aside of related links, a footer with two external links), each page linking to the next so that all are ' +
      'reachable from `/`; no sitemap, robots.txt 404. Paths are words and letters, no digits. Both tools crawl it ' +
      `whole from \`/\`, ${o.concurrency} pages at a time, no delay, and each page becomes Markdown. ` +
      `**Quire**: a server process on its embedded defaults (${r.workers} conversion workers, one per core, and its ` +
      'idle spares), `POST /v2/crawl` with `limit: N`, `sitemap: "skip"`, ' +
      `\`maxConcurrency: ${o.concurrency}\`, \`scrapeOptions.formats: ["markdown"]\` (so its default ` +
      '`onlyMainContent`: the nav, aside and footer are dropped), timed from the POST to the status poll ' +
      `(every ${pollMs} ms, \`?limit=1\`) that reads \`completed\`; its documents are then read back and counted; ` +
      'one scrape before, unmeasured. CPU: user + system of the server and every descendant from /proc (ended ' +
      "processes through their parent's cutime/cstime), before and after. " +
      `**Crawlee** ${r.versions['@crawlee/cheerio']} \`CheerioCrawler\` in a child process of its own ` +
      `(bench/peers/crawlee-crawl.ts): min = max concurrency ${o.concurrency}, ` +
      '`enqueueLinks({ strategy: "same-hostname" })`, the body turned into Markdown by turndown ' +
      `${r.versions.turndown} (scripts and styles removed), each document appended to a JSON-lines file; storage in ` +
      "memory (not persisted) under a temporary folder; timed around `crawler.run()`, CPU from that process's " +
      '`process.cpuUsage()` (and any children it reaped). It runs twice: without `maxRequestsPerCrawl` (the site ' +
      'has N pages, so it stops there too; the ratios use this run) and with `maxRequestsPerCrawl: N`, which in ' +
      'this version makes `enqueueLinks` add a page’s links in chunks of the budget left, waiting 1 s between ' +
      'chunks, once that budget is small: most of its wall time there is those waits. RSS: VmRSS summed over the ' +
      'process tree (Quire: server, workers and spares; Crawlee: its process), sampled every 100 ms.',
    '',
    table(
      [
        'run',
        'N',
        'documents (failed)',
        'site requests',
        'wall s',
        'pages/s (wall)',
        'CPU ms/page',
        'peak RSS (MB)',
        'RSS before (MB)',
        'peak − before (MB)',
        'peak RSS, top process alone (MB)',
        'processes',
      ],
      rows,
    ),
    '',
    'Quire against Crawlee (without maxRequestsPerCrawl) at the same N; below 1× Quire is slower, uses less CPU per ' +
      'page or less memory:',
    '',
    table(
      [
        'N',
        'pages/s, Quire / Crawlee',
        'CPU ms/page, Quire / Crawlee',
        'peak RSS, Quire / Crawlee',
        'pages/s, Quire / Crawlee with maxRequestsPerCrawl',
      ],
      ratioRows,
    ),
    '',
    `Memory as the site grows, peak RSS at N = ${large} / peak RSS at N = ${small} (goal for Quire: ≤ 1.2×, memory that ` +
      `does not grow with the site): Quire ${fmtRatio(growth('quire'))}; Crawlee ${fmtRatio(growth('crawlee'))} ` +
      `(with maxRequestsPerCrawl ${fmtRatio(growth('crawlee-limit'))}).`,
    '',
    ...(errors.length > 0 ? ['Errors:', '', ...errors, ''] : []),
    `### Map of a ${(5 * m.sitemapUrls).toLocaleString('en')}-URL sitemap`,
    '',
    `\`/sitemap.xml\` on loopback is an index of 5 sitemaps of ${m.sitemapUrls.toLocaleString('en')} URLs each. ` +
      '**Quire**: `POST /v2/map` with `limit: 100000` from the site’s `/` (it also asks robots.txt, a 404, and reads ' +
      'the start page’s links), timed to the last byte of its answer. **Peer, the floor**: the same 6 files ' +
      'fetched one after another with Node’s `fetch` from the bench process and read whole, nothing parsed: the ' +
      'least any map of this sitemap must spend on network and reading. Runs interleaved, after one unmeasured ' +
      'read of the files (so the floor is warm, while Quire’s first run is its first map since it started). ' +
      'Quire’s RSS is sampled every 100 ms, summed over its process tree and for its server process alone.',
    '',
    table(['', 'Quire POST /v2/map', 'fetch loop over the 6 files (floor)', 'Quire / floor'], mapRows),
    '',
    ...(m.error ? [`Error: ${m.error}`, ''] : []),
    '### Fairness: small parses during a crawl',
    '',
    `The same server defaults. Team "small" (its own key, \`quire keys create --team small\`) sends a 2 KB HTML ` +
      'page to `POST /v2/parse`, one request at a time, paced every ' +
      `${o.paceMs} ms, latency from send to last byte; first ${o.samples} with nothing else running, then for as long ` +
      `as team A's crawl of ${f.pages} pages (as above) runs, from 2 s after it starts. The peer is the same parses ` +
      'unloaded. Goal: p99 within 3× of unloaded.',
    '',
    table(['', 'unloaded', `during a ${f.pages}-page crawl`, 'during / unloaded'], fairRows),
    '',
    ...(f.error ? [`Error: ${f.error}`, ''] : []),
  ];
}
