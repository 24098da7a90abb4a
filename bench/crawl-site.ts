import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The loopback sites of the crawl bench (bench/crawl.ts), in a process of their own so that
// serving them never runs on the event loop that times requests. Deterministic: the same
// QUIRE_SITE_SEED and size give the same bytes.
//
// QUIRE_SITE_MODE=crawl: QUIRE_SITE_PAGES static pages, `/` the first, each with a header and nav
// of ~20 links to others, an article of paragraphs with inline links, a list, a small table, an
// aside and a footer (15-30 KB). Page i links to i + 1, so every page is reachable from `/`; the
// other links are drawn at random. Paths are words and letters, never digits: a path of numbers
// (/page/123) is what Quire's crawler-trap budget counts as one pattern (limits.crawlVariantsPerPattern).
// No sitemap, and robots.txt is a 404.
//
// QUIRE_SITE_MODE=map: /sitemap.xml, an index of 5 sitemaps of QUIRE_SITE_SITEMAP_URLS URLs each, and a
// small start page.
//
// Prints `listening <port>` once it listens. GET /__stats answers what was requested since
// start (or the last /__reset): requests, and distinct page paths served with 200.

const mode = process.env.QUIRE_SITE_MODE ?? 'crawl';
const pages = Number(process.env.QUIRE_SITE_PAGES ?? 500);
const sitemapUrls = Number(process.env.QUIRE_SITE_SITEMAP_URLS ?? 10_000);
const seed = Number(process.env.QUIRE_SITE_SEED ?? 33);
const sitemapFiles = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];

/** mulberry32: a small seeded generator, the same numbers on every run. */
function random(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'harbour lock bridge river tide mooring quay canal barge sluice weir towpath lighthouse beacon ' +
  'channel estuary pier jetty dock crane warehouse ferry vessel hull keel rudder anchor chart ' +
  'compass pilot captain crew cargo freight timber grain coal salt wool linen market merchant ' +
  'ledger customs toll warden keeper gauge level flood drought season winter spring summer autumn ' +
  'morning evening north south east west upstream downstream basin reservoir aqueduct tunnel ' +
  'embankment gate paddle winch rope chain bollard fender buoy marker signal horn bell lantern ' +
  'survey measure record report history archive museum guide route walk cycle boat trip journey ' +
  'village town city county parish mill forge bakery brewery tannery pottery quarry mine railway'
).split(' ');
const SECTIONS = ['guide', 'history', 'places', 'boating', 'notes'];

/** Letters for a number (a, b, ..., z, ba, bb, ...): a unique path segment with no digits. */
function letters(n: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const between = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

function pageRandom(i: number): () => number {
  return random(seed * 1_000_003 + i * 7919);
}

/** Page i's path and title words (drawn from its own generator, so any page can be named alone). */
function pageName(i: number): { path: string; title: string } {
  if (i === 0) return { path: '/', title: 'River guide' };
  const rnd = pageRandom(i);
  const a = pick(rnd, WORDS);
  const b = pick(rnd, WORDS);
  const section = pick(rnd, SECTIONS);
  const title = `${a[0]!.toUpperCase()}${a.slice(1)} and ${b}`;
  return { path: `/${section}/${a}-${b}-${letters(i)}`, title };
}

const paths = new Map<string, number>();
for (let i = 0; i < (mode === 'crawl' ? pages : 0); i++) paths.set(pageName(i).path, i);

function sentence(rnd: () => number): string {
  const n = between(rnd, 9, 22);
  const words = Array.from({ length: n }, () => pick(rnd, WORDS));
  return `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
}

/** Page i: the same bytes every time. */
function page(i: number): string {
  const { title } = pageName(i);
  // The page's own generator, past what pageName drew.
  const rnd = random(seed * 7_000_003 + i * 104_729);
  const other = () => between(rnd, 0, pages - 1);
  const link = (j: number, cls = '') => {
    const n = pageName(j);
    return `<a href="${n.path}"${cls ? ` class="${cls}"` : ''}>${n.title}</a>`;
  };
  const nav = [0, ...[1, 2, 3].map((d) => (i + d) % pages), ...Array.from({ length: 16 }, other)]
    .filter((j, k, all) => j !== i && all.indexOf(j) === k && j < pages)
    .map((j) => `<li class="nav-item">${link(j, 'nav-link')}</li>`)
    .join('\n');
  const paragraph = () => {
    const parts = Array.from({ length: between(rnd, 5, 9) }, () => sentence(rnd));
    if (rnd() < 0.5) parts.splice(between(rnd, 0, parts.length - 1), 0, `See ${link(other())}.`);
    return `<p class="body-text">${parts.join(' ')}</p>`;
  };
  const sections = Array.from({ length: between(rnd, 3, 5) }, (_, s) => {
    const heading = `<h2 id="part-${letters(s)}">${sentence(rnd).slice(0, 40)}</h2>`;
    return `<section class="article-section">${heading}\n${Array.from({ length: between(rnd, 4, 6) }, paragraph).join('\n')}</section>`;
  }).join('\n');
  const list = Array.from({ length: between(rnd, 5, 9) }, () => `<li>${sentence(rnd)}</li>`).join('');
  const rows = Array.from(
    { length: between(rnd, 4, 7) },
    () =>
      `<tr><td>${pick(rnd, WORDS)}</td><td>${between(rnd, 10, 999)}</td><td>${pick(rnd, WORDS)}</td><td>${between(rnd, 1800, 2024)}</td></tr>`,
  ).join('\n');
  const related = Array.from(
    { length: 6 },
    () => `<li class="related">${link(other())}<span class="teaser">${sentence(rnd)}</span></li>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | River guide</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${sentence(rnd)}">
<link rel="stylesheet" href="/assets/site.css">
<style>body{font-family:Georgia,serif;margin:0;color:#222}.site-header{background:#0b3954;color:#fff;padding:1rem}
.nav-list{display:flex;flex-wrap:wrap;list-style:none;margin:0;padding:0}.nav-item{margin-right:1rem}
.nav-link{color:#bfd7ea;text-decoration:none}.content{display:grid;grid-template-columns:3fr 1fr;gap:2rem;padding:2rem}
.body-text{line-height:1.6;max-width:42rem}table.data{border-collapse:collapse}table.data td,table.data th{border:1px solid #ccc;padding:.25rem .5rem}
.site-footer{background:#eee;padding:1rem;font-size:.9rem}.related{margin-bottom:.5rem}.teaser{display:block;color:#555}</style>
</head>
<body>
<header class="site-header"><div class="brand"><a href="/">River guide</a></div>
<nav class="main-nav" aria-label="Main"><ul class="nav-list">
${nav}
</ul></nav></header>
<div class="content">
<main><article class="article">
<h1>${title}</h1>
<p class="lead">${sentence(rnd)} ${sentence(rnd)}</p>
${sections}
<h2>Points to note</h2>
<ul class="points">${list}</ul>
<h2>Figures</h2>
<table class="data"><thead><tr><th>Item</th><th>Count</th><th>Place</th><th>Year</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</article></main>
<aside class="sidebar"><h2>Related</h2><ul>
${related}
</ul></aside>
</div>
<footer class="site-footer"><p>${sentence(rnd)}</p>
<ul><li><a href="/">Home</a></li><li>${link((i + 1) % pages)}</li><li><a href="https://example.org/privacy">Privacy</a></li><li><a href="https://example.org/contact">Contact</a></li></ul>
<p>&copy; River guide</p></footer>
</body></html>
`;
}

function sitemap(k: number, base: string): string {
  const name = sitemapFiles[k]!;
  const urls: string[] = [];
  for (let j = 0; j < sitemapUrls; j++)
    urls.push(
      `<url><loc>${base}/${name}/${pick(random(j), WORDS)}-${letters(j)}</loc><lastmod>2024-05-01</lastmod></url>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

let requests = 0;
let served = new Set<string>();
const cache = new Map<string, string>();

const server = http.createServer((req, res) => {
  const route = (req.url ?? '/').split('?')[0]!;
  if (route === '/__stats') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ requests, pages: served.size }));
    return;
  }
  if (route === '/__reset') {
    requests = 0;
    served = new Set();
    res.writeHead(204).end();
    return;
  }
  requests++;
  const base = `http://${req.headers.host}`;
  if (mode === 'map') {
    const m = /^\/sitemaps\/(\w+)\.xml$/.exec(route);
    const k = m ? sitemapFiles.indexOf(m[1]!) : -1;
    if (route === '/sitemap.xml') {
      const entries = sitemapFiles
        .map((f) => `<sitemap><loc>${base}/sitemaps/${f}.xml</loc></sitemap>`)
        .join('\n');
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</sitemapindex>\n`,
        );
    } else if (k >= 0) {
      const key = `${base}${route}`;
      let body = cache.get(key);
      if (body === undefined) {
        body = sitemap(k, base);
        cache.set(key, body);
      }
      res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    } else if (route === '/') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><html><head><title>Catalogue</title></head><body><h1>Catalogue</h1></body></html>',
        );
    } else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const i = paths.get(route);
  if (i === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  served.add(route);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(i));
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
