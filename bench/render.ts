import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { loadConfig } from '../src/config.ts';
import { limits } from '../src/limits.ts';
import { fmtMb, fmtRatio, table } from './format.ts';
import { quireSpec, startServer, stopServer } from './load.ts';
import { browserMemory, type Memory } from './sessions.ts';
import { nowMs, ratio } from './stats.ts';

// Scrapes: pages per second through POST /v2/scrape for app shells (plain fetch, the app-shell
// rule, a render in the pool, conversion to Markdown) and for static pages (plain fetch and
// conversion, no browser), each against the bare minimum over the same loopback pages: one
// Chromium driven by puppeteer-core, a context per page, load, the same network-quiet wait,
// page.content(), at the same concurrency; and the pool's memory.

// The same binary Quire starts, so that the two sides differ only in what Quire adds.
const chromiumPath = loadConfig().QUIRE_CHROMIUM_PATH;
const apiKey = 'bench-key';

export interface RenderResult {
  pages: number;
  concurrency: number;
  quirePagesPerS: number | null;
  peerPagesPerS: number | null;
  /** The same for static pages: Quire fetches and converts them without a browser. */
  quireStaticPagesPerS: number | null;
  peerStaticPagesPerS: number | null;
  /** The render browser's processes after the run (RSS and PSS summed over its process group). */
  poolMemory: Memory | null;
  error: string | null;
}

/**
 * App shells at /p/<n>: nothing but a root and a script that writes an article and fetches a
 * paragraph. Static pages at /s/<n>: the same article in the HTML.
 */
function site(): Promise<http.Server> {
  const paragraph =
    'Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge.';
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/text')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(paragraph);
      return;
    }
    if (req.url?.startsWith('/s/')) {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>Page</title></head><body><article><h1>Page ${req.url}</h1>${`<p>${paragraph}</p>`.repeat(13)}</article></body></html>`,
        );
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Page</title></head>
<body><div id="root"></div><script>
const root = document.getElementById('root');
root.innerHTML = '<article><h1>Page ${req.url}</h1>' + ${JSON.stringify(`<p>${paragraph}</p>`)}.repeat(12) + '</article>';
fetch('/text').then((r) => r.text()).then((t) => root.insertAdjacentHTML('beforeend', '<p>' + t + '</p>'));
</script></body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Run `each` over `count` items, `concurrency` at a time; the elapsed seconds. */
async function timed(
  count: number,
  concurrency: number,
  each: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const t0 = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await each(i);
    }),
  );
  return (nowMs() - t0) / 1000;
}

/** Pages per second of the bare loop over `${base}/<kind>/<n>`. */
async function bareLoop(base: string, kind: 'p' | 's', pages: number, concurrency: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-render-peer-'));
  const browser: Browser = await puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    userDataDir: dir,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  try {
    const one = async (i: number) => {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.goto(`${base}/${kind}/${i}`, { waitUntil: 'load' });
        await page
          .waitForNetworkIdle({
            idleTime: limits.renderNetworkIdleMs,
            timeout: limits.renderNetworkIdleCapMs,
          })
          .catch(() => {});
        if (!(await page.content()).includes('Tide tables')) throw new Error('the bare loop read no content');
      } finally {
        await context.close();
      }
    };
    await one(-1);
    return pages / (await timed(pages, concurrency, one));
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The render browser under Quire's data folder, found by its profile on the command line. */
function renderBrowserPid(dataDir: string): number | undefined {
  const marker = `--user-data-dir=${path.join(dataDir, 'render')}${path.sep}`;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.some((a) => a.startsWith(marker)) && !args.some((a) => a.startsWith('--type=')))
        return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

export async function runRenderBench(
  opts: { pages: number; concurrency: number },
  log: (m: string) => void,
): Promise<RenderResult> {
  const result: RenderResult = {
    ...opts,
    quirePagesPerS: null,
    peerPagesPerS: null,
    quireStaticPagesPerS: null,
    peerStaticPagesPerS: null,
    poolMemory: null,
    error: null,
  };
  const pages = await site();
  const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-render-'));
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(
      quireSpec(dataDir, apiKey, {
        QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
        QUIRE_CHROMIUM_PATH: chromiumPath,
      }),
    );
    const quire = server.base;
    const scrapeOf = (kind: 'p' | 's') => async (i: number) => {
      const res = await fetch(`${quire}/v2/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${base}/${kind}/${i}`, timeout: 120_000 }),
      });
      const body = (await res.json()) as { data?: { markdown?: string } };
      if (!body.data?.markdown?.includes('Tide tables'))
        throw new Error(`scrape ${kind}/${i}: ${JSON.stringify(body).slice(0, 300)}`);
    };
    log('render: Quire, first scrapes (start the browser)');
    await scrapeOf('p')(-1);
    await scrapeOf('s')(-1);
    log(`render: Quire, ${opts.pages} app shells at ${opts.concurrency} at once`);
    result.quirePagesPerS = opts.pages / (await timed(opts.pages, opts.concurrency, scrapeOf('p')));
    log(`render: Quire, ${opts.pages} static pages at ${opts.concurrency} at once`);
    result.quireStaticPagesPerS = opts.pages / (await timed(opts.pages, opts.concurrency, scrapeOf('s')));
    const pid = renderBrowserPid(dataDir);
    result.poolMemory = pid === undefined ? null : browserMemory(pid);
    await stopServer(server);
    server = undefined;
    log('render: bare puppeteer-core loop');
    result.peerPagesPerS = await bareLoop(base, 'p', opts.pages, opts.concurrency);
    result.peerStaticPagesPerS = await bareLoop(base, 's', opts.pages, opts.concurrency);
  } catch (error) {
    result.error = (error as Error).message;
  } finally {
    if (server) await stopServer(server);
    pages.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return result;
}

export function renderSection(r: RenderResult): string[] {
  const rate = (x: number | null) => (x == null ? '—' : x.toFixed(2));
  return [
    '## Scrapes: rendered and static pages',
    '',
    `${r.pages} app shells (an empty root and a script that writes the article and fetches one more paragraph) and ${r.pages} static pages ` +
      `(the same article in the HTML) served on loopback, ${r.concurrency} at a time, after one warm-up each. Quire: POST /v2/scrape with the ` +
      'default options (plain fetch, the app-shell rule, for app shells a render in the pool at nice 10, Markdown conversion; static pages ' +
      'never reach the browser). Bare loop: puppeteer-core launching the same Chromium, a context per page, load, the same network-quiet ' +
      'wait, page.content(), at normal priority, with no fetch before and no conversion after, for both kinds of page.',
    '',
    table(
      ['', 'Quire', 'Bare puppeteer-core', 'Quire / bare'],
      [
        [
          'Rendered pages per second',
          rate(r.quirePagesPerS),
          rate(r.peerPagesPerS),
          fmtRatio(ratio(r.quirePagesPerS, r.peerPagesPerS)),
        ],
        [
          'Static pages per second',
          rate(r.quireStaticPagesPerS),
          rate(r.peerStaticPagesPerS),
          fmtRatio(ratio(r.quireStaticPagesPerS, r.peerStaticPagesPerS)),
        ],
      ],
    ),
    '',
    r.poolMemory
      ? `Render pool memory after the run: ${fmtMb(r.poolMemory.pssKb)} MB PSS (${fmtMb(r.poolMemory.rssKb)} MB RSS summed) over ${r.poolMemory.processes} processes.`
      : 'Render pool memory: not measured (no render browser found).',
    ...(r.error ? ['', `> Error: ${r.error}`] : []),
    '',
  ];
}
