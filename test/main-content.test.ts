import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { corpusDir, corpusFile, parse, useServer } from './helpers/server.ts';

/** Words only, lower-cased: Markdown syntax and escapes do not hide a snippet. */
const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

interface Vectors {
  mustInclude: string[];
  mustNotInclude: string[];
}

function vectorsOf(name: string): Vectors {
  return JSON.parse(fs.readFileSync(path.join(corpusDir, 'maincontent', `${name}.vectors.json`), 'utf8'));
}

function assertVectors(markdown: string, vectors: Vectors): void {
  const text = ` ${words(markdown)} `;
  for (const snippet of vectors.mustInclude) assert.ok(text.includes(words(snippet)), `missing: ${snippet}`);
  for (const snippet of vectors.mustNotInclude)
    assert.ok(!text.includes(words(snippet)), `present: ${snippet}`);
}

const paragraph = (topic: string) =>
  `<p>This paragraph about ${topic} is running prose, with commas, clauses and full sentences, long enough to read as the body of a page. It ends properly.</p>`;

/** A shop's category page: many short, linked items and no article at all. */
const listing = `<!doctype html><html><head><title>Yoghurt</title></head><body>
  <header><nav class="menu"><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About us</a></nav></header>
  <main><h1>Yoghurt</h1><ul class="products">
  ${Array.from(
    { length: 12 },
    (_, i) =>
      `<li class="product"><a href="/p/${i}"><img src="/i/${i}.jpg" alt="Yoghurt ${i}"><h2>Yoghurt flavour ${i}</h2></a><span class="price">${i + 1},49 €</span></li>`,
  ).join('\n')}
  </ul></main>
  <footer class="footer"><p>Copyright Example Dairy, all rights reserved</p></footer></body></html>`;

/** A blog whose theme wraps the article itself in a "widget" container, beside real widgets. */
const widgetArticle = `<!doctype html><html><head><title>Widget blog</title></head><body>
  <nav><a href="/">Home</a> <a href="/archive">Archive</a></nav>
  <div class="layout">
    <div class="widget widget-content"><h1>Winter gardening</h1>
      ${['soil', 'frost', 'mulch', 'seeds', 'light'].map(paragraph).join('\n')}
    </div>
    <div class="widget widget-recent"><h3>Recent posts</h3><ul>
      <li><a href="/a">Spring pruning guide</a></li><li><a href="/b">Ten tomato tips</a></li><li><a href="/c">Our compost heap</a></li>
    </ul></div>
    <div class="widget newsletter"><p>Subscribe to our newsletter for weekly tips</p><form><input name="email"><button>Go</button></form></div>
  </div>
  <footer><p>Theme by Example Themes</p></footer></body></html>`;

describe('onlyMainContent on real pages', () => {
  const server = useServer();
  const markdownOf = async (file: { bytes: Uint8Array | string; filename: string }, options?: unknown) => {
    const { status, body } = await parse(server(), { file, options });
    assert.equal(status, 200, JSON.stringify(body));
    return body.data.markdown as string;
  };

  it('keeps a news article and drops its furniture', async () => {
    const name = 'trafilatura-bostonherald.com-brothel-catering.html';
    assertVectors(await markdownOf(corpusFile(`maincontent/${name}`)), vectorsOf(name));
  });

  it('keeps a documentation page, data tables of links included', async () => {
    const name = 'trafilatura-docs.docker.com.install.html';
    assertVectors(await markdownOf(corpusFile(`maincontent/${name}`)), vectorsOf(name));
  });

  it('keeps an article built from "widget" blocks (page builder)', async () => {
    const name = 'trafilatura-daheim-solar.de.batteriespeicher.html';
    assertVectors(await markdownOf(corpusFile(`maincontent/${name}`)), vectorsOf(name));
  });

  it('keeps an article inside a widget-class container, without the widgets beside it', async () => {
    const md = await markdownOf({ bytes: widgetArticle, filename: 'widget.html' });
    assert.match(md, /^# Winter gardening$/m);
    for (const topic of ['soil', 'frost', 'mulch', 'seeds', 'light'])
      assert.match(md, new RegExp(`about ${topic} is`));
    assert.doesNotMatch(md, /Spring pruning guide|Subscribe to our newsletter|Theme by|Archive/);
  });

  it('keeps every item of a listing page, where no container dominates', async () => {
    const md = await markdownOf({ bytes: listing, filename: 'listing.html' });
    for (let i = 0; i < 12; i++) assert.match(md, new RegExp(`Yoghurt flavour ${i}\\b`));
    assert.match(md, /12,49 €/);
    assert.doesNotMatch(md, /About us|all rights reserved/);
  });

  it('returns the whole page with onlyMainContent false', async () => {
    const md = await markdownOf(
      { bytes: widgetArticle, filename: 'widget.html' },
      { onlyMainContent: false },
    );
    assert.match(md, /Spring pruning guide/);
    assert.match(md, /Theme by Example Themes/);
  });
});
