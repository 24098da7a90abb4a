import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { useApp } from '../helpers/app.ts';
import { article } from '../helpers/scrape-pages.ts';
import { corpusFile } from '../helpers/server.ts';
import { Site } from '../helpers/site.ts';
import { zip } from '../helpers/zip.ts';

/**
 * POST /v2/scrape's contract in-process: validation, error bodies, the fetch policy (private
 * addresses, redirects, credentials, sizes, timeouts), content types, encodings and formats.
 * The app fetches the loopback sites below over real sockets; those are the sites', not Quire's.
 * The SDKs, over a real server, are in test/e2e/scrape-sdk.test.ts.
 */

const latin1Page = Buffer.from(
  '<html><head><title>Caf\u00e9</title></head><body><p>Un caf\u00e9 cr\u00e8me, une cr\u00e8me br\u00fbl\u00e9e et un d\u00e9j\u00e0-vu na\u00eff devant la fa\u00e7ade, \u00e0 c\u00f4t\u00e9 du th\u00e9\u00e2tre, pendant que la soir\u00e9e commen\u00e7ait.</p></body></html>',
  'latin1',
);

const encoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  deflate: (b) => zlib.deflateSync(b),
  zstd: (b) => zlib.zstdCompressSync(b),
};

/** A self-signed certificate for 127.0.0.1 (openssl is one of the suite's Debian packages). */
function selfSigned(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('POST /v2/scrape', () => {
  // Only 127.0.0.1 is allowed: 127.0.0.2 and localhost are loopback too, and stay refused.
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1' });
  const site = new Site();
  const other = new Site();
  const forbidden = new Site();
  const tls = new Site(selfSigned());
  let hugeSent = 0;
  let hugeClosed: Promise<void> = Promise.resolve();
  let hangClosed: Promise<void> = Promise.resolve();
  const pdf = corpusFile('pdf/text/mid-test.pdf');
  const word = corpusFile('docx/docling-unit_test_headers.docx');

  before(async () => {
    await forbidden.on('/', (_req, res) => res.end('<p>private</p>')).listen('127.0.0.2');
    await other.on('/echo', (_req, res) => res.end('<p>echoed</p>')).listen();
    await Promise.all([site.listen(), tls.serve('/page', 'text/html', article('Served over TLS.')).listen()]);
    site
      .redirect('/article', '/blog/2024/tides.html', 301)
      .serve('/blog/2024/tides.html', 'text/html; charset=utf-8', article())
      .serve('/papers/mid-test', 'application/pdf', Buffer.from(pdf.bytes))
      .serve('/files/report.docx', 'application/octet-stream', Buffer.from(word.bytes))
      .serve(
        '/download',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        Buffer.from(word.bytes),
      )
      .serve('/latin1', 'text/html; charset=ISO-8859-1', latin1Page)
      .serve(
        '/notes.md',
        'text/html',
        '<html><head><title>Notes page</title></head><body><h1>Other</h1><p>Served as a page.</p></body></html>',
      )
      .serve('/archive.zip', 'application/zip', zip([{ name: 'a.txt', data: 'hello' }]))
      .on('/missing', (_req, res) =>
        res
          .writeHead(404, { 'content-type': 'text/html' })
          .end('<html><body><h1>Not found</h1><p>The page you asked for is not here.</p></body></html>'),
      )
      .redirect('/loop/a', '/loop/b')
      .redirect('/loop/b', '/loop/a')
      .redirect('/to-private', `${forbidden.url}/`)
      .redirect('/to-localhost', `${site.url.replace('127.0.0.1', 'localhost')}/latin1`)
      .redirect('/to-file', 'file:///etc/passwd')
      .redirect('/cross', `${other.url}/echo`)
      .on('/echo', (_req, res) => res.end('<p>echoed</p>'))
      .on('/cookie-check', (req, res) => {
        if (req.headers.cookie?.includes('seen=1'))
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<p>Cookies work here, so the page shows.</p>');
        else
          res.writeHead(302, { location: '/cookie-check', 'set-cookie': 'seen=1; Path=/; HttpOnly' }).end();
      })
      .on('/hang', (_req, res) => {
        hangClosed = new Promise((resolve) => res.once('close', resolve));
      })
      .on('/declared-huge', (_req, res) =>
        res.writeHead(200, { 'content-length': String(60 * 2 ** 20) }).flushHeaders(),
      )
      .on('/huge', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(2 ** 20, 'a');
        hugeClosed = new Promise((resolve) => res.once('close', resolve));
        // Bounded: at most 200 MiB, and only as fast as the client reads.
        const pump = () => {
          while (!res.destroyed && hugeSent < 200 * 2 ** 20) {
            hugeSent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      })
      .serve('/bomb', 'text/html', zlib.gzipSync(Buffer.alloc(60 * 2 ** 20, 0x20)), {
        'content-encoding': 'gzip',
      });
    for (const [coding, encode] of Object.entries(encoders)) {
      site.serve(
        `/enc/${coding}`,
        'text/html; charset=utf-8',
        encode(Buffer.from(article(`Encoded as ${coding}.`))),
        {
          'content-encoding': coding,
        },
      );
    }
  });
  after(async () => {
    await Promise.all([site.close(), other.close(), forbidden.close(), tls.close()]);
  });

  /**
   * A scrape, by default with a deadline a loaded machine meets (the contract's 30 s default is
   * not what these tests are about): only a wrong answer fails them.
   */
  async function scrape(body: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const patient = typeof body === 'object' && body !== null && !Array.isArray(body);
    const res = await app().fetch('/v2/scrape', {
      method: 'POST',
      headers: { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      body: JSON.stringify(patient ? { timeout: 120_000, ...body } : body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('fetches an HTML page: main content, links absolute against the final URL, the addresses and status', async () => {
    const { status, body } = await scrape({
      url: `${site.url}/article`,
      formats: ['markdown', 'links', 'html'],
    });
    assert.equal(status, 200, JSON.stringify(body));
    const { markdown, links, metadata } = body.data;
    assert.match(markdown, /^# How tides are predicted/);
    assert.match(markdown, /harmonic constituents/);
    assert.doesNotMatch(markdown, /Harbour office|About/);
    assert.ok(links.includes(`${site.url}/blog/2024/constituents.html`), links.join(' '));
    assert.ok(links.includes(`${site.url}/blog/data/gauges.csv`), links.join(' '));
    assert.equal(metadata.sourceURL, `${site.url}/article`);
    assert.equal(metadata.url, `${site.url}/blog/2024/tides.html`);
    assert.equal(metadata.statusCode, 200);
    assert.equal(metadata.contentType, 'text/html; charset=utf-8');
    assert.equal(metadata.title, 'Tide tables');
    assert.equal(metadata.description, 'How tides are predicted');
    assert.equal(typeof metadata.scrapeId, 'string');
  });

  it('reads attributes from the cleaned page: selectors in order, values absolute, main content only', async () => {
    const { status, body } = await scrape({
      url: `${site.url}/article`,
      formats: [
        'markdown',
        {
          type: 'attributes',
          selectors: [
            { selector: 'a', attribute: 'href' },
            { selector: 'html', attribute: 'lang' },
            { selector: 'nav a', attribute: 'href' },
          ],
        },
      ],
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.data.attributes, [
      {
        selector: 'a',
        attribute: 'href',
        values: [`${site.url}/blog/2024/constituents.html`, `${site.url}/blog/data/gauges.csv`],
      },
      // The cleaned HTML has no <html> element, and the navigation is not main content.
      { selector: 'html', attribute: 'lang', values: [] },
      { selector: 'nav a', attribute: 'href', values: [] },
    ]);
    // Outputs before metadata.
    assert.deepEqual(Object.keys(body.data), ['markdown', 'attributes', 'metadata']);
    const whole = await scrape({
      url: `${site.url}/article`,
      onlyMainContent: false,
      formats: [{ type: 'attributes', selectors: [{ selector: 'nav a', attribute: 'href' }] }],
    });
    assert.deepEqual(whole.body.data.attributes[0].values, [`${site.url}/`, `${site.url}/about`]);
    for (const [format, field] of [
      [
        { type: 'attributes', selectors: [{ selector: 'a[', attribute: 'href' }] },
        /formats\[0\]\.selectors\[0\]\.selector must be a valid CSS selector/,
      ],
      [
        { type: 'attributes', selectors: [{ selector: 'a', attribute: 'two words' }] },
        /formats\[0\]\.selectors\[0\]\.attribute must be an attribute name/,
      ],
      [{ type: 'attributes', selectors: [{ selector: 'a' }] }, /formats\[0\]\.selectors\[0\]\.attribute/],
      [
        { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href', all: true }] },
        /formats\[0\]\.selectors\[0\]/,
      ],
      [
        {
          type: 'attributes',
          selectors: Array.from({ length: 101 }, () => ({ selector: 'a', attribute: 'href' })),
        },
        /at most 100 selectors/,
      ],
    ] as const) {
      const refused = await scrape({ url: `${site.url}/article`, formats: [format] });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(refused.body.error, field);
    }
  });

  it('tracks changes across scrapes of a page: new, same through whitespace, changed with a diff, removed', async () => {
    let page = '<h1>Opening hours</h1><p>Monday to Friday, nine to five.</p><p>Closed on Sundays.</p>';
    let status = 200;
    site.on('/hours', (_req, res) =>
      res.writeHead(status, { 'content-type': 'text/html' }).end(`<main>${page}</main>`),
    );
    const track = (format: Record<string, unknown> = { type: 'changeTracking', modes: ['git-diff'] }) =>
      scrape({ url: `${site.url}/hours`, formats: ['markdown', format] });

    const first = await track();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.data.changeTracking, {
      previousScrapeAt: null,
      changeStatus: 'new',
      visibility: 'visible',
      diff: null,
    });
    // After metadata, as the contract's data object lists it.
    assert.deepEqual(Object.keys(first.body.data), ['markdown', 'metadata', 'changeTracking']);

    page = '<h1>Opening  hours</h1>\n\n<p>Monday to Friday,\n nine to five.</p><p>Closed on Sundays.</p>';
    const second = await track();
    assert.equal(second.body.data.changeTracking.changeStatus, 'same');
    assert.match(second.body.data.changeTracking.previousScrapeAt, /^\d{4}-\d\d-\d\dT/);

    page = '<h1>Opening hours</h1><p>Closed on Sundays.</p><p>Monday to Friday, nine to five.</p>';
    const reordered = await track({ type: 'changeTracking' });
    assert.equal(reordered.body.data.changeTracking.changeStatus, 'changed');
    assert.equal('diff' in reordered.body.data.changeTracking, false, 'no diff without git-diff mode');

    page = '<h1>Opening hours</h1><p>Monday to Saturday, nine to five.</p><p>Closed on Sundays.</p>';
    const changed = await track();
    const { diff } = changed.body.data.changeTracking;
    assert.equal(changed.body.data.changeTracking.changeStatus, 'changed');
    assert.match(diff, /^--- previous\.md\n\+\+\+ current\.md\n/m);
    assert.match(diff, /^-Closed on Sundays\.$/m);
    assert.match(diff, /^\+Monday to Saturday, nine to five\.$/m);

    status = 410;
    page = '<p>This page has moved away.</p>';
    const gone = await track();
    assert.equal(gone.body.data.changeTracking.changeStatus, 'removed');

    // A tag keeps a baseline of its own; zero data retention keeps and compares nothing.
    status = 200;
    page = '<p>Back again.</p>';
    const tagged = await track({ type: 'changeTracking', tag: 'weekly' });
    assert.equal(tagged.body.data.changeTracking.changeStatus, 'new');
    const zdr = await scrape({
      url: `${site.url}/hours`,
      formats: ['markdown', 'changeTracking'],
      zeroDataRetention: true,
    });
    assert.equal(zdr.status, 200);
    assert.equal(zdr.body.data.changeTracking, undefined);
    assert.match(zdr.body.data.warning, /Change tracking is not supported with zero data retention\./);
  });

  it("json mode: the schema's values read from both versions of a changed page, the fields that changed before and after", async () => {
    let price = '12.50';
    site.on('/ferry-fares', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<main><h1>Ferry fares</h1><p>Route: Brest to Ouessant</p><p>Adult fare: ${price}</p><p>Crossing time: 90 minutes</p></main>`,
        ),
    );
    const format = {
      type: 'changeTracking',
      modes: ['json', 'git-diff'],
      tag: 'fares',
      schema: {
        type: 'object',
        properties: {
          route: { type: 'string' },
          adultFare: { type: 'number' },
          crossingTime: { type: 'string' },
        },
      },
    };
    const track = () => scrape({ url: `${site.url}/ferry-fares`, formats: ['markdown', format] });
    const first = await track();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.changeTracking.changeStatus, 'new');
    assert.equal(first.body.data.changeTracking.json, null);
    price = '14.00';
    const second = await track();
    assert.equal(second.body.data.changeTracking.changeStatus, 'changed');
    assert.deepEqual(second.body.data.changeTracking.json, { adultFare: { previous: 12.5, current: 14 } });
    assert.match(second.body.data.changeTracking.diff, /^\+Adult fare: 14\.00$/m);

    // Without a schema there is nothing to read values by, offline: null, and upstream's warning says why.
    price = '15.00';
    const bare = await scrape({
      url: `${site.url}/ferry-fares`,
      formats: ['markdown', { type: 'changeTracking', modes: ['json'], tag: 'fares' }],
    });
    assert.equal(bare.body.data.changeTracking.changeStatus, 'changed');
    assert.equal(bare.body.data.changeTracking.json, null);
    assert.match(
      bare.body.data.warning,
      /Structured diff generation failed: without a language model, json mode needs a schema/,
    );
  });

  it('answers the deprecated query format: freeform as question, directQuote with passages, both as answer', async () => {
    const freeform = await scrape({
      url: `${site.url}/article`,
      formats: ['markdown', { type: 'query', prompt: 'What are the harmonic constituents?' }],
    });
    assert.equal(freeform.status, 200, JSON.stringify(freeform.body));
    assert.deepEqual(Object.keys(freeform.body.data), ['markdown', 'answer', 'metadata', 'warning']);
    assert.match(freeform.body.data.answer, /constituents/);
    assert.match(freeform.body.data.warning, /question: no language model is configured/);
    const quoted = await scrape({
      url: `${site.url}/article`,
      formats: [
        'markdown',
        { type: 'query', prompt: 'constituents summed for the dates', mode: 'directQuote' },
      ],
    });
    assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
    for (const passage of quoted.body.data.answer.split('\n\n'))
      assert.ok(quoted.body.data.markdown.includes(passage), passage);
    assert.match(quoted.body.data.answer, /summed for the dates/);
    assert.match(
      quoted.body.data.warning,
      /query: no language model is configured; the passages that best match the prompt/,
    );
    const both = await scrape({
      url: `${site.url}/article`,
      formats: ['markdown', { type: 'query', prompt: 'x' }, { type: 'question', question: 'y' }],
    });
    assert.equal(both.status, 400);
    assert.match(both.body.error, /question and query both answer as `answer`/);
  });

  it('answers question and highlights from the page without a model, by BM25, saying so', async () => {
    const { status, body } = await scrape({
      url: `${site.url}/article`,
      formats: [
        'markdown',
        { type: 'question', question: 'What are the harmonic constituents?' },
        { type: 'highlights', query: 'constituents summed for the dates' },
      ],
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(Object.keys(body.data), ['markdown', 'answer', 'highlights', 'metadata', 'warning']);
    // Sentences of the page (its text: links as their words), not words of Quire's.
    assert.match(body.data.answer, /constituents/);
    const text = body.data.markdown.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    for (const sentence of body.data.answer.split(/(?<=\.) /)) assert.ok(text.includes(sentence), sentence);
    // Passages verbatim from the Markdown.
    for (const passage of body.data.highlights.split('\n\n'))
      assert.ok(body.data.markdown.includes(passage), passage);
    assert.match(body.data.highlights, /summed for the dates/);
    assert.match(
      body.data.warning,
      /question: no language model is configured; the answer is the page's sentences that best match the question \(ranked by BM25\)/,
    );
    assert.match(
      body.data.warning,
      /highlights: no language model is configured; the passages that best match the query \(ranked by BM25\) were returned/,
    );

    const nothing = await scrape({
      url: `${site.url}/article`,
      formats: [{ type: 'question', question: 'Quokka?' }],
    });
    assert.equal(nothing.body.data.answer, null);
    assert.match(
      nothing.body.data.warning,
      /no sentence of the page holds a word of the question; answer is null/,
    );
    for (const [format, message] of [
      [{ type: 'question' }, /formats\[0\]\.question/],
      [{ type: 'question', question: '' }, /formats\[0\]\.question must not be empty/],
      [
        { type: 'highlights', query: 'x'.repeat(10_001) },
        /formats\[0\]\.query must be at most 10000 characters/,
      ],
    ] as const) {
      const refused = await scrape({ url: `${site.url}/article`, formats: [format] });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(refused.body.error, message);
    }
  });

  it('reads a product from the page’s markup, after metadata and warning; none from an article', async () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Brass Lantern',
      offers: {
        '@type': 'Offer',
        price: 59,
        priceCurrency: 'EUR',
        availability: 'https://schema.org/InStock',
      },
    };
    site.page(
      '/lantern',
      '<h1>Brass Lantern</h1><p>A lantern for the deck.</p>',
      `<script type="application/ld+json">${JSON.stringify(ld)}</script>`,
    );
    const { status, body } = await scrape({ url: `${site.url}/lantern`, formats: ['markdown', 'product'] });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.data.product, {
      title: 'Brass Lantern',
      url: `${site.url}/lantern`,
      variants: [
        { price: { amount: 59, currency: 'EUR' }, availability: { inStock: true, text: 'In stock' } },
      ],
    });
    assert.deepEqual(Object.keys(body.data), ['markdown', 'metadata', 'product']);
    // With a field the API process adds after warning too: the contract's order.
    const both = await scrape({
      url: `${site.url}/lantern`,
      formats: ['markdown', 'product', 'changeTracking'],
    });
    assert.deepEqual(Object.keys(both.body.data), ['markdown', 'metadata', 'changeTracking', 'product']);
    assert.equal(both.body.data.product.title, 'Brass Lantern');

    const article = await scrape({ url: `${site.url}/article`, formats: ['markdown', { type: 'product' }] });
    assert.equal(article.body.data.product, null);
    assert.deepEqual(Object.keys(article.body.data), ['markdown', 'metadata', 'warning', 'product']);
    assert.match(
      article.body.data.warning,
      /No product found on this page; it does not appear to be a product page\./,
    );
  });

  it('reads a menu from a menu page, and says an article is none', async () => {
    site.page(
      '/menu',
      '<h1>Menu</h1><h2>Soups</h2><p>Fish soup £7.50</p><p>Tomato soup (V) £6.00</p><h2>Mains</h2><p>Fish pie £14.00</p>',
    );
    const { status, body } = await scrape({ url: `${site.url}/menu`, formats: ['markdown', 'menu'] });
    assert.equal(status, 200, JSON.stringify(body));
    const { menu } = body.data;
    assert.equal(menu.isMenu, true);
    assert.equal(menu.currency, 'GBP');
    assert.equal(menu.sourceUrl, `${site.url}/menu`);
    assert.deepEqual(
      menu.sections.map((s: { name: string; items: { name: string; price: { amount: number } }[] }) => [
        s.name,
        s.items.map((i) => [i.name, i.price.amount]),
      ]),
      [
        [
          'Soups',
          [
            ['Fish soup', 7.5],
            ['Tomato soup (V)', 6],
          ],
        ],
        ['Mains', [['Fish pie', 14]]],
      ],
    );
    assert.deepEqual(Object.keys(body.data), ['markdown', 'metadata', 'menu']);
    const article = await scrape({ url: `${site.url}/article`, formats: ['markdown', 'product', 'menu'] });
    assert.equal(article.body.data.menu.isMenu, false);
    assert.deepEqual(Object.keys(article.body.data), ['markdown', 'metadata', 'warning', 'product', 'menu']);
    assert.match(
      article.body.data.warning,
      /No menu found on this page; it does not appear to be a menu page\./,
    );
  });

  it('refuses changeTracking without markdown, twice, with a schema that does not compile, or with an empty tag', async () => {
    for (const [formats, code, message] of [
      [[{ type: 'changeTracking' }], 'BAD_REQUEST', /requires the markdown format to be specified as well/],
      [['markdown', 'changeTracking', 'changeTracking'], 'BAD_REQUEST', /may name changeTracking once/],
      [
        ['markdown', { type: 'changeTracking', modes: ['json'], schema: { type: 'nonsense' } }],
        'BAD_REQUEST',
        /formats\[1\]\.schema is not a valid JSON Schema/,
      ],
      [
        ['markdown', { type: 'changeTracking', tag: '' }],
        'BAD_REQUEST',
        /formats\[1\]\.tag must not be empty/,
      ],
      [
        ['markdown', { type: 'changeTracking', modes: ['word-diff'] }],
        'BAD_REQUEST',
        /formats\[1\]\.modes\[0\] must be "git-diff" or "json"/,
      ],
    ] as const) {
      const refused = await scrape({ url: `${site.url}/article`, formats });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.code, code);
      assert.match(refused.body.error, message);
    }
  });

  it('takes a URL without a scheme as http, keeping it as written in sourceURL', async () => {
    const bare = `${site.url.replace('http://', '')}/latin1`;
    const { status, body } = await scrape({ url: bare });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.metadata.sourceURL, bare);
    assert.equal(body.data.metadata.url, `${site.url}/latin1`);
  });

  it('parses a PDF and a DOCX served from a URL, by content type, extension and bytes', async () => {
    const paper = await scrape({
      url: `${site.url}/papers/mid-test`,
      parsers: [{ type: 'pdf', mode: 'fast', maxPages: 1 }],
    });
    assert.equal(paper.status, 200, JSON.stringify(paper.body));
    assert.match(paper.body.data.markdown, /## 1 Introduction/);
    assert.equal(paper.body.data.metadata.numPages, 1);
    assert.equal(paper.body.data.metadata.contentType, 'application/pdf');
    assert.equal(paper.body.data.metadata.url, `${site.url}/papers/mid-test`);
    for (const route of ['/files/report.docx', '/download']) {
      const doc = await scrape({ url: `${site.url}${route}?v=2` });
      assert.equal(doc.status, 200, JSON.stringify(doc.body));
      assert.match(doc.body.data.markdown, /^# Test Document$/m, route);
      assert.equal(doc.body.data.metadata.statusCode, 200);
    }
  });

  it('decodes gzip, br, deflate and zstd bodies', async () => {
    for (const coding of Object.keys(encoders)) {
      const { status, body } = await scrape({ url: `${site.url}/enc/${coding}` });
      assert.equal(status, 200, `${coding}: ${JSON.stringify(body)}`);
      assert.match(body.data.markdown, new RegExp(`Encoded as ${coding}\\.`));
      assert.equal(site.seen.get(`/enc/${coding}`)!['accept-encoding'], 'gzip, deflate, br, zstd');
    }
  });

  it('reads a Latin-1 page by the charset in its Content-Type', async () => {
    const { status, body } = await scrape({ url: `${site.url}/latin1`, formats: ['markdown'] });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /Un café crème, une crème brûlée et un déjà-vu naïf devant la façade/);
    assert.equal(body.data.metadata.title, 'Café');
    assert.equal(body.data.metadata.contentType, 'text/html; charset=ISO-8859-1');
  });

  it('goes by a telling Content-Type before the extension: notes.md served as text/html is a page', async () => {
    const { status, body } = await scrape({ url: `${site.url}/notes.md` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.metadata.title, 'Notes page');
  });

  it("returns a 404 page's content with the origin's status", async () => {
    const { status, body } = await scrape({ url: `${site.url}/missing` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /Not found/);
    assert.equal(body.data.metadata.statusCode, 404);
  });

  it('refuses a redirect loop with a clear error', async () => {
    const { status, body } = await scrape({ url: `${site.url}/loop/a` });
    assert.equal(status, 500, JSON.stringify(body));
    assert.equal(body.code, 'SCRAPE_SITE_ERROR');
    assert.match(body.error, /redirects in a loop .*\/loop\/a → .*\/loop\/b/);
  });

  it('keeps cookies set during redirects for the host that set them', async () => {
    const { status, body } = await scrape({ url: `${site.url}/cookie-check` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /Cookies work here/);
  });

  it('refuses a redirect from an allowed host to a private address, without connecting to it', async () => {
    for (const route of ['/to-private', '/to-localhost']) {
      const { status, body } = await scrape({ url: `${site.url}${route}` });
      assert.equal(status, 403, JSON.stringify(body));
      assert.equal(body.success, false);
      assert.match(
        body.error,
        /^Quire refused to fetch http:\/\/(127\.0\.0\.2|localhost):\d+\/.*: .*may not reach/,
      );
    }
    assert.equal(forbidden.seen.size, 0, 'the private server was reached');
    const file = await scrape({ url: `${site.url}/to-file` });
    assert.equal(file.status, 403, JSON.stringify(file.body));
    assert.match(file.body.error, /file: URL, and a scrape follows redirects to http and https only/);
  });

  it('refuses private addresses the caller names directly', async () => {
    for (const url of [
      `${forbidden.url}/`,
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://0x7f000002/',
    ]) {
      const { status, body } = await scrape({ url });
      assert.equal(status, 403, `${url}: ${JSON.stringify(body)}`);
    }
    assert.equal(forbidden.seen.size, 0);
  });

  it('refuses a body over 50 MB while it streams, and a compression bomb once decoded past it', async () => {
    const { status, body } = await scrape({ url: `${site.url}/huge`, timeout: 60_000 });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'RESOURCE_LIMIT');
    assert.match(body.error, /larger than 50 MB/);
    await hugeClosed;
    // The connection is cut at the limit: what was sent past it is what the socket buffers took.
    assert.ok(hugeSent < 80 * 2 ** 20, `${hugeSent} bytes were sent`);
    const declared = await scrape({ url: `${site.url}/declared-huge` });
    assert.equal(declared.status, 400, JSON.stringify(declared.body));
    assert.equal(declared.body.code, 'RESOURCE_LIMIT');
    const bomb = await scrape({ url: `${site.url}/bomb` });
    assert.equal(bomb.status, 400, JSON.stringify(bomb.body));
    assert.equal(bomb.body.code, 'RESOURCE_LIMIT');
  });

  it('answers 408 at the timeout when the server never answers, and abandons the fetch', async () => {
    const { status, body } = await scrape({ url: `${site.url}/hang`, timeout: 1000 });
    assert.equal(status, 408, JSON.stringify(body));
    assert.equal(body.code, 'SCRAPE_TIMEOUT');
    assert.match(body.error, /The scrape did not finish within its timeout of 1000 ms/);
    // The origin sees its connection closed: the fetch ended with the answer, not left running.
    await hangClosed;
  });

  it('refuses a file type it cannot convert, naming what the URL returned', async () => {
    const { status, body } = await scrape({ url: `${site.url}/archive.zip` });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'SCRAPE_UNSUPPORTED_FILE_ERROR');
    assert.match(
      body.error,
      /returned "application\/zip", which Quire cannot convert: The page is a ZIP archive/,
    );
  });

  it("sends the caller's headers and location; credentials stay on the first URL's origin", async () => {
    const headers = {
      'X-Trace': 'abc',
      Authorization: 'Bearer secret',
      Cookie: 'a=1',
      'Accept-Encoding': 'identity',
    };
    const location = { country: 'CH', languages: ['de-CH', 'fr'] };
    const same = await scrape({ url: `${site.url}/echo`, headers, location });
    assert.equal(same.status, 200, JSON.stringify(same.body));
    const here = site.seen.get('/echo')!;
    assert.deepEqual(
      [here['x-trace'], here.authorization, here.cookie, here['accept-language'], here['accept-encoding']],
      ['abc', 'Bearer secret', 'a=1', 'de-CH, fr;q=0.9', 'gzip, deflate, br, zstd'],
    );
    const cross = await scrape({ url: `${site.url}/cross`, headers, location: { country: 'DE' } });
    assert.equal(cross.status, 200, JSON.stringify(cross.body));
    const there = other.seen.get('/echo')!;
    assert.deepEqual(
      [there['x-trace'], there.authorization, there.cookie, there['accept-language']],
      ['abc', undefined, undefined, 'de-DE, de;q=0.9'],
    );
  });

  it('accepts what has no effect without a browser or a cache, and origin', async () => {
    const { status, body } = await scrape({
      url: `${site.url}/latin1`,
      blockAds: true,
      maxAge: 172_800_000,
      storeInCache: true,
      proxy: 'auto',
      skipTlsVerification: false,
      waitFor: 0,
      mobile: false,
      actions: [],
      origin: 'js-sdk@4.42.0',
      zeroDataRetention: true,
      removeBase64Images: true,
    });
    assert.equal(status, 200, JSON.stringify(body));
  });

  it('refuses unknown keys and bad values, naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ url: `${site.url}/latin1`, colour: 'red' }, /^body has unrecognized key "colour"/],
      [{ formats: ['markdown'] }, /^body\.url is required/],
      [{ url: 'ftp://example.com/file' }, /^body\.url must be an http or https URL/],
      [{ url: `${site.url}/`, timeout: 10 }, /^body\.timeout must be an integer from 1000 to 300000/],
      [
        { url: `${site.url}/`, headers: { Host: 'example.com' } },
        /^body\.headers\.Host is refused: Host is set by Quire/,
      ],
      [
        { url: `${site.url}/`, location: { country: 'XX' } },
        /^body\.location\.country must be an ISO 3166-1 alpha-2/,
      ],
      [{ url: `${site.url}/`, formats: ['markdown', 'pdf'] }, /^body\.formats\[1\] must be one of markdown/],
      [
        { url: `${site.url}/`, parsers: [{ type: 'pdf', maxPages: 0 }] },
        /^body\.parsers\[0\]\.maxPages must be an integer/,
      ],
      [
        { url: `${site.url}/`, formats: ['rawHtml'], redactPII: true },
        /^body\.formats\[0\] rawHtml cannot be combined/,
      ],
      [[`${site.url}/`], /^The request body must be a JSON object/],
    ];
    for (const [input, message] of cases) {
      const { status, body } = await scrape(input);
      assert.equal(status, 400, JSON.stringify(input));
      assert.equal(body.code, 'BAD_REQUEST', JSON.stringify(body));
      assert.match(body.error, message);
    }
  });

  it('refuses what needs a profile, a cache or a proxy pool by name, not silently', async () => {
    const formats = await scrape({
      url: `${site.url}/`,
      formats: ['markdown', { type: 'video' }, { type: 'audio' }],
    });
    assert.equal(formats.status, 400);
    assert.equal(formats.body.code, 'SCRAPE_UNSUPPORTED_OPTIONS');
    assert.match(
      formats.body.error,
      /body\.formats\[1\] video needs a media downloader to extract the page's video/,
    );
    assert.match(
      formats.body.error,
      /body\.formats\[2\] audio needs a media downloader to extract the page's audio/,
    );
    for (const [input, message] of [
      [{ profile: { name: 'x' } }, /body\.profile .*fresh browser context/],
      [{ proxy: 'stealth' }, /body\.proxy "stealth" is not available: .*only "basic" and "auto"/],
      [{ minAge: 1000 }, /body\.minAge asks for cached data only/],
      [{ actions: [{ type: 'wait' }] }, /body\.actions\[0\].*milliseconds or selector/],
      [{ actions: [{ type: 'hover', selector: 'a' }] }, /body\.actions\[0\]/],
    ] as const) {
      const { status, body } = await scrape({ url: `${site.url}/`, ...input });
      assert.equal(status, 400);
      assert.match(body.error, message);
    }
  });

  it('is described in the OpenAPI document, from the schema that validates it', async () => {
    const res = await app().fetch('/v2/openapi.json', {
      headers: { authorization: `Bearer ${app().key}` },
    });
    const doc = (await res.json()) as Record<string, any>;
    assert.equal(
      doc.paths['/v2/scrape'].post.requestBody.content['application/json'].schema.$ref,
      '#/components/schemas/ScrapeRequest',
    );
    const schema = doc.components.schemas.ScrapeRequest;
    assert.deepEqual(schema.required, ['url']);
    assert.deepEqual(schema.properties.proxy.enum, ['basic', 'auto']);
    assert.ok(schema.properties.actions);
    assert.ok(doc.paths['/v2/scrape'].post.responses['403']);
  });

  it('skips certificate checks by default (the contract says so), and reports a bad one when asked to check', async () => {
    const skipped = await scrape({ url: `${tls.url}/page` });
    assert.equal(skipped.status, 200, JSON.stringify(skipped.body));
    assert.match(skipped.body.data.markdown, /Served over TLS\./);
    const checked = await scrape({ url: `${tls.url}/page`, skipTlsVerification: false });
    assert.equal(checked.status, 500, JSON.stringify(checked.body));
    assert.equal(checked.body.code, 'SCRAPE_SSL_ERROR');
    assert.match(checked.body.error, /self-signed certificate/);
  });
});
