import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { type ConvertFile, convert } from '../helpers/convert.ts';
import { corpusDir, corpusFile } from '../helpers/server.ts';

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

const sentence = (topic: string) =>
  `Engineers spent the winter on the ${topic}, working in shifts, checking every joint, and reporting their progress to the city council each week.`;

/**
 * A news article with the furniture such pages carry: a share bar, a "read also" line and a
 * plain list of more links in the body, related stories and a newsletter prompt inside the
 * article element, the author's address, a comment section with real prose beside it, a
 * sidebar, a menu and a footer; and a list of sources that belongs to the text.
 */
const newsArticle = `<!doctype html><html lang="en"><head><title>Harbour bridge reopens | Daily Example</title></head><body>
<header class="site-header"><a class="logo" href="/">Daily Example</a>
  <nav class="menu"><a href="/world">World</a> <a href="/city">City desk</a> <a href="/sport">Sport</a></nav></header>
<div class="layout"><main>
  <article class="post">
   <h1>Harbour bridge reopens after repairs</h1>
   <p class="byline">By Jane Doe, 3 March 2024</p>
   <div class="share-bar"><a href="https://social.example/share">Share on Social</a> <a href="mailto:?body=x">Email this story</a></div>
   <div class="entry-content">
    <p>The harbour bridge opened again on Monday morning. ${sentence('cables')}</p>
    <p>Traffic was light at first, as drivers waited for official word. ${sentence('deck')} Details are on the <a href="/transport">transport page</a>.</p>
    <h2>What changed</h2>
    <ul><li>New steel cables replace the ones from 1962, tested under twice the usual load.</li>
        <li>The footpath is wider, with a separate lane for bicycles on the east side.</li></ul>
    <blockquote><p>We kept the old lamps, because people asked us to, and they light the river beautifully.</p></blockquote>
    <figure><img src="/img/bridge.jpg" alt="The bridge at dawn"><figcaption>The bridge at dawn, seen from the north pier.</figcaption></figure>
    <table><tr><th>Year</th><th>Vehicles per day</th></tr><tr><td>2019</td><td>41200</td></tr><tr><td>2023</td><td>38900</td></tr></table>
    <p>The control system logs each opening with a single call:</p>
    <pre><code>bridge.open({ span: "north", reason: "shipping" })</code></pre>
    <p class="read-also">Read also: <a href="/ferry">Ferry timetable changes for the spring season</a></p>
    <p>The council expects the last scaffolding to be gone by the end of the month. ${sentence('railings')}</p>
    <h2>Sources</h2>
    <ul><li>Council report, 2023: <a href="/report">Bridge works and costs</a></li>
        <li>Engineering survey, 2022: <a href="/survey">Cable fatigue findings</a></li>
        <li>Traffic office, 2024: <a href="/traffic">Crossings by month</a></li></ul>
    <h3>More from the city desk</h3>
    <ul><li><a href="/c1">Library extends its opening hours</a></li><li><a href="/c2">Parking fees to rise in April</a></li>
        <li><a href="/c3">Riverside park gets new benches</a></li></ul>
   </div>
   <address>Write to the author at jane.doe@example.com</address>
   <div class="related-posts"><h3>Related stories</h3><ul>
    <li><a href="/tunnel"><h4>Tunnel project delayed once more</h4></a><p>The second crossing will take longer, officials say.</p></li>
    <li><a href="/trams"><h4>Night trams return to the old town</h4></a><p>Service resumes after a two-year pause.</p></li>
    <li><a href="/port"><h4>Port expansion wins approval</h4></a><p>Container traffic is set to double by 2030.</p></li>
   </ul></div>
   <div class="newsletter-signup"><p>Get our morning briefing in your inbox, every weekday at seven.</p>
    <form><input type="email" name="email"><button>Sign me up</button></form></div>
  </article>
  <section id="comments" class="comments-area"><h2>3 comments</h2><ol class="comment-list">
    <li class="comment"><div class="comment-author">Sam</div><div class="comment-content"><p>Finally, after all these months of detours, I can cycle to work again without adding twenty minutes each way.</p></div></li>
    <li class="comment"><div class="comment-author">Ria</div><div class="comment-content"><p>The new lane is great, but the ramp on the south side is still far too steep for prams and wheelchairs.</p></div></li>
    <li class="comment"><div class="comment-author">Lee</div><div class="comment-content"><p>Good work by the crews, who kept going through the storms in January, which cannot have been easy.</p></div></li>
   </ol>
   <div id="respond"><h3>Leave a reply</h3><form><textarea name="comment"></textarea><button>Post comment</button></form></div>
  </section>
</main>
<aside class="sidebar"><h3>Most read</h3><ol><li><a href="/m1">Market hall to close for renovation</a></li><li><a href="/m2">New mayor sworn in</a></li></ol></aside>
</div>
<footer class="site-footer"><p>Copyright Daily Example, all rights reserved</p></footer></body></html>`;

const furniture = [
  'Daily Example',
  'City desk',
  'Share on Social',
  'Email this story',
  'Ferry timetable',
  'Related stories',
  'Tunnel project',
  'Night trams',
  'morning briefing',
  'Sign me up',
  '3 comments',
  'cycle to work',
  'ramp on the south side',
  'Leave a reply',
  'Most read',
  'Market hall',
  'More from the city desk',
  'Library extends',
  'Parking fees',
  'Write to the author',
];

/**
 * An article whose body ends with cards of more articles (a thumbnail, a title that is a link,
 * a line of summary), beside a directory of links that belongs to the text (titles that are
 * links, a line about each, no pictures).
 */
const teaserArticle = `<!doctype html><html><head><title>Rain gardens</title></head><body>
  <nav class="menu"><a href="/">Home</a> <a href="/guides">Guides</a></nav>
  <main><article><h1>Planting a rain garden</h1>
    ${['drainage', 'native plants', 'mulch', 'overflow', 'upkeep'].map(paragraph).join('\n')}
    <h2>Groups that help</h2>
    <div class="grid">${['Clearwater Trust', 'Brookside Volunteers', 'Green Streets Fund']
      .map(
        (name) =>
          `<div class="cell"><h4><a href="https://example.org/${name.length}">${name}</a></h4><p>${name} plants rain gardens with neighbours and lends tools for free.</p></div>`,
      )
      .join('')}</div>
    <h2>More guides</h2>
    <ul class="cards">${['Compost in a small yard', 'Saving seeds from tomatoes', 'Pruning old apple trees']
      .map(
        (title, i) =>
          `<li class="card"><a href="/g/${i}"><img src="/t/${i}.jpg" alt=""></a><p class="label">Guide</p><h3><a href="/g/${i}">${title}</a></h3><p>A short guide for beginners, with pictures and a checklist.</p></li>`,
      )
      .join('')}</ul>
  </article></main></body></html>`;

/**
 * A shop's product page that writes its feature list twice, once for narrow screens and once
 * for wide ones (CSS shows one of them), and clones its carousel's first slide at the end so
 * that it loops: the Markdown should hold each once.
 */
const featureLines = [
  'The shell is waxed cotton canvas, woven tightly enough to shed a light rain all afternoon.',
  'The frame is a single sheet of recycled polyethylene, stiff on the trail and light in the car.',
];
const features = (screen: string) =>
  `<div class="features features--${screen}"><h2>Features</h2><ul>${featureLines.map((line) => `<li>${line}</li>`).join('')}</ul></div>`;
const slides = [
  'Rolls down into its own lid pocket and fits under any airline seat, with room to spare for a jacket.',
  'Carries a laptop of up to sixteen inches in a padded sleeve that stays dry in a downpour.',
];
const productPage = `<!doctype html><html><head><title>Ridge 20 Daypack</title></head><body>
  <nav class="menu"><a href="/">Home</a> <a href="/packs">Packs</a></nav>
  <main><div class="product"><h1>Ridge 20 Daypack</h1><p class="price">89.00 €</p>
    ${['the fabric', 'the straps', 'the pockets'].map(paragraph).join('\n')}
    ${features('mobile')}${features('desktop')}
    <ul class="slides">${[...slides, slides[0]].map((text) => `<li class="slide"><p>${text}</p></li>`).join('')}</ul>
  </div></main>
  <footer class="footer"><p>Copyright Example Outdoor</p></footer></body></html>`;

/** Words of a Markdown text or a reference, lower-cased, Markdown syntax and link targets left out. */
const wordsOf = (s: string) =>
  words(s.replace(/!\[[^\]]*\]\([^)]*\)/g, ' ').replace(/\]\([^)]*\)/g, ' ')).split(' ');

/**
 * An article beside a hidden dialog with more prose than the article: a republishing policy for
 * scripts to show, as news sites keep in their sidebar. What a page hides until a script shows
 * it is no evidence of where its content is.
 */
const hiddenDialogPage = `<!doctype html><html><head><title>Growing garlic</title></head><body>
  <div class="site"><div class="column"><h1>Growing garlic</h1>
  ${['planting', 'spacing', 'watering'].map(paragraph).join('\n')}</div>
  <div class="sidebar-wrap"><div class="follow-us widget">
  <div id="republish-modal" style="display:none;" role="dialog" aria-modal="true">
  <div id="republish-content" style="display: none">
  ${['credit', 'links', 'images', 'edits', 'trackers', 'licences', 'syndication', 'contact'].map((t) => paragraph(`republishing ${t}`)).join('\n')}
  </div></div></div></div></div></body></html>`;

/**
 * A guide with one link whose text sits in spans (as site builders write every link), an author
 * box after the text, and a cookie bar beside it, as prose-like as a lead paragraph.
 */
const spannedLinkGuide = `<!doctype html><html><head><title>Tipping guide</title></head><body>
  <div class="wrap"><h1>Tipping guide</h1>
  <div class="copy">
  ${['customs', 'charges', 'groups', 'takeaway', 'deliveries'].map((t) => paragraph(`tipping ${t}`)).join('\n')}
  <p><span>Servers in many countries count on tips, so the </span><a href="/wages"><u><span>minimum wage rules for servers</span></u></a><span> matter when you decide.</span></p>
  <div class="author-box"><p>Sam Rivera has written about restaurants, hotels and travel for twenty years, and answers readers' questions every Friday.</p></div>
  </div>
  <div id="cookie-law-info-bar"><span>We use cookies on our website to give you the most relevant experience by remembering your preferences and repeat visits.</span></div>
  </div></body></html>`;

/**
 * The main-content extractor (README, Main content) on HTML pages through the conversion pipeline,
 * in the test's process: `onlyMainContent` is on by default, as for an upload.
 */
describe('onlyMainContent on real pages', () => {
  const markdownOf = async (file: ConvertFile, options?: unknown) => {
    const { markdown } = await convert(file, options);
    assert.equal(typeof markdown, 'string');
    return markdown!;
  };
  /** A page of the main-content corpus passes all its must-include and must-not-include snippets. */
  const passesCorpusPage = async (name: string) =>
    assertVectors(await markdownOf(corpusFile(`maincontent/${name}`)), vectorsOf(name));

  it('keeps a news article and drops its furniture', () =>
    passesCorpusPage('trafilatura-bostonherald.com-brothel-catering.html'));

  it('keeps a documentation page, data tables of links included', () =>
    passesCorpusPage('trafilatura-docs.docker.com.install.html'));

  it('keeps an article built from "widget" blocks (page builder)', () =>
    passesCorpusPage('trafilatura-daheim-solar.de.batteriespeicher.html'));

  it('keeps an article inside a widget-class container, without the widgets beside it', async () => {
    const md = await markdownOf({ bytes: widgetArticle, filename: 'widget.html' });
    assert.match(md, /^# Winter gardening$/m);
    for (const topic of ['soil', 'frost', 'mulch', 'seeds', 'light'])
      assert.match(md, new RegExp(`about ${topic} is`));
    assert.doesNotMatch(md, /Spring pruning guide|Subscribe to our newsletter|Theme by|Archive/);
  });

  it('keeps the article, not a hidden dialog holding more prose', async () => {
    const md = await markdownOf({ bytes: hiddenDialogPage, filename: 'dialog.html' });
    assert.match(md, /^# Growing garlic$/m);
    for (const topic of ['planting', 'spacing', 'watering'])
      assert.match(md, new RegExp(`about ${topic} is`));
    assert.doesNotMatch(md, /republishing/);
  });

  it('keeps the text of links written in spans, without the author box or the cookie bar', async () => {
    const md = await markdownOf({ bytes: spannedLinkGuide, filename: 'guide.html' });
    assert.match(md, /^# Tipping guide$/m);
    for (const topic of ['customs', 'deliveries']) assert.match(md, new RegExp(`about tipping ${topic} is`));
    assert.match(md, /the \[\*minimum wage rules for servers\*\]\(\S+\) matter when you decide/);
    assert.doesNotMatch(md, /We use cookies|Sam Rivera/);
  });

  it('drops cards of other pages (picture, linked title, summary) after an article, not a directory of links', async () => {
    const md = await markdownOf({ bytes: teaserArticle, filename: 'teasers.html' });
    assert.match(md, /^# Planting a rain garden$/m);
    assert.match(md, /about upkeep is running prose/);
    for (const name of ['Clearwater Trust', 'Brookside Volunteers', 'Green Streets Fund'])
      assert.match(md, new RegExp(`^#### \\[${name}\\]\\(`, 'm'));
    assert.match(md, /^## Groups that help$/m);
    assert.doesNotMatch(
      md,
      /More guides|Compost in a small yard|Saving seeds|Pruning old apple|for beginners/,
    );
  });

  // Real articles from the modern main-content set. The pages are third-party content kept as
  // local test data (corpus/maincontent-modern/SOURCES.md): the tests read a page and its
  // reference from the corpus and quote neither.
  const modernPage = (id: string) => {
    const page = path.join(corpusDir, 'maincontent-modern', `${id}.html.gz`);
    // A corpus page that is missing fails the test that needs it, never skips it.
    assert.ok(fs.existsSync(page), `${page} is missing from the corpus`);
    return page;
  };
  /** Quire's Markdown of a modern page, with the share of its words in the reference and back. */
  const againstReference = async (page: string) => {
    const md = await markdownOf({ bytes: zlib.gunzipSync(fs.readFileSync(page)), filename: 'page.html' });
    const reference = wordsOf(fs.readFileSync(page.replace(/\.gz$/, '.expected.txt'), 'utf8'));
    const output = wordsOf(md);
    const inReference = new Set(reference);
    const kept = new Set(output);
    return {
      md,
      recall: reference.filter((w) => kept.has(w)).length / reference.length,
      precision: output.filter((w) => inReference.has(w)).length / output.length,
    };
  };

  // An article whose body ends with cards of the site's other articles.
  it('keeps a real article without the cards of other articles after it', async () => {
    const { md, recall, precision } = await againstReference(modernPage('0254'));
    assert.ok(recall > 0.97, `recall ${recall}`);
    // The cards' titles are links under headings: none is left.
    assert.doesNotMatch(md, /^#+ \[/m);
    assert.ok(precision > 0.97, `precision ${precision}`);
  });

  // An article whose long intro stands before an embedded block (a site builder's "embed"
  // widget) that holds the rest of its text and wins alone; the intro used to go.
  it('keeps the intro of a real article before the embedded block holding the rest', async () => {
    const { recall, precision } = await againstReference(modernPage('0061'));
    assert.ok(recall > 0.97, `recall ${recall}`);
    assert.ok(precision > 0.97, `precision ${precision}`);
  });

  it("keeps one copy of a product page's blocks written twice (narrow and wide screens, carousel clones)", async () => {
    const md = await markdownOf({ bytes: productPage, filename: 'product.html' });
    assert.match(md, /^# Ridge 20 Daypack$/m);
    assert.match(md, /about the straps is running prose/);
    for (const text of [...featureLines, ...slides])
      assert.equal(md.split(text).length - 1, 1, `not once: ${text}`);
  });

  it('keeps every item of a listing page, where no container dominates', async () => {
    const md = await markdownOf({ bytes: listing, filename: 'listing.html' });
    for (let i = 0; i < 12; i++) assert.match(md, new RegExp(`Yoghurt flavour ${i}\\b`));
    assert.match(md, /12,49 €/);
    assert.doesNotMatch(md, /About us|all rights reserved/);
  });

  it('keeps an article with its title, byline and structure, without comments, related stories or prompts', async () => {
    const md = await markdownOf({ bytes: newsArticle, filename: 'news.html' });
    assert.match(md, /^# Harbour bridge reopens after repairs$/m);
    assert.match(md, /^By Jane Doe, 3 March 2024$/m);
    assert.match(md, /opened again on Monday morning\. Engineers spent the winter on the cables/);
    assert.match(md, /\[transport page\]\(https:\/\/uploads\.quire\.invalid\/transport\)/);
    assert.match(md, /^## What changed$/m);
    assert.match(md, /^- New steel cables replace the ones from 1962/m);
    assert.match(md, /^> We kept the old lamps/m);
    assert.match(md, /!\[The bridge at dawn\]\(https:\/\/uploads\.quire\.invalid\/img\/bridge\.jpg\)/);
    assert.match(md, /seen from the north pier/);
    assert.match(md, /^\| 2019 \| 41200 \|$/m);
    assert.match(md, /^```\nbridge\.open\(\{ span: "north", reason: "shipping" \}\)\n```$/m);
    assert.match(md, /last scaffolding to be gone by the end of the month/);
    // A list whose entries say where each link comes from is part of the text.
    assert.match(md, /^- Engineering survey, 2022: \[Cable fatigue findings\]\(/m);
    for (const text of furniture) assert.ok(!md.includes(text), `kept: ${text}`);
  });

  it('applies excludeTags and includeTags first, then keeps the main content of what is left', async () => {
    const excluded = await markdownOf(
      { bytes: newsArticle, filename: 'news.html' },
      { excludeTags: ['figure', '.byline', 'table'] },
    );
    assert.match(excluded, /^# Harbour bridge reopens after repairs$/m);
    assert.match(excluded, /last scaffolding/);
    assert.doesNotMatch(excluded, /Jane Doe|north pier|41200|cycle to work|Related stories/);

    // Only the article element: its own related stories and prompt still go.
    const article = await markdownOf(
      { bytes: newsArticle, filename: 'news.html' },
      { includeTags: ['article'] },
    );
    assert.match(article, /^# Harbour bridge reopens after repairs$/m);
    assert.match(article, /last scaffolding/);
    assert.doesNotMatch(article, /Tunnel project|morning briefing|cycle to work/);

    // Only the comments: then they are the page's main text, and are kept.
    const comments = await markdownOf(
      { bytes: newsArticle, filename: 'news.html' },
      { includeTags: ['#comments'] },
    );
    for (const text of ['cycle to work again', 'ramp on the south side', 'kept going through the storms'])
      assert.match(comments, new RegExp(text));
    assert.doesNotMatch(comments, /harbour bridge opened/);
  });

  it('keeps a forum thread, whose posts are named like comments', () =>
    passesCorpusPage('trafilatura-katzen-forum.net-pepe.html'));

  it("keeps a product page's description and delivery details", () =>
    passesCorpusPage('trafilatura-uniqz.de.katzendecke.html'));

  it('judges a block of 400,000 blank spans without stalling', async () => {
    // Looking for a copyright sign, the blank text before the first word was trimmed again at
    // every span: about a minute for this 5.6 MB page, past a request's default timeout.
    const page = `<!doctype html><html><body><article><h1>Blank spans</h1>
      ${['soil', 'frost', 'mulch', 'seeds', 'light'].map(paragraph).join('\n')}
      <div>${'<span> </span>'.repeat(400_000)}Last words</div></article></body></html>`;
    const md = await markdownOf({ bytes: page, filename: 'spans.html' });
    assert.match(md, /^# Blank spans$/m);
    assert.match(md, /about frost is running prose/);
    assert.match(md, /Last words/);
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
