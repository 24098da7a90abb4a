import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ConvertFile, convert } from '../helpers/convert.ts';
import { corpusFile } from '../helpers/server.ts';

const wikipedia = corpusFile('html/markitdown-test_wikipedia.html');

const page = `<!doctype html><html lang="fr"><head>
  <meta charset="windows-1252"><title>Page d\xe9mo</title>
  <meta name="description" content="Une page de test"><meta name="keywords" content="a, b">
  <meta property="og:title" content="OG title"><meta property="og:locale:alternate" content="en_US">
  <meta property="og:locale:alternate" content="de_DE"><base href="https://example.org/docs/">
  <style>p{color:red}</style><script>var secret = 1;</script></head><body>
  <nav class="menu"><a href="/home">Home</a></nav>
  <header><p>Site header</p></header>
  <main><h1>Caf\xe9 r\xe9sum\xe9</h1>
    <p>Read <a href="guide.html">the guide</a> or <a href="https://other.example/x">elsewhere</a>.</p>
    <img src="small.png" srcset="small.png 100w, large.png 1600w, mid.png 800w" alt="A chart">
    <img src="data:image/png;base64,iVBORw0KGgo=" alt="inline pic">
    <table><tr><th>Name</th><th colspan="2">Scores</th></tr>
      <tr><td rowspan="2">Ann</td><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>
    <ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
    <ol start="4"><li>four</li><li>five</li></ol>
    <pre><code class="language-js">const x = 1;</code></pre>
    <dl><dt>Term</dt><dd>Definition</dd></dl>
    <div class="ad">Buy now</div><p class="keep">Kept paragraph</p>
  </main>
  <footer>Footer text</footer></body></html>`;
const pageBytes = Buffer.from(page, 'latin1');
const demo = { bytes: pageBytes, filename: 'demo.html' };

/** HTML uploads through the converter in this process; the envelope over HTTP: test/http/parse-uploads. */
describe('HTML conversion', () => {
  const call = async (options: unknown, file: ConvertFile = demo): Promise<Record<string, any>> =>
    convert(file, options);

  it('gives Markdown by default, and only Markdown', async () => {
    // `usage` is the conversion's bookkeeping, which the worker takes out of the answer.
    const { usage, ...data } = await call(undefined);
    assert.deepEqual(Object.keys(data).sort(), ['markdown', 'metadata']);
    const md: string = data.markdown;
    assert.match(md, /^# Café résumé$/m, 'decoded from the declared windows-1252');
    assert.match(
      md,
      /\[the guide\]\(https:\/\/example\.org\/docs\/guide\.html\)/,
      'relative link made absolute against <base>',
    );
    assert.match(md, /!\[A chart\]\(https:\/\/example\.org\/docs\/large\.png\)/, 'largest srcset candidate');
    assert.match(md, /!\[inline pic\]\(<Base64-Image-Removed>\)/);
    assert.match(md, /\| Name +\| Scores +\| Scores +\|/);
    assert.match(md, /\| Ann +\| 3 +\| 4 +\|/, 'rowspan content repeated into the covered cell');
    assert.match(md, /^- one\n {2}- nested\n- two$/m);
    assert.match(md, /^4\. four\n5\. five$/m);
    assert.match(md, /```js\nconst x = 1;\n```/);
    assert.match(md, /\*\*Term\*\*/);
    assert.doesNotMatch(md, /var secret|color:red/);
  });

  it('fills metadata from the page and the upload', async () => {
    const m = (await call(undefined)).metadata;
    assert.equal(m.title, 'Page démo');
    assert.equal(m.description, 'Une page de test');
    assert.equal(m.language, 'fr');
    assert.equal(m.keywords, 'a, b');
    assert.equal(m.ogTitle, 'OG title');
    assert.deepEqual(m.ogLocaleAlternate, ['en_US', 'de_DE']);
    assert.equal(m.sourceURL, 'demo.html');
    assert.equal(m.url, 'https://uploads.quire.invalid/demo.html');
    assert.equal(m.statusCode, 200);
    assert.match(m.contentType, /^text\/html/);
  });

  it('onlyMainContent drops navigation, header, footer and ads; false keeps them', async () => {
    const main = (await call({})).markdown;
    for (const gone of ['Site header', 'Footer text', 'Buy now', 'Home'])
      assert.ok(!main.includes(gone), gone);
    const whole = (await call({ onlyMainContent: false })).markdown;
    for (const kept of ['Site header', 'Footer text', 'Buy now', 'Kept paragraph'])
      assert.ok(whole.includes(kept), kept);
  });

  it('keeps main content on a real page and leaves the chrome out', async () => {
    const data = await call({ formats: ['markdown', 'links'] }, wikipedia);
    const md: string = data.markdown;
    assert.match(md, /Microsoft entered the operating system \(OS\) business in 1980/);
    assert.match(
      md,
      /Microsoft was founded by \[Bill Gates\]\(https:\/\/en\.wikipedia\.org\/wiki\/Bill_Gates/,
    );
    for (const gone of ['You are encouraged to create an account', '154 languages', 'move to sidebar'])
      assert.ok(!md.includes(gone), gone);
    assert.equal(data.metadata.title, 'Microsoft - Wikipedia');
    assert.ok(data.links.includes('https://en.wikipedia.org/wiki/Bill_Gates'));
    assert.ok(data.links.every((l: string) => /^(https?|mailto):/.test(l)));
  });

  it('falls back to the whole page when main-content removal leaves nothing', async () => {
    const file = {
      bytes: '<html><body><div class="sidebar"><p>Only text here</p></div></body></html>',
      filename: 'side.html',
    };
    assert.match((await call({}, file)).markdown, /Only text here/);
  });

  it('includeTags keeps only the matches; excludeTags removes them', async () => {
    const only = (await call({ includeTags: ['table', 'p.keep'] })).markdown;
    assert.match(only, /Kept paragraph/);
    assert.match(only, /\| Name/);
    assert.doesNotMatch(only, /Café résumé|the guide/);
    const without = (await call({ excludeTags: ['table', '.keep'] })).markdown;
    assert.doesNotMatch(without, /Kept paragraph|\| Name/);
    assert.match(without, /the guide/);
  });

  it('html is cleaned, rawHtml is untouched, links and images (inline ones too) are listed', async () => {
    const d = await call({
      formats: ['html', 'rawHtml', 'links', 'images'],
      removeBase64Images: true,
    });
    assert.equal(d.markdown, undefined);
    assert.doesNotMatch(d.html, /<script|<style|<head|<meta/);
    assert.match(d.html, /href="https:\/\/example\.org\/docs\/guide\.html"/);
    assert.equal(d.rawHtml, page);
    assert.deepEqual(d.links, ['https://example.org/docs/guide.html', 'https://other.example/x']);
    // removeBase64Images changes the Markdown only, as upstream.
    assert.deepEqual(d.images, ['https://example.org/docs/large.png', 'data:image/png;base64,iVBORw0KGgo=']);
  });

  it('removeBase64Images false keeps data images', async () => {
    const data = await call({ formats: ['markdown', 'images'], removeBase64Images: false });
    assert.match(data.markdown, /!\[inline pic\]\(data:image\/png;base64,iVBORw0KGgo=\)/);
    assert.ok(data.images.includes('data:image/png;base64,iVBORw0KGgo='));
  });

  it('splits inline elements and headings around the blocks they hold, so no two blocks join', async () => {
    // HTML lets <b>, <em> and <a> hold blocks, and a parser keeps an <h3> inside a <span> inside
    // an <h3>; Markdown has no such nesting. Each block stays a block, with its words apart and
    // its emphasis or heading level kept, and a broken page nesting headings 20 deep converts.
    const nested = `${'<h3><span>level '.repeat(20)}${'</span></h3>'.repeat(20)}`;
    const html = `<!doctype html><body><main>
      <p>Lead paragraph of the article, long enough to be the page's content.</p>
      <b>bold<div>in div</div>tail</b>
      <em><p>one</p><p>two</p></em>
      <h2>Title<ul><li>item</li></ul></h2>
      <h3>A <span>x<h3>B</h3>y</span> C</h3>
      ${nested}</main></body>`;
    const md: string = (
      await call(
        { formats: ['markdown'], onlyMainContent: false },
        { bytes: html, filename: 'blocks-inside.html' },
      )
    ).markdown;
    assert.match(md, /^\*\*bold\*\*\n\n\*\*in div\*\*\n\n\*\*tail\*\*$/m);
    assert.match(md, /^\*one\*\n\n\*two\*$/m);
    assert.match(md, /^## Title\n\n- item$/m);
    assert.match(md, /^### A x\n\n### B\n\n### y C$/m);
    assert.equal(md.match(/^### level$/gm)?.length, 20);
    assert.doesNotMatch(md, /boldin|onetwo|Title-|level ###/);
  });
});
