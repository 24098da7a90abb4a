/** Pages the scrape tests serve: their text is what the assertions look for. */

export const prose =
  'Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge, then summed for the dates wanted.';
export const adText = 'Huge discount on harbour cruises';

/** A page with an element EasyList hides by its class and an image it blocks by its path. */
export const adPage = `<!doctype html><html><head><title>Harbour</title></head><body>
<h1>How tides are predicted</h1><p>${prose}</p>
<div class="banner-ad">${adText}</div>
<p><img src="/banner-ad.gif" alt="Sponsored"></p>
<p><img src="/harbour-map.png" alt="Harbour map"></p>
</body></html>`;

/** A 1x1 PNG, for every image the page names. */
export const tinyPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/**
 * An article with navigation and a footer around it, and relative links: served behind a
 * redirect, it shows main content and links made absolute against the final URL.
 */
export const article = (extra = '') => `<!doctype html><html lang="en"><head><title>Tide tables</title>
<meta name="description" content="How tides are predicted"></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>How tides are predicted</h1>
<p>Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge. ${extra}</p>
<p>The constituents are then summed for the dates wanted, which is why a table can be printed a year ahead, and why it still misses what the weather adds. See <a href="constituents.html">the constituents</a> and <a href="../data/gauges.csv">the gauges</a>.</p>
</article></main><footer>© Harbour office</footer></body></html>`;

/** An app shell: its content only after JavaScript, part of it fetched (from /api/text) after load. */
export const appShell = `<div id="root"></div><script>
        document.getElementById('root').innerHTML = '<h1>Rendered harbour</h1>';
        fetch('/api/text').then((r) => r.text()).then((t) => {
          document.getElementById('root').insertAdjacentHTML('beforeend', '<p>' + t + '</p>');
        });
      </script>`;
