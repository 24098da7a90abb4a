import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type FetchResource, sitemapCandidates, sitemapUrls } from '../../src/crawl/sitemaps.ts';
import { limits } from '../../src/limits.ts';

/**
 * Sitemap discovery (jobs spec §2.6): where sitemaps are looked for, and the page URLs read from
 * urlsets, indexes, gzip, text and feeds, with failures skipped and the budgets kept. Fetching is
 * a table of generated bodies.
 */

const site = 'https://fernhill.example';
const urlset = (locs: string[], extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" ${extra}>\n${locs
    .map((l) => `  <url>\n    <loc>${l}</loc>\n    <lastmod>2024-05-01</lastmod>\n  </url>`)
    .join('\n')}\n</urlset>\n`;
const index = (locs: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<sitemap><loc>${l}</loc></sitemap>`)
    .join('')}</sitemapindex>`;
const pages = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${site}/${prefix}/${i}`);

type Body = string | Buffer | { status: number; body?: string } | 'throw' | 'unreachable';

/** A fetch over a table of bodies; every call is recorded. Missing URLs answer 404. */
function table(bodies: Record<string, Body>) {
  const calls: string[] = [];
  const fetch: FetchResource = async (url) => {
    calls.push(url);
    const body = bodies[url];
    if (body === 'throw') throw new Error('socket hang up');
    if (body === 'unreachable') return undefined;
    if (body === undefined) return { status: 404, bytes: Buffer.from('<html>Not found</html>') };
    if (typeof body === 'string')
      return { status: 200, contentType: 'application/xml', bytes: Buffer.from(body) };
    if (Buffer.isBuffer(body)) return { status: 200, bytes: body };
    return { status: body.status, bytes: Buffer.from(body.body ?? '') };
  };
  return { fetch, calls };
}

async function collect(
  candidates: string[],
  fetch: FetchResource,
  options: Partial<{ maxSitemaps: number; maxUrls: number; signal: AbortSignal }> = {},
) {
  const out: string[] = [];
  for await (const url of sitemapUrls(candidates, fetch, {
    maxSitemaps: 20,
    maxUrls: 1_000_000,
    signal: new AbortController().signal,
    ...options,
  })) {
    out.push(url);
  }
  return out;
}

describe('sitemapCandidates', () => {
  it("tries the seed directory's sitemap, robots' sitemaps, then the origin's", () => {
    assert.deepEqual(
      sitemapCandidates(`${site}/docs/guide`, [`${site}/sm-1.xml`, '/sm-2.xml.gz', 'mailto:x@y']),
      [`${site}/docs/guide/sitemap.xml`, `${site}/sm-1.xml`, `${site}/sm-2.xml.gz`, `${site}/sitemap.xml`],
    );
    assert.deepEqual(sitemapCandidates(`${site}/docs/index.html?x=1#top`, []), [
      `${site}/docs/sitemap.xml`,
      `${site}/sitemap.xml`,
    ]);
  });

  it('takes a seed naming a sitemap itself, .xml or .xml.gz', () => {
    assert.deepEqual(sitemapCandidates(`${site}/maps/news.xml`, []), [
      `${site}/maps/news.xml`,
      `${site}/sitemap.xml`,
    ]);
    assert.deepEqual(sitemapCandidates(`${site}/maps/all.XML.gz`, []), [
      `${site}/maps/all.XML.gz`,
      `${site}/sitemap.xml`,
    ]);
  });

  it("adds a subdomain's apex sitemap, and lists each candidate once", () => {
    assert.deepEqual(
      sitemapCandidates('https://docs.fernhill.co.uk/', ['https://docs.fernhill.co.uk/sitemap.xml']),
      ['https://docs.fernhill.co.uk/sitemap.xml', 'https://fernhill.co.uk/sitemap.xml'],
    );
    assert.deepEqual(sitemapCandidates(`${site}/`, [`${site}/sitemap.xml`]), [`${site}/sitemap.xml`]);
  });
});

describe('sitemapUrls', () => {
  it('reads a urlset: absolute, trimmed, entities decoded, image locs skipped', async () => {
    const body = urlset(
      [
        `  ${site}/a?x=1&amp;y=2  `,
        `${site}/b`,
        '/relative/c',
        'mailto:x@fernhill.example',
        `${site}/d#frag`,
      ],
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"',
    ).replace('</url>', `<image:image><image:loc>${site}/pic.png</image:loc></image:image></url>`);
    const { fetch } = table({ [`${site}/sitemap.xml`]: body });
    assert.deepEqual(await collect([`${site}/sitemap.xml`], fetch), [
      `${site}/a?x=1&y=2`,
      `${site}/b`,
      `${site}/relative/c`,
      `${site}/d`,
    ]);
  });

  it('follows indexes depth first, fetching each sitemap once (cycles included)', async () => {
    const { fetch, calls } = table({
      [`${site}/sitemap.xml`]: index([`${site}/sm-a.xml`, `${site}/sm-b.xml`]),
      [`${site}/sm-a.xml`]: index([`${site}/sm-a1.xml`, `${site}/sitemap.xml`]),
      [`${site}/sm-a1.xml`]: urlset(pages('a1', 2)),
      [`${site}/sm-b.xml`]: urlset([...pages('b', 2), `${site}/a1/0`]),
    });
    const urls = await collect([`${site}/sitemap.xml`, `${site}/sm-b.xml`], fetch);
    assert.deepEqual(urls, [...pages('a1', 2), ...pages('b', 2)]);
    assert.deepEqual(calls, [
      `${site}/sitemap.xml`,
      `${site}/sm-a.xml`,
      `${site}/sm-a1.xml`,
      `${site}/sm-b.xml`,
    ]);
  });

  it("follows a urlset's .xml locs as sitemaps, and keeps one that is not a sitemap as a page", async () => {
    const { fetch } = table({
      [`${site}/sitemap.xml`]: urlset([`${site}/page`, `${site}/more.xml`, `${site}/feed/data.xml`]),
      [`${site}/more.xml`]: urlset(pages('more', 2)),
      [`${site}/feed/data.xml`]: '<?xml version="1.0"?><catalogue><item>tea</item></catalogue>',
    });
    assert.deepEqual(await collect([`${site}/sitemap.xml`], fetch), [
      `${site}/page`,
      ...pages('more', 2),
      `${site}/feed/data.xml`,
    ]);
  });

  it('recognises gzip by its magic bytes whatever the name, and reads text sitemaps', async () => {
    const { fetch } = table({
      [`${site}/sitemap.xml`]: gzipSync(urlset(pages('gz', 3))),
      [`${site}/sitemap.xml.gz`]: urlset(pages('plain-named-gz', 1)),
      [`${site}/sitemap.txt`]: gzipSync(
        `\uFEFF${site}/t/1\r\n  ${site}/t/2  \n\nnot a url\n/relative\nftp://fernhill.example/x\n${site}/t/3`,
      ),
    });
    assert.deepEqual(
      await collect([`${site}/sitemap.xml`, `${site}/sitemap.xml.gz`, `${site}/sitemap.txt`], fetch),
      [...pages('gz', 3), ...pages('plain-named-gz', 1), `${site}/t/1`, `${site}/t/2`, `${site}/t/3`],
    );
  });

  it('reads RSS item links and Atom entry links', async () => {
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>${site}/</link>
      <item><title>One</title><link>${site}/news/1</link></item>
      <item><title>Two</title><link> ${site}/news/2?a=1&amp;b=2 </link></item></channel></rss>`;
    const atom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><link href="${site}/"/>
      <entry><link rel="alternate" href="${site}/posts/1"/><link rel="edit" href="${site}/edit/1"/></entry>
      <entry><link href="/posts/2"/></entry></feed>`;
    const { fetch } = table({ [`${site}/rss.xml`]: rss, [`${site}/atom.xml`]: atom });
    assert.deepEqual(await collect([`${site}/rss.xml`, `${site}/atom.xml`], fetch), [
      `${site}/news/1`,
      `${site}/news/2?a=1&b=2`,
      `${site}/posts/1`,
      `${site}/posts/2`,
    ]);
  });

  it('skips failed, non-2xx, HTML and malformed sitemaps without throwing, keeping what precedes damage', async () => {
    const { fetch, calls } = table({
      [`${site}/throws.xml`]: 'throw',
      [`${site}/unreachable.xml`]: 'unreachable',
      [`${site}/error.xml`]: { status: 500, body: urlset(pages('error', 1)) },
      [`${site}/html.xml`]: '<!doctype html><html><body><a href="/x">x</a></body></html>',
      [`${site}/entities.xml`]: `<!DOCTYPE urlset [<!ENTITY e "${site}/entity">]>${urlset(['&e;'])}`,
      [`${site}/broken-gzip.xml`]: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]),
      // Cut inside the second loc.
      [`${site}/damaged.xml`]: (() => {
        const whole = urlset(pages('damaged', 2));
        return whole.slice(0, whole.indexOf('/damaged/1') + 4);
      })(),
      [`${site}/good.xml`]: urlset(pages('good', 1)),
    });
    const candidates = [
      'throws',
      'unreachable',
      'missing',
      'error',
      'html',
      'entities',
      'broken-gzip',
      'damaged',
      'good',
    ].map((n) => `${site}/${n}.xml`);
    const urls = await collect(candidates, fetch);
    assert.deepEqual(urls, [...pages('damaged', 1), ...pages('good', 1)]);
    assert.equal(calls.length, candidates.length);
  });

  it('fetches at most maxSitemaps and yields at most maxUrls distinct URLs', async () => {
    const bodies: Record<string, Body> = {
      [`${site}/sitemap.xml`]: index(Array.from({ length: 10 }, (_, i) => `${site}/sm-${i}.xml`)),
    };
    for (let i = 0; i < 10; i++)
      bodies[`${site}/sm-${i}.xml`] = urlset([...pages(`s${i}`, 3), `${site}/s0/0`]);
    const one = table(bodies);
    assert.deepEqual(await collect([`${site}/sitemap.xml`], one.fetch, { maxSitemaps: 3 }), [
      ...pages('s0', 3),
      ...pages('s1', 3),
    ]);
    assert.equal(one.calls.length, 3);
    const two = table(bodies);
    assert.deepEqual(await collect([`${site}/sitemap.xml`], two.fetch, { maxUrls: 5 }), [
      ...pages('s0', 3),
      ...pages('s1', 2),
    ]);
    assert.equal(two.calls.length, 3, 'no sitemap fetched once the URL budget is spent');
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const { fetch, calls } = table({
      [`${site}/sitemap.xml`]: index([`${site}/a.xml`, `${site}/b.xml`]),
      [`${site}/a.xml`]: urlset(pages('a', 3)),
      [`${site}/b.xml`]: urlset(pages('b', 3)),
    });
    const out: string[] = [];
    for await (const url of sitemapUrls([`${site}/sitemap.xml`], fetch, {
      maxSitemaps: 20,
      maxUrls: 100,
      signal: controller.signal,
    })) {
      out.push(url);
      if (out.length === 2) controller.abort();
    }
    assert.deepEqual(out, pages('a', 2));
    assert.equal(calls.includes(`${site}/b.xml`), false);
  });

  it('reads a 50,000-URL sitemap whole', async () => {
    const all = pages('p', 50_000);
    const { fetch } = table({ [`${site}/sitemap.xml`]: gzipSync(urlset(all)) });
    const urls = await collect([`${site}/sitemap.xml`], fetch);
    assert.equal(urls.length, 50_000);
    assert.equal(urls[49_999], all[49_999]);
  });

  it('skips a gzip that inflates past limits.sitemapBytes', async () => {
    const padding = ' '.repeat(limits.sitemapBytes);
    const bomb = gzipSync(`${urlset(pages('bomb', 1)).replace('</urlset>', '')}${padding}</urlset>`);
    assert.ok(bomb.length < limits.sitemapBytes / 100, 'the compressed file is small');
    const { fetch } = table({
      [`${site}/sitemap.xml`]: bomb,
      [`${site}/next.xml`]: urlset(pages('next', 1)),
    });
    assert.deepEqual(await collect([`${site}/sitemap.xml`, `${site}/next.xml`], fetch), pages('next', 1));
  });
});
