import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { isAppShell } from '../../src/scrape/render/needs-render.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { onePage } from '../helpers/pdf.ts';
import { useServer } from '../helpers/server.ts';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A loopback web server: `hits` counts requests by path. */
async function site(
  host: string,
  routes: Record<string, Handler>,
): Promise<{ url: string; hits: Map<string, number>; server: http.Server }> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const route = (req.url ?? '/').split('?')[0]!;
    hits.set(route, (hits.get(route) ?? 0) + 1);
    const handler = routes[route];
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, hits, server };
}

const html =
  (body: string, head = '') =>
  (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Harbour</title>${head}</head><body>${body}</body></html>`);

const prose =
  'Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge, then summed for the dates wanted, which is why a table can be printed a year ahead and still miss what the weather adds.';

/** The width and height in a PNG's IHDR chunk, after checking its signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('isAppShell', firstPassOnly('a function alone, no server'), () => {
  const page = (body: string, contentType: string | undefined = 'text/html') => ({
    url: 'http://example.com/',
    status: 200,
    contentType,
    bytes: Buffer.from(body),
  });
  it('takes an empty root and a bundle, or a noscript asking for JavaScript, for an app shell', () => {
    assert.equal(
      isAppShell(page('<html><body><div id="root"></div><script src="/app.js"></script></body></html>')),
      true,
    );
    assert.equal(
      isAppShell(
        page(
          `<html><body><p>${prose}</p><noscript>You need to enable JavaScript to run this app.</noscript><script src="/a.js"></script></body></html>`,
        ),
      ),
      true,
    );
  });
  it('leaves pages with their text, pages without scripts, and documents alone', () => {
    assert.equal(
      isAppShell(page(`<html><body><p>${prose}</p><script src="/a.js"></script></body></html>`)),
      false,
    );
    assert.equal(isAppShell(page('<html><body><div id="root"></div></body></html>')), false);
    assert.equal(isAppShell(page('<script></script>', 'application/pdf')), false);
  });
});

/**
 * A browser at nice 10 on a machine loaded by other work takes tens of seconds to start and to
 * load a page (on an idle one, about a second): the requests' timeout and the tests' own are
 * generous so that they fail only on a wrong answer.
 */
const renderTimeout = 240_000;
const slow = { timeout: 280_000 };

describe('POST /v2/scrape rendered in a browser', () => {
  const server = useServer({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1' });
  let pages: Awaited<ReturnType<typeof site>>;
  // On another loopback address, which the allow-list does not name.
  let secret: Awaited<ReturnType<typeof site>>;

  before(async () => {
    secret = await site('127.0.0.2', {
      '/data': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' })
          .end('private'),
      '/': html(`<p>${prose}</p>`),
    });
    pages = await site('127.0.0.1', {
      // Content only after JavaScript, part of it fetched after load.
      '/app': html(`<div id="root"></div><script>
        document.getElementById('root').innerHTML = '<h1>Rendered harbour</h1>';
        fetch('/api/text').then((r) => r.text()).then((t) => {
          document.getElementById('root').insertAdjacentHTML('beforeend', '<p>' + t + '</p>');
        });
      </script>`),
      '/api/text': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`Fetched: ${prose}`),
      // Text already there (so a plain fetch suffices), and more written half a second after load.
      '/late': html(`<p>${prose}</p><script>
        setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Written late by a timer.</p>'), 500);
      </script>`),
      '/viewport': html(
        `<div id="w"></div><script>
        document.getElementById('w').textContent = 'Viewport width ' + innerWidth + ' px';
      </script>`,
        // Without it a phone lays the page out 980 px wide, as real phones do.
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
      ),
      '/form': html(
        `<h1>Form</h1><p id="out">Nothing clicked yet.</p><button id="go" onclick="document.getElementById('out').textContent = 'Clicked once.'">Go</button>`,
      ),
      '/leak': html(
        `<p>${prose}</p><p id="r"></p><img src="SECRET/data"><script>
        fetch('SECRET/data').then(() => 'reached', () => 'blocked').then((t) => { document.getElementById('r').textContent = 'Private address ' + t; });
      </script>`.replaceAll('SECRET', `http://127.0.0.2:${(secret.server.address() as AddressInfo).port}`),
      ),
      '/to-private': (_req, res) => res.writeHead(302, { location: `${secret.url}/` }).end(),
      '/doc.pdf': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'application/pdf' })
          .end(
            Buffer.from(
              onePage(
                'BT /F1 12 Tf 72 700 Td (A document is parsed, not rendered) Tj ET',
                '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>',
              ),
            ),
          ),
    });
  });
  after(async () => {
    pages.server.closeAllConnections();
    secret.server.closeAllConnections();
    await Promise.all([pages, secret].map((s) => new Promise((resolve) => s.server.close(resolve))));
  });

  async function scrape(body: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${server().url}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server().key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: renderTimeout, ...(body as object) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('renders an app shell: the content its scripts write and fetch comes back', slow, async () => {
    const { status, body } = await scrape({ url: `${pages.url}/app`, formats: ['markdown'] });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /# Rendered harbour/);
    assert.match(body.data.markdown, /Fetched: Tide tables are computed/);
    assert.equal(body.data.metadata.url, `${pages.url}/app`);
    assert.equal(body.data.metadata.statusCode, 200);
    assert.equal(body.data.metadata.contentType, 'text/html; charset=utf-8');
  });

  it(
    'waits waitFor milliseconds after load; without it a page with its text is fetched plainly',
    slow,
    async () => {
      const plain = await scrape({ url: `${pages.url}/late` });
      assert.equal(plain.status, 200);
      assert.doesNotMatch(plain.body.data.markdown, /Written late/);
      const waited = await scrape({ url: `${pages.url}/late`, waitFor: 1500 });
      assert.equal(waited.status, 200, JSON.stringify(waited.body));
      assert.match(waited.body.data.markdown, /Written late by a timer/);
    },
  );

  it('renders with a phone viewport for mobile', slow, async () => {
    const phone = await scrape({ url: `${pages.url}/viewport`, mobile: true });
    assert.equal(phone.status, 200, JSON.stringify(phone.body));
    assert.match(phone.body.data.markdown, /Viewport width 390 px/);
  });

  it(
    'runs actions: a click, screenshots and a PDF served by Quire, a JavaScript return and a scrape',
    slow,
    async () => {
      const { status, body } = await scrape({
        url: `${pages.url}/form`,
        formats: ['markdown', { type: 'screenshot', viewport: { width: 640, height: 480 } }],
        actions: [
          { type: 'click', selector: '#go' },
          { type: 'screenshot' },
          { type: 'executeJavascript', script: "document.getElementById('out').textContent.length * 2" },
          { type: 'scrape' },
          { type: 'pdf', format: 'A4' },
        ],
      });
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /Clicked once\./);
      assert.deepEqual(body.data.actions.javascriptReturns, [{ type: 'number', value: 26 }]);
      assert.equal(body.data.actions.scrapes.length, 1);
      assert.match(body.data.actions.scrapes[0].html, /Clicked once\./);
      const pdf = await fetch(body.data.actions.pdfs[0]);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.equal(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString('latin1'),
        '%PDF-',
      );
      const [shot] = body.data.actions.screenshots as string[];
      assert.ok(shot?.startsWith(`${server().url}/scrape/captures/`), shot);
      const actionPng = await fetch(shot!);
      assert.equal(actionPng.headers.get('content-type'), 'image/png');
      assert.deepEqual(pngSize(Buffer.from(await actionPng.arrayBuffer())), { width: 1280, height: 800 });
      const formatPng = await fetch(body.data.screenshot);
      assert.deepEqual(pngSize(Buffer.from(await formatPng.arrayBuffer())), { width: 640, height: 480 });
      assert.equal(
        (await fetch(`${server().url}/scrape/captures/00000000-0000-0000-0000-000000000000.png`)).status,
        404,
      );
    },
  );

  it(
    'gives data URLs under zero data retention, where nothing may be stored; desktop viewport by default',
    slow,
    async () => {
      const { status, body } = await scrape({
        url: `${pages.url}/viewport`,
        formats: ['markdown', 'screenshot'],
        zeroDataRetention: true,
      });
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /Viewport width 1280 px/);
      assert.match(body.data.screenshot, /^data:image\/png;base64,/);
      assert.deepEqual(pngSize(Buffer.from(body.data.screenshot.split(',')[1], 'base64')), {
        width: 1280,
        height: 800,
      });
    },
  );

  it(
    'refuses subresources and redirects to private addresses the allow-list does not name',
    slow,
    async () => {
      const { status, body } = await scrape({ url: `${pages.url}/leak`, waitFor: 1 });
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /Private address blocked/);
      assert.equal(secret.hits.get('/data'), undefined);
      const redirected = await scrape({ url: `${pages.url}/to-private`, mobile: true });
      assert.equal(redirected.status, 403, JSON.stringify(redirected.body));
      assert.match(redirected.body.error, /127\.0\.0\.2.*private, loopback or link-local/);
      assert.equal(secret.hits.get('/'), undefined);
    },
  );

  it('never renders a document: a PDF asked for with mobile is parsed as a PDF', slow, async () => {
    const { status, body } = await scrape({ url: `${pages.url}/doc.pdf`, mobile: true });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /A document is parsed, not rendered/);
    assert.equal(body.data.metadata.contentType, 'application/pdf');
  });

  it("works through the JS SDK's scrape() with a rendered page and a screenshot", slow, async () => {
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const doc = await client.scrape(`${pages.url}/app`, {
      formats: ['markdown', 'screenshot'],
      timeout: renderTimeout,
    });
    assert.match(doc.markdown ?? '', /Rendered harbour/);
    assert.ok(doc.screenshot?.startsWith(`${server().url}/scrape/captures/`));
  });
});
