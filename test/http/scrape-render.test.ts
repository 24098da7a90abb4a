import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { onePage } from '../helpers/pdf.ts';
import { appShell } from '../helpers/scrape-pages.ts';
import { Site } from '../helpers/site.ts';

/**
 * POST /v2/scrape rendered in a browser, in-process: the app starts its render browser (Debian's
 * Chromium, through the sessions' launch path) as a child of the test's process, as a server
 * process does. Screenshots and PDFs are read back through the app at the address it gives.
 */

const prose =
  'Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge, then summed for the dates wanted, which is why a table can be printed a year ahead and still miss what the weather adds.';

/** The width and height in a PNG's IHDR chunk, after checking its signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * A browser at nice 10 on a machine loaded by other work takes tens of seconds to start and to
 * load a page (on an idle one, about a second): the requests' timeout and the tests' own are
 * generous so that they fail only on a wrong answer.
 */
const renderTimeout = 240_000;
const slow = { timeout: 280_000 };
/** The host the requests name: captures are published under it. */
const host = 'quire.test';

describe('POST /v2/scrape rendered in a browser', () => {
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1' });
  const pages = new Site();
  // On another loopback address, which the allow-list does not name.
  const secret = new Site();

  before(async () => {
    await secret
      .serve('/data', 'text/plain', 'private', { 'access-control-allow-origin': '*' })
      .page('/', `<p>${prose}</p>`)
      .listen('127.0.0.2');
    await pages.listen();
    pages
      .serve(
        '/img/harbour-logo.svg',
        'image/svg+xml',
        '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#0B5FFF"/></svg>',
      )
      .serve(
        '/img/photo.svg',
        'image/svg+xml',
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300" fill="#ccc"/></svg>',
      )
      .page(
        '/brand',
        `<style>
          html, body { margin: 0; background: #FAFAF7; color: #1F2933; font: 18px/1.6 Georgia, serif; }
          header { height: 72px; padding: 0 16px; display: flex; align-items: center; background: #FAFAF7; }
          h1, h2 { font-family: Verdana, sans-serif; font-weight: 700; line-height: 1.2; }
          h1 { font-size: 40px; margin: 24px 0 16px; } h2 { font-size: 28px; margin: 16px 0 8px; }
          main { padding: 16px 32px; } p { margin: 0 0 16px; } section { padding: 32px 16px; margin: 0 0 24px; }
          a { color: #0B5FFF; }
          .btn { display: inline-block; padding: 8px 16px; border-radius: 6px; font-weight: 700; text-decoration: none; margin: 8px; }
          .btn-primary { background: #0B5FFF; color: #FFFFFF; border: 0; }
          .btn-outline { background: transparent; color: #E8590C; border: 2px solid #E8590C; }
          input { border: 1px solid #9AA5B1; border-radius: 4px; padding: 8px; }
          .error { color: #C92A2A; } code { font-family: "Courier New", monospace; }
        </style>`.replace(/\n\s*/g, ' ') +
          `<header><a href="/"><img class="site-logo" src="/img/harbour-logo.svg" alt="Harbour Lines" width="120" height="40"></a></header>
          <main><h1>Ferries to the islands</h1><p>${prose} Read <a href="/timetable">the timetable</a> or <a href="/fares">the fares</a>.</p>
          <h2>Book a crossing</h2><p>Crossings leave every morning; booking ahead is wise in summer. Use <code>HARBOUR10</code> for a discount.</p>
          <section><a class="btn btn-primary" href="/book">Book now</a><a class="btn btn-outline" href="/help">Get help</a>
          <input type="email" placeholder="Your email"><p class="error">That address does not look right.</p></section>
          <img src="/img/photo.svg" alt="The harbour at dawn" width="600" height="300"></main>`,
        '<meta property="og:site_name" content="Harbour Lines"><meta property="og:image" content="/og.png"><link rel="icon" href="/favicon.png">',
      )
      // Content only after JavaScript, part of it fetched after load.
      .page('/app', appShell)
      .serve('/api/text', 'text/plain', `Fetched: ${prose}`)
      // Text already there (so a plain fetch suffices), and more written half a second after load.
      .page(
        '/late',
        `<p>${prose}</p><script>
        setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Written late by a timer.</p>'), 500);
      </script>`,
      )
      .page(
        '/viewport',
        `<div id="w"></div><script>
        document.getElementById('w').textContent = 'Viewport width ' + innerWidth + ' px';
      </script>`,
        // Without it a phone lays the page out 980 px wide, as real phones do.
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
      )
      .page(
        '/form',
        `<h1>Form</h1><p id="out">Nothing clicked yet.</p><button id="go" onclick="document.getElementById('out').textContent = 'Clicked once.'">Go</button>`,
      )
      .page(
        '/leak',
        `<p>${prose}</p><p id="r"></p><img src="SECRET/data"><script>
        fetch('SECRET/data').then(() => 'reached', () => 'blocked').then((t) => { document.getElementById('r').textContent = 'Private address ' + t; });
      </script>`.replaceAll('SECRET', secret.url),
      )
      .redirect('/to-private', `${secret.url}/`)
      .serve(
        '/doc.pdf',
        'application/pdf',
        Buffer.from(
          onePage(
            'BT /F1 12 Tf 72 700 Td (A document is parsed, not rendered) Tj ET',
            '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>',
          ),
        ),
      );
  });
  after(async () => {
    await Promise.all([pages.close(), secret.close()]);
  });

  async function scrape(body: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const res = await app().fetch('/v2/scrape', {
      method: 'POST',
      headers: { host, authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: renderTimeout, ...(body as object) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  /** A capture the answer links to, read back through the app (no key: as upstream's storage URLs). */
  async function capture(url: string): Promise<Response> {
    assert.ok(url.startsWith(`http://${host}/scrape/captures/`), url);
    return app().fetch(new URL(url).pathname);
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

  it(
    "reads a page's branding from its computed styles: colours by role, type, controls, logo",
    slow,
    async () => {
      const { status, body } = await scrape({ url: `${pages.url}/brand`, formats: ['markdown', 'branding'] });
      assert.equal(status, 200, JSON.stringify(body));
      const b = body.data.branding;
      assert.equal(b.colorScheme, 'light');
      assert.equal(b.brandName, 'Harbour Lines');
      assert.deepEqual(
        [b.colors.primary, b.colors.background, b.colors.textPrimary, b.colors.link],
        ['#0B5FFF', '#FAFAF7', '#1F2933', '#0B5FFF'],
      );
      assert.equal(b.colors.secondary, '#E8590C');
      // No grey of its own for quieter text: the error message's red is not it.
      assert.equal(b.colors.textSecondary, null);
      assert.equal(b.colors.error, '#C92A2A');
      assert.deepEqual(b.typography.fontFamilies, {
        primary: 'Georgia',
        heading: 'Verdana',
        code: 'Courier New',
      });
      assert.deepEqual(b.typography.fontSizes, { h1: '40px', h2: '28px', h3: null, body: '18px' });
      assert.equal(b.typography.lineHeights.body, '1.6');
      assert.equal(b.typography.fontWeights.bold, 700);
      assert.deepEqual(b.components.buttonPrimary, {
        background: '#0B5FFF',
        textColor: '#FFFFFF',
        borderColor: null,
        borderRadius: '6px',
      });
      assert.deepEqual(b.components.buttonSecondary, {
        background: 'transparent',
        textColor: '#E8590C',
        borderColor: '#E8590C',
        borderRadius: '6px',
      });
      assert.equal(b.components.input.borderColor, '#9AA5B1');
      assert.equal(b.spacing.baseUnit, 8);
      assert.equal(b.spacing.padding.md, 16);
      assert.equal(b.logo, `${pages.url}/img/harbour-logo.svg`);
      assert.match(b.images.logoReason, /named a logo, in the header, links to the home page/);
      assert.equal(b.images.favicon, `${pages.url}/favicon.png`);
      assert.equal(b.images.ogImage, `${pages.url}/og.png`);
      assert.equal(b.layout.headerHeight, 72);
      assert.equal(b.personality, null);
      // After changeTracking's place and metadata, as the contract's data object lists it.
      assert.deepEqual(Object.keys(body.data), ['markdown', 'metadata', 'branding']);
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
      // Outputs, then the browser's captures, then metadata (the contract's data object).
      assert.deepEqual(Object.keys(body.data), ['markdown', 'screenshot', 'actions', 'metadata']);
      assert.deepEqual(body.data.actions.javascriptReturns, [{ type: 'number', value: 26 }]);
      assert.equal(body.data.actions.scrapes.length, 1);
      assert.match(body.data.actions.scrapes[0].html, /Clicked once\./);
      const pdf = await capture(body.data.actions.pdfs[0]);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.equal(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString('latin1'),
        '%PDF-',
      );
      const [shot] = body.data.actions.screenshots as string[];
      const actionPng = await capture(shot!);
      assert.equal(actionPng.headers.get('content-type'), 'image/png');
      assert.deepEqual(pngSize(Buffer.from(await actionPng.arrayBuffer())), { width: 1280, height: 800 });
      const formatPng = await capture(body.data.screenshot);
      assert.deepEqual(pngSize(Buffer.from(await formatPng.arrayBuffer())), { width: 640, height: 480 });
      assert.equal(
        (await app().fetch('/scrape/captures/00000000-0000-0000-0000-000000000000.png')).status,
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
});
