import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { useApp } from '../helpers/app.ts';
import { adPage, adText, prose } from '../helpers/scrape-pages.ts';
import { useLoopbackSite } from '../helpers/sessions.ts';

// `blockAds` and consent popups: autoconsent's rule for CookieYes, a common WordPress CMP, on a
// page built as that rule expects. The app runs without the ad filter lists: consent handling
// needs none, parsing them would cost this file 6-10 s, and what a rendered scrape does without
// them is tested here too.
const bannerText = 'We value your privacy and use cookies to enhance your browsing experience';
const choiceText = 'Visitor chose necessary cookies only';

// As CookieYes does it: the reject button records the choice and hides the banner, which stays in the DOM.
const page = `<!doctype html><html><head><title>Harbour</title></head><body>
<h1>How tides are predicted</h1><p>${prose}</p><p id="choice"></p>
<div class="cky-consent-container" style="position:fixed;bottom:0;left:0;right:0;background:#fff">
  <div class="cky-consent-bar"><p>${bannerText}.</p>
    <button class="cky-btn" data-cky-tag="settings-button">Customise</button>
    <button class="cky-btn" data-cky-tag="reject-button">Reject All</button>
    <button class="cky-btn" data-cky-tag="accept-button">Accept All</button></div>
</div>
<script>
  const banner = document.querySelector('.cky-consent-container');
  banner.querySelector('[data-cky-tag=reject-button]').onclick = () => {
    document.cookie = 'cookieyes-consent=advertisement:no';
    document.getElementById('choice').textContent = '${choiceText}.';
    banner.style.display = 'none';
  };
</script>
</body></html>`;

describe('POST /v2/scrape with blockAds and a consent popup', () => {
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_FILTER_LISTS_DIR: '' });
  const site = useLoopbackSite(
    http.createServer((req, res) => {
      const body = req.url === '/page' ? page : req.url === '/ads' ? adPage : undefined;
      if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      else res.writeHead(404).end();
    }),
  );

  async function scrape(body: object): Promise<string> {
    const res = await app().fetch('/v2/scrape', {
      method: 'POST',
      headers: { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      // Rendered (waitFor), whole page (so that only blockAds decides what goes), not cached.
      // A browser on a loaded machine takes tens of seconds to start and load the page: the
      // default 30 s answered 408 there, so the deadline is generous and only a wrong answer fails.
      body: JSON.stringify({
        url: `${site()}/page`,
        waitFor: 100,
        timeout: 120_000,
        onlyMainContent: false,
        maxAge: 0,
        ...body,
      }),
    });
    const answer = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 200, JSON.stringify(answer));
    return answer.data.markdown;
  }

  it('the page imitates what the rule looks for', () => {
    const rules = JSON.parse(
      fs.readFileSync(fileURLToPath(import.meta.resolve('@duckduckgo/autoconsent/rules/rules.json')), 'utf8'),
    ) as { autoconsent: { name: string; detectCmp: unknown; optOut: unknown }[] };
    const rule = rules.autoconsent.find((r) => r.name === 'cookieyes');
    // Loudly, if an autoconsent update changes the rule: the cases below would prove nothing.
    assert.deepEqual(rule?.detectCmp, [{ exists: '.cky-consent-container' }]);
    assert.match(JSON.stringify(rule?.optOut), /\.cky-consent-container \[data-cky-tag=reject-button\]/);
  });

  it('opts out of the popup and removes the banner from a rendered page', { timeout: 150_000 }, async () => {
    const markdown = await scrape({});
    assert.match(markdown, /harmonic constituents/);
    assert.match(markdown, new RegExp(choiceText), 'the reject button was pressed');
    assert.doesNotMatch(markdown, new RegExp(bannerText));
  });

  it('leaves the popup alone with blockAds: false', { timeout: 150_000 }, async () => {
    const markdown = await scrape({ blockAds: false });
    assert.match(markdown, /harmonic constituents/);
    assert.match(markdown, new RegExp(bannerText));
    assert.doesNotMatch(markdown, new RegExp(choiceText));
  });

  it('without the lists, rendered scrapes still work, unfiltered, and say so once in the log', {
    timeout: 150_000,
  }, async () => {
    for (let i = 0; i < 2; i++) {
      const markdown = await scrape({ url: `${site()}/ads` });
      assert.match(markdown, new RegExp(adText));
    }
    const warnings =
      app()
        .output()
        .match(/no ad filter lists/g) ?? [];
    assert.equal(warnings.length, 1, app().output());
  });
});
