/**
 * The branding format on real pages: the first ten pages of ../shared/corpus/maincontent-modern,
 * served on loopback and scraped by a Quire server with `branding` and a screenshot, rendered
 * offline (the pages' own stylesheets and fonts are what they hold inline; what they load from
 * the web does not arrive). Writes each page's branding JSON and screenshot to
 * bench/branding/pages/ and a table to bench/branding/RESULTS.md, for a person to compare the two.
 *
 * Usage: node bench/branding/render-corpus.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { quireSpec, startServer, stopServer } from '../load.ts';

/** The parts of the branding object the table shows. */
interface Branding {
  colorScheme: string;
  logo: string | null;
  colors: Record<string, string | null> | null;
  typography: { fontFamilies?: { primary?: string | null; heading?: string | null } } | null;
  components: { buttonPrimary?: { background?: string } | null } | null;
  images: { logoReason?: string | null } | null;
}

const corpus = path.resolve(import.meta.dirname, '../../../shared/corpus/maincontent-modern');
const out = path.join(import.meta.dirname, 'pages');
const apiKey = 'bench-branding';
const names = fs
  .readdirSync(corpus)
  .filter((f) => f.endsWith('.html.gz'))
  .sort()
  .slice(0, 10);

const site = http.createServer((req, res) => {
  const name = (req.url ?? '/').slice(1);
  if (!names.includes(`${name}.html.gz`)) return res.writeHead(404).end();
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(zlib.gunzipSync(fs.readFileSync(path.join(corpus, `${name}.html.gz`))));
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const server = await startServer(
  quireSpec(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-branding-')), apiKey, {
    QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
    QUIRE_SCRAPE_CAPTURES: 'data',
  }),
  60_000,
);
fs.mkdirSync(out, { recursive: true });
const rows: string[] = [];
try {
  for (const file of names) {
    const name = file.replace('.html.gz', '');
    const res = await fetch(`${server.base}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${base}/${name}`,
        formats: ['markdown', 'branding', { type: 'screenshot', quality: 40 }],
        timeout: 120_000,
      }),
    });
    const body = (await res.json()) as { data?: { branding?: Branding; screenshot?: string } };
    const b = body.data?.branding;
    if (!b) {
      rows.push(`| ${name} | ${res.status}: ${JSON.stringify(body).slice(0, 80)} | | | | |`);
      continue;
    }
    fs.writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(b, null, 2)}\n`);
    const shot = body.data?.screenshot ?? '';
    fs.writeFileSync(path.join(out, `${name}.jpg`), Buffer.from(shot.split(',')[1] ?? '', 'base64'));
    const c = b.colors ?? {};
    rows.push(
      `| ${name} | ${b.colorScheme} | ${[c.primary, c.secondary, c.background, c.textPrimary, c.link].map((v) => v ?? '–').join(' ')} | ${b.typography?.fontFamilies?.primary ?? '–'} / ${b.typography?.fontFamilies?.heading ?? '–'} | ${b.components?.buttonPrimary?.background ?? '–'} | ${b.logo ? (b.images?.logoReason ?? 'yes') : '–'} |`,
    );
  }
} finally {
  await stopServer(server);
  site.close();
}
fs.writeFileSync(
  path.join(import.meta.dirname, 'RESULTS.md'),
  `# branding on ten corpus pages, rendered offline

Written by \`node bench/branding/render-corpus.ts\`: the first ten pages of \`maincontent-modern\`, each page's JSON and screenshot (JPEG, the first screen) in \`pages/\`. Offline, a page has the styles it holds inline; the stylesheets and fonts it loads from the web do not arrive, so many fall back to the browser's defaults (Times, black on white), which is what the JSON then says.

| page | scheme | primary secondary background text link | body / heading font | primary button | logo (why) |
|---|---|---|---|---|---|
${rows.join('\n')}
`,
);
console.log(fs.readFileSync(path.join(import.meta.dirname, 'RESULTS.md'), 'utf8'));
