import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppShell } from '../../src/scrape/render/needs-render.ts';

const prose =
  'Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge, then summed for the dates wanted, which is why a table can be printed a year ahead and still miss what the weather adds.';

describe('isAppShell', () => {
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
