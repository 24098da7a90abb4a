import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { convert } from '../helpers/convert.ts';
import { corpusDir } from '../helpers/server.ts';

const posts = [
  {
    author: 'marit',
    time: 'February 20, 2026, 4:55pm',
    html: '<p>Our ferry timetable app shows the summer schedule all year round, even after the autumn change.</p><p>Has anyone found a way to make it read the new timetable without reinstalling it?</p>',
    likes: '1 Like',
  },
  {
    author: 'olav',
    time: 'February 20, 2026, 5:07pm',
    html: '<aside class="quote no-group" data-username="marit"><div class="title">marit:</div><blockquote><p>without reinstalling it?</p></blockquote></aside><p>Clearing the app’s cache in the settings, then restarting it, made it fetch the new timetable for me.</p>',
    likes: '7 Likes',
  },
  {
    author: 'ingrid',
    time: 'February 20, 2026, 6:49pm',
    html: '<p>Same here. The cache holds the schedule until it expires, which the app sets far too late, so clearing it is the only way for now.</p>',
    likes: '',
  },
];

/**
 * A forum topic as Discourse serves it to a client without JavaScript (modelled on a real
 * one): a splash screen and the app's mount point outside `noscript`, and inside it the whole
 * crawler view: header, title, the posts as schema.org comments, related topics, footer.
 */
const discourse = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Ferry app keeps the summer timetable - Help - Harbour Forum</title>
<noscript><style>#d-splash { display: none; }</style></noscript>
<script defer src="/assets/start-discourse.js"></script></head>
<body class="">
  <section id="d-splash"><style>#d-splash { display: grid; }</style>
    <div class="preloader-image"><div class="dots" style="--n:-1;"></div><div class="dots" style="--n:0;"></div></div>
    <noscript><style>html { overflow-y: revert !important; }</style></noscript>
  </section>
  <discourse-assets><discourse-assets-json><div class="hidden" id="data-preloaded" data-preloaded="{}"></div></discourse-assets-json></discourse-assets>
  <noscript data-path="/t/ferry-app-keeps-the-summer-timetable/4242">
    <header><a href="/">Harbour Forum</a></header>
    <div id="main-outlet" class="wrap" role="main">
      <div id="topic-title"><h1><a href="/t/ferry-app-keeps-the-summer-timetable/4242">Ferry app keeps the summer timetable</a></h1>
        <div class="topic-category"><a href="/c/help/5" class="badge-wrapper bullet"><span class="category-name">Help</span></a></div></div>
      <div itemscope itemtype="http://schema.org/DiscussionForumPosting">
        ${posts
          .map(
            (
              post,
              i,
            ) => `<div id="post_${i + 1}" ${i > 0 ? 'itemprop="comment"' : ''} class="topic-body crawler-post">
          <div class="crawler-post-meta"><span class="creator" itemprop="author"><a itemprop="url" href="/u/${post.author}"><span itemprop="name">${post.author}</span></a></span>
            <span class="crawler-post-infos"><time class="post-time" datetime="2026-02-20T16:55:07Z">${post.time}</time>
              <span itemprop="position">${i + 1}</span></span></div>
          <div class="post" itemprop="text">${post.html}</div>
          <div itemprop="interactionStatistic"><span class="post-likes">${post.likes}</span></div>
        </div>`,
          )
          .join('\n')}
      </div>
      <div id="related-topics" class="more-topics__list" role="complementary"><h3>Related topics</h3>
        <table class="topic-list"><thead><tr><th>Topic</th><th>Replies</th><th>Views</th><th>Activity</th></tr></thead>
        <tbody><tr class="topic-list-item"><td class="main-link"><a href="/t/bus-app-crashes/17">Bus app crashes on start</a></td><td>3</td><td>120</td><td>January 14, 2026</td></tr></tbody></table></div>
    </div>
    <footer class="container wrap"><nav class="crawler-nav"><ul><li><a href="/">Home</a></li><li><a href="/categories">Categories</a></li><li><a href="/tos">Terms of Service</a></li></ul></nav>
      <p class="powered-by-link">Powered by <a href="https://www.discourse.org">Discourse</a>, best viewed with JavaScript enabled</p></footer>
  </noscript>
  <section id="main"></section>
  <form id="hidden-login-form" method="post" action="/login" style="display: none;"><input name="username" type="text"><input type="submit" value="Log In"></form>
</body></html>`;

/** Words only, lower-cased, so that Markdown syntax and escapes do not hide a sentence. */
const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The main-content extractor on pages whose text is in `noscript`, in the test's process. */
describe('pages whose text sits inside noscript', () => {
  async function markdownOf(html: string | Uint8Array, options: Record<string, unknown> = {}) {
    const { markdown } = await convert({ bytes: html, filename: 'topic.html' }, options);
    assert.equal(typeof markdown, 'string');
    return markdown!;
  }

  it('a Discourse topic saved without JavaScript gives its posts, not empty Markdown', async () => {
    const md = await markdownOf(discourse);
    const lines = md.split('\n').filter((line) => line.trim() !== '');
    for (const line of [
      'Our ferry timetable app shows the summer schedule all year round, even after the autumn change.',
      'Has anyone found a way to make it read the new timetable without reinstalling it?',
      'Clearing the app’s cache in the settings, then restarting it, made it fetch the new timetable for me.',
      'Same here. The cache holds the schedule until it expires, which the app sets far too late, so clearing it is the only way for now.',
    ])
      assert.ok(lines.includes(line), `missing line: ${line}\n---\n${md}`);
    // Furniture of the crawler view stays out, and nothing of the app shell (styles, the login form) shows.
    assert.doesNotMatch(md, /Terms of Service|Powered by|overflow-y|Log In/);
    // The whole page, too, is the crawler view.
    const whole = await markdownOf(discourse, { onlyMainContent: false });
    assert.match(whole, /^Same here\. The cache holds the schedule/m);
    assert.match(whole, /Terms of Service/);
  });

  it('noscript is still dropped on a page that shows its text without it', async () => {
    const md = await markdownOf(`<html><body>
      <noscript><img src="https://tracker.example/pixel.gif" alt="">Please enable JavaScript to use the comment form.</noscript>
      <article><h1>Tide tables</h1><p>High water at the north quay is at 06:12 and 18:40 today, and low water follows about six hours after each.</p>
      <p>Spring tides this week bring the highest water of the month, so the lower car park may flood on Thursday evening.</p></article>
    </body></html>`);
    assert.match(md, /^# Tide tables$/m);
    assert.doesNotMatch(md, /enable JavaScript|pixel/);
  });

  it('an app shell shows what a reader without JavaScript sees rather than nothing', async () => {
    const md = await markdownOf(
      '<html><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>',
    );
    assert.equal(md, 'You need to enable JavaScript to run this app.');
  });

  // A real Discourse topic from the modern main-content set. The pages are third-party content
  // kept as local test data (corpus/maincontent-modern/SOURCES.md): the test reads the page and
  // its reference from the corpus and quotes neither.
  const page = path.join(corpusDir, 'maincontent-modern', '0504.html.gz');
  it('a real Discourse topic keeps its reference text', async () => {
    assert.ok(fs.existsSync(page), `${page} is missing from the corpus`);
    const md = await markdownOf(zlib.gunzipSync(fs.readFileSync(page)));
    const kept = new Set(words(md).split(' '));
    const reference = words(fs.readFileSync(page.replace(/\.gz$/, '.expected.txt'), 'utf8')).split(' ');
    const found = reference.filter((word) => kept.has(word)).length;
    assert.ok(found / reference.length > 0.9, `${found} of ${reference.length} reference words kept`);
  });
});
