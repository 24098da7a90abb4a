/**
 * Scores the `product` format's evidence path (src/enrich/product/product.ts) on real pages: the
 * pages of the modern main-content corpus whose schema.org Product markup gives a reference
 * (title, price, currency, availability), each read again with every piece of markup removed
 * (JSON-LD, microdata, RDFa, Open Graph), so only the page's own evidence is left. The corpus's
 * other pages, with their markup removed too, count the pages wrongly taken for a product.
 * Runs Quire's pipeline in this process (parseDocument, as the conversion worker does):
 *
 *   node bench/product/score.ts            # prints the table
 *   node bench/product/score.ts --write    # also writes bench/product/RESULTS.md
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Product } from '../../src/enrich/product/product.ts';
import { parseOptionsSchema } from '../../src/options/parse-options.ts';
import { parseDocument } from '../../src/pipeline/parse-document.ts';

const corpus = path.resolve(import.meta.dirname, '../../../shared/corpus/maincontent-modern');
const pages = fs
  .readFileSync(path.join(corpus, 'pages.tsv'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => line.split('\t') as [string, string, string]);

async function product(html: string, url: string): Promise<{ product: Product | null; evidence: boolean }> {
  const options = { ...parseOptionsSchema.parse({}), formats: [{ type: 'product' as const }] };
  const data = await parseDocument({
    bytes: Buffer.from(html),
    filename: 'page.html',
    contentType: 'text/html',
    format: 'html',
    options,
    warnings: [],
    origin: { sourceURL: url, url, statusCode: 200, contentType: 'text/html' },
  });
  return { product: data.product ?? null, evidence: /was read from its text/.test(data.warning ?? '') };
}

/** The page with its product markup taken out: what the evidence path must work from. */
function withoutMarkup(html: string): string {
  return html
    .replace(/<script[^>]*ld\+json[^>]*>[\s\S]*?<\/script>/gi, '')
    .replace(
      /\s(?:itemscope|itemtype|itemprop|itemid|typeof|vocab|property)(?:="[^"]*"|='[^']*'|=[^\s>]+)?/gi,
      '',
    )
    .replace(/<meta[^>]+(?:og:|product:)[^>]*>/gi, '');
}

const norm = (s: string | undefined) => (s ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
const first = (p: Product | null) => p?.variants.find((v) => v.price) ?? p?.variants[0];

interface Tally {
  pages: number;
  found: number;
  title: number;
  price: number;
  currency: number;
  availability: number;
}
const tally: Tally = { pages: 0, found: 0, title: 0, price: 0, currency: 0, availability: 0 };
let otherPages = 0;
let wronglyFound = 0;
const misses: string[] = [];

for (const [id, type, url] of pages) {
  const html = zlib.gunzipSync(fs.readFileSync(path.join(corpus, `${id}.html.gz`))).toString('utf8');
  const reference = await product(html, url);
  const stripped = await product(withoutMarkup(html), url);
  if (reference.product && !reference.evidence) {
    tally.pages++;
    const ref = reference.product;
    const got = stripped.product;
    if (!got) {
      misses.push(`| ${id} | ${type} | not found | ${ref.title.slice(0, 50)} |`);
      continue;
    }
    tally.found++;
    const [r, g] = [first(ref), first(got)];
    if (norm(ref.title) === norm(got.title)) tally.title++;
    if (r?.price && g?.price && Math.abs(r.price.amount - g.price.amount) < 0.005) tally.price++;
    if (r?.price?.currency && r.price.currency === g?.price?.currency) tally.currency++;
    if (r?.availability.inStock === g?.availability.inStock) tally.availability++;
    if (norm(ref.title) !== norm(got.title) || r?.price?.amount !== g?.price?.amount)
      misses.push(
        `| ${id} | ${type} | ${got.title.slice(0, 40)} / ${g?.price?.amount ?? '–'} | ${ref.title.slice(0, 40)} / ${r?.price?.amount ?? '–'} |`,
      );
  } else if (type !== 'product') {
    otherPages++;
    if (stripped.product) wronglyFound++;
  }
}

const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(0)}%`);
const lines = [
  '# product: the evidence path on real product pages',
  '',
  `Written by \`node bench/product/score.ts --write\`. The modern main-content corpus (a dev split) has ${tally.pages} pages whose schema.org Product markup Quire reads; that reading is the reference. Each page is read again with its JSON-LD, microdata, RDFa and Open Graph tags removed, so only the page's text and forms are left. Accuracy is over those pages; "found" is how many the evidence path took for a product at all.`,
  '',
  '| pages | found | title | price | currency | availability |',
  '| ---: | ---: | ---: | ---: | ---: | ---: |',
  `| ${tally.pages} | ${tally.found} (${pct(tally.found, tally.pages)}) | ${pct(tally.title, tally.pages)} | ${pct(tally.price, tally.pages)} | ${pct(tally.currency, tally.pages)} | ${pct(tally.availability, tally.pages)} |`,
  '',
  `Pages wrongly taken for a product: ${wronglyFound} of the corpus's ${otherPages} pages that are not product pages (markup removed from them too), ${pct(wronglyFound, otherPages)}.`,
  '',
  '## Misses and differences (evidence / reference)',
  '',
  '| page | type | evidence path | reference |',
  '| --- | --- | --- | --- |',
  ...(misses.length > 0 ? misses : ['| – | – | none | – |']),
  '',
];
const report = `${lines.join('\n')}\n`;
process.stdout.write(report);
if (process.argv.includes('--write')) fs.writeFileSync(path.join(import.meta.dirname, 'RESULTS.md'), report);
