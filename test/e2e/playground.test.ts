import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build-web.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { corpusDir, repoRoot, startServer, useServer } from '../helpers/server.ts';
import { launchViewerBrowser } from '../helpers/sessions.ts';

// The playground (/) and the API reference (/docs), driven in headless Chromium against a real
// Quire. Screenshots of the key states are kept for a person to look at.
const artifacts = path.join(repoRoot, 'test-artifacts/playground');
const docx = path.join(corpusDir, 'docx/markitdown-test.docx');
const htmlPage = path.join(corpusDir, 'html/markitdown-test_wikipedia.html');

/**
 * The page and /docs are served by the API process, and the requests the page makes are any
 * client's: the cluster's boundary behind them is what the SDK and contract files cross in the
 * cluster pass.
 */
const apiProcessOnly = firstPassOnly(
  'the page, /docs and their requests are the API process’s in both modes',
);

describe('playground and API reference in a browser', apiProcessOnly, () => {
  // Built first, so that the server below serves what the sources say now.
  before(async () => {
    await buildWeb();
    fs.rmSync(artifacts, { recursive: true, force: true });
    fs.mkdirSync(artifacts, { recursive: true });
  });
  // Sessions are admitted whatever the load of the machine the suite shares.
  const server = useServer({ QUIRE_SESSIONS_MIN_FREE_MB: '0', QUIRE_SESSIONS_MIN_FREE_DISK_MB: '0' });
  let browser: Browser;
  before(async () => {
    browser = await launchViewerBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  /** Requests the page made to any origin but Quire's: the pages must work offline. */
  const elsewhere: string[] = [];
  async function open(route: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    // Bounds for a machine the suite shares (a session's browser can take long to start), not speed claims.
    context.setDefaultTimeout(90_000);
    const origin = new URL(server().url).origin;
    await context.route('**/*', (request) => {
      if (new URL(request.request().url()).origin === origin) return request.continue();
      elsewhere.push(request.request().url());
      return request.abort();
    });
    const page = await context.newPage();
    await page.goto(`${server().url}${route}`);
    return page;
  }
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  async function useKey(page: Page, key: string) {
    await page.getByLabel('Key (kept in this browser').fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.locator('#key-state', { hasText: key.slice(-4) }).waitFor();
  }
  const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });

  it('serves / and its assets without a key, under a CSP that allows only Quire, while /v2 keeps its key', async () => {
    for (const route of ['/', '/playground/app.js', '/playground/style.css', '/docs', '/docs/openapi.json']) {
      const res = await fetch(`${server().url}${route}`);
      assert.equal(res.status, 200, route);
    }
    const page = await fetch(`${server().url}/`);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
    const again = await fetch(`${server().url}/`, {
      headers: { 'if-none-match': page.headers.get('etag')! },
    });
    assert.equal(again.status, 304);
    assert.equal((await fetch(`${server().url}/v2/interact`)).status, 401);
    assert.equal((await fetch(`${server().url}/v2/openapi.json`)).status, 401);
    const docs = (await (await fetch(`${server().url}/docs/openapi.json`)).json()) as unknown;
    assert.deepEqual(docs, JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('parses a dropped DOCX and a chosen HTML page: rendered Markdown, source, links, metadata and time', async () => {
    const page = await open('/');
    await useKey(page, server().key);
    // Dropped as a browser drops a file: a drop event whose DataTransfer holds it.
    const dropped = await page.evaluateHandle(
      ({ name, base64 }) => {
        // Runs in the page, whose DOM types the tests' tsconfig leaves out.
        const transfer = new (globalThis as any).DataTransfer();
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], name));
        return transfer;
      },
      { name: path.basename(docx), base64: fs.readFileSync(docx).toString('base64') },
    );
    await page.dispatchEvent('.drop', 'drop', { dataTransfer: dropped });
    await page.locator('#file-name', { hasText: 'markitdown-test.docx' }).waitFor();
    await page.getByRole('button', { name: 'Parse', exact: true }).click();
    const heading = page.locator('.rendered h1');
    await heading.waitFor();
    assert.equal(
      await heading.textContent(),
      'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation',
    );
    assert.match((await page.locator('#parse-status').textContent()) ?? '', /^HTTP 200 in \d+ ms$/);
    await shot(page, '01-docx-rendered');

    // Keyboard: the arrow key moves from the Rendered tab to the Markdown source.
    await tab(page, 'Rendered').focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await tab(page, 'Markdown').getAttribute('aria-selected'), 'true');
    assert.match((await page.getByRole('tabpanel').textContent()) ?? '', /^# AutoGen: Enabling/);

    await tab(page, 'Metadata').click();
    const metadata = page.getByRole('tabpanel');
    await metadata.getByText('sourceURL').waitFor();
    assert.match((await metadata.textContent()) ?? '', /sourceURLmarkitdown-test\.docx/);
    assert.match((await metadata.textContent()) ?? '', /authorAdam Fourney/);
    await shot(page, '02-docx-metadata');

    await page.locator('#file').setInputFiles(htmlPage);
    await page.getByRole('button', { name: 'Parse', exact: true }).click();
    await page.locator('#file-name', { hasText: 'markitdown-test_wikipedia.html' }).waitFor();
    await page.locator('#parse-status', { hasText: /^HTTP 200/ }).waitFor();
    await tab(page, 'Rendered').click();
    await page.locator('.rendered h1', { hasText: 'Microsoft' }).waitFor();
    await shot(page, '03-html-rendered');
    await tab(page, 'HTML').click();
    assert.match(
      (await page.getByRole('tabpanel').textContent()) ?? '',
      /^<h1[^>]*><span[^>]*>Microsoft<\/span><\/h1>/,
    );
    await tab(page, 'Links').click();
    assert.ok((await page.getByRole('tabpanel').locator('li').count()) > 100, 'the page has many links');
    await page.context().close();
    assert.deepEqual(
      elsewhere,
      [],
      'the page loads nothing from other hosts, not even the document’s images',
    );
  });

  it('names every control, and the keyboard reaches the key, the file and Parse in order', async () => {
    const page = await open('/');
    await page.getByRole('heading', { name: 'Parse a document' }).waitFor();
    const unnamed = await page.locator('input, select, textarea, button').evaluateAll((controls) =>
      controls
        .filter((c) => {
          const labels = (c as unknown as { labels: ArrayLike<{ textContent: string | null }> | null })
            .labels;
          const named = labels && Array.from(labels).some((l) => l.textContent?.trim());
          return !named && !c.getAttribute('aria-label') && !c.textContent?.trim();
        })
        .map((c) => c.outerHTML),
    );
    assert.deepEqual(unnamed, []);
    const reached: string[] = [];
    for (let i = 0; i < 40 && !reached.includes('Parse'); i++) {
      await page.keyboard.press('Tab');
      reached.push(
        await page.locator(':focus').evaluate((el) => el.id || el.textContent?.trim() || el.tagName),
      );
    }
    const order = ['api-key', 'file', 'Parse'].map((name) => reached.indexOf(name));
    assert.ok(
      order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!)),
      reached.join(', '),
    );
    await page.context().close();
  });

  it('shows the error answer when the key is wrong', async () => {
    const page = await open('/');
    await useKey(page, 'not-a-key');
    await page.locator('#file').setInputFiles(htmlPage);
    await page.getByRole('button', { name: 'Parse', exact: true }).click();
    const error = page.locator('#parse-error[role="alert"]');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /HTTP 401: Unauthorized: Invalid token/);
    // The sessions panel, which lists with the same key, says so too.
    await page.locator('#sessions-error', { hasText: 'HTTP 401: Unauthorized: Invalid token' }).waitFor();
    await shot(page, '04-bad-key');
    await page.context().close();
  });

  it('starts a session, lists it, shows its live view, and ends it', async () => {
    const page = await open('/');
    await useKey(page, server().key);
    await page.getByRole('button', { name: 'New session' }).click();
    const row = page.locator('#sessions tr[data-session]', { hasText: 'active' });
    await row.waitFor();
    const id = (await row.getAttribute('data-session'))!;
    // The live view page in the iframe shows the first frame the browser streamed.
    const live = page.frameLocator('#live-view');
    await live.locator('body:not([data-frames="0"])').waitFor();
    await shot(page, '05-session-live');

    await page.getByRole('button', { name: `End ${id}` }).click();
    await page.locator(`#sessions tr[data-session="${id}"] .status-destroyed`).waitFor();
    await page.locator('#sessions-status', { hasText: `Session ${id} ended.` }).waitFor();
    assert.equal(await page.locator('#live-view').count(), 0);
    await shot(page, '06-session-ended');
    await page.context().close();
  });

  it('/docs renders every operation with its curl, JS SDK and Python SDK samples, offline', async () => {
    const page = await open('/docs');
    const problems: string[] = [];
    page.on('console', (message) => {
      // Redoc's footer shows its logo from its CDN: the CSP blocks it before any request leaves
      // (the route guard would see one), which is what should happen. Anything else is a problem.
      const blockedImage = /^Loading the image 'https:\/\/[^']+' violates .*"img-src 'self' data: blob:"/;
      if (message.type() === 'error' && !blockedImage.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    const parse = page.locator('[data-section-id="operation/parseFile"]');
    await parse.getByText('Upload a file and get its parsed content').first().waitFor();
    const operations = Object.values(buildOpenApiDocument().paths as Record<string, Record<string, unknown>>)
      .flatMap((item) => Object.values(item) as { operationId: string }[])
      .map((operation) => operation.operationId);
    for (const id of operations) {
      assert.equal(await page.locator(`[data-section-id="operation/${id}"]`).count(), 1, id);
    }
    await parse.getByRole('tab', { name: 'Python SDK' }).click();
    await parse.getByText('doc = firecrawl.parse("report.pdf")').waitFor();
    await parse.getByRole('tab', { name: 'JS SDK' }).click();
    await parse.getByText('await firecrawl.parse(').waitFor();
    await parse.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifacts, '07-docs-parse.png') });
    await page.context().close();
    assert.deepEqual(problems, [], 'Redoc runs under the CSP');
    assert.deepEqual(elsewhere, []);
  });
});

describe('QUIRE_PLAYGROUND=0', apiProcessOnly, () => {
  it('turns the playground off (404) and keeps /docs', async () => {
    const server = await startServer({ QUIRE_PLAYGROUND: '0' });
    try {
      assert.equal((await fetch(`${server.url}/`)).status, 404);
      assert.equal((await fetch(`${server.url}/playground/app.js`)).status, 404);
      assert.equal((await fetch(`${server.url}/docs`)).status, 200);
    } finally {
      await server.stop();
    }
  });
});
