import fs from 'node:fs';
import path from 'node:path';
import { CheerioCrawler, Configuration, LogLevel, log } from '@crawlee/cheerio';
import TurndownService from 'turndown';
import { reapedChildrenCpuMs } from '../proc.ts';

// The crawl bench's peer (bench/crawl.ts), in a process of its own so that its memory and CPU are
// its own: Crawlee's CheerioCrawler from CRAWL_URL, CRAWL_CONCURRENCY pages at once (its pool
// fixed there: min = max), `maxRequestsPerCrawl` CRAWL_MAX_REQUESTS when set, same-hostname links
// enqueued, each page's body turned into Markdown by turndown and appended to a JSON-lines file in
// CRAWL_DIR (Quire keeps its documents in its store). Storage is Crawlee's in-memory client, not
// persisted, under CRAWL_DIR. Prints `ready` once loaded, then one line of JSON: what the run did
// and cost.

const start = process.env.CRAWL_URL!;
const maxRequests = process.env.CRAWL_MAX_REQUESTS ? Number(process.env.CRAWL_MAX_REQUESTS) : undefined;
const concurrency = Number(process.env.CRAWL_CONCURRENCY);
const dir = process.env.CRAWL_DIR!;

log.setLevel(LogLevel.WARNING);
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
turndown.remove(['script', 'style', 'noscript']);
const out = fs.createWriteStream(path.join(dir, 'documents.jsonl'));
let documents = 0;
let markdownChars = 0;
let failed = 0;

const config = new Configuration({
  persistStorage: false,
  storageClientOptions: { localDataDirectory: dir },
});
const crawler = new CheerioCrawler(
  {
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    ...(maxRequests === undefined ? {} : { maxRequestsPerCrawl: maxRequests }),
    async requestHandler({ $, request, enqueueLinks }) {
      const markdown = turndown.turndown($('body').html() ?? '');
      documents++;
      markdownChars += markdown.length;
      out.write(`${JSON.stringify({ url: request.loadedUrl ?? request.url, markdown })}\n`);
      await enqueueLinks({ strategy: 'same-hostname' });
    },
    failedRequestHandler() {
      failed++;
    },
  },
  config,
);

process.stdout.write('ready\n');
const cpu0 = process.cpuUsage();
const reaped0 = reapedChildrenCpuMs() ?? 0;
const t0 = performance.now();
await crawler.run([start]);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const reapedMs = (reapedChildrenCpuMs() ?? 0) - reaped0;
await new Promise<void>((resolve) => out.end(resolve));
process.stdout.write(
  `${JSON.stringify({
    documents,
    failed,
    markdownChars,
    seconds,
    cpuS: (cpu.user + cpu.system) / 1e6 + reapedMs / 1000,
  })}\n`,
);
