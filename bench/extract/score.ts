/**
 * Scores the offline `json` extraction (no language model) on the set in `cases/`: documents
 * with a schema and the JSON a careful reader would extract, field by field. Runs alone:
 *
 *   node bench/extract/score.ts            # prints the table and writes bench/extract/RESULTS.md
 *   node bench/extract/score.ts --errors   # also lists the wrong and missing fields, dev split only
 *
 * Each document goes through Quire's own pipeline in this process (format detection, conversion,
 * transforms, the enrich step's offline path), exactly as a parse without a configured model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { implementedFormats } from '../../src/convert/convertible.ts';
import { detectFormat } from '../../src/detect/detect.ts';
import { planEnrichment } from '../../src/enrich/plan.ts';
import { parseOptionsSchema } from '../../src/options/parse-options.ts';
import { parseDocument } from '../../src/pipeline/parse-document.ts';
import { compare, type Mismatch, type Tally } from './compare.ts';

const root = path.join(import.meta.dirname, 'cases');
const splits = ['dev', 'heldout'] as const;
const showErrors = process.argv.includes('--errors');
/** Formats a case's document may come in, the PDF (printed from `.src.html`) first. */
const EXTENSIONS = ['.pdf', '.html', '.md', '.csv'];

interface Case {
  name: string;
  split: (typeof splits)[number];
  category: string;
  file: string;
  schema: Record<string, unknown>;
  expected: unknown;
}

function loadCases(): Case[] {
  const cases: Case[] = [];
  for (const split of splits) {
    const dir = path.join(root, split);
    for (const entry of fs.readdirSync(dir).sort()) {
      if (!entry.endsWith('.case.json')) continue;
      const name = entry.slice(0, -'.case.json'.length);
      const file = EXTENSIONS.map((ext) => path.join(dir, name + ext)).find((f) => fs.existsSync(f));
      if (!file) throw new Error(`${split}/${name} has no document`);
      const spec = JSON.parse(fs.readFileSync(path.join(dir, entry), 'utf8'));
      cases.push({
        name,
        split,
        category: spec.category,
        file,
        schema: spec.schema,
        expected: spec.expected,
      });
    }
  }
  return cases;
}

async function extract(c: Case): Promise<{ json: unknown; ms: number }> {
  const bytes = new Uint8Array(fs.readFileSync(c.file));
  const filename = path.basename(c.file);
  const options = parseOptionsSchema.parse({ formats: [{ type: 'json', schema: c.schema }] });
  const { format } = detectFormat({ filename, contentType: undefined, bytes }, implementedFormats);
  const started = performance.now();
  const data = await parseDocument({
    bytes,
    filename,
    contentType: undefined,
    format,
    options,
    warnings: [],
    enrich: planEnrichment(options, undefined),
  });
  return { json: data.json, ms: performance.now() - started };
}

const empty = (): Tally => ({ expected: 0, produced: 0, correct: 0 });
const pct = (n: number, d: number) => (d === 0 ? '–' : (n / d).toFixed(2));

const cases = loadCases();
const bySplit = new Map<string, Tally>();
const byCategory = new Map<string, Tally>();
const perCase: { c: Case; tally: Tally; ms: number }[] = [];
for (const c of cases) {
  const { json, ms } = await extract(c);
  const tally = empty();
  const mismatches: Mismatch[] = [];
  compare(c.expected, json, tally, mismatches);
  perCase.push({ c, tally, ms });
  for (const [map, key] of [
    [bySplit, c.split],
    [byCategory, `${c.split}/${c.category}`],
  ] as const) {
    const t = map.get(key) ?? empty();
    t.expected += tally.expected;
    t.produced += tally.produced;
    t.correct += tally.correct;
    map.set(key, t);
  }
  // Errors are shown for the dev split alone: the held-out split is only ever scored.
  if (showErrors && c.split === 'dev' && mismatches.length > 0) {
    console.log(`\n${c.split}/${c.name}`);
    for (const m of mismatches)
      console.log(`  ${m.path}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual)}`);
  }
}

const row = (label: string, docs: number, t: Tally) =>
  `| ${label} | ${docs} | ${t.expected} | ${t.correct} | ${pct(t.correct, t.expected)} | ${pct(t.correct, t.produced)} |`;
const header = '| | documents | fields | right | accuracy | precision |\n|---|---|---|---|---|---|';
const splitRows = splits.map((s) =>
  row(s, cases.filter((c) => c.split === s).length, bySplit.get(s) ?? empty()),
);
const categoryRows = [...byCategory.keys()]
  .sort()
  .map((k) => row(k, cases.filter((c) => `${c.split}/${c.category}` === k).length, byCategory.get(k)!));
const caseRows = perCase.map(
  ({ c, tally, ms }) =>
    `| ${c.split}/${c.name} | ${path.extname(c.file).slice(1)} | ${tally.expected} | ${tally.correct} | ${tally.produced - tally.correct} | ${ms.toFixed(0)} |`,
);

const report = `# Offline json extraction

Written by \`node bench/extract/score.ts\`. The \`json\` format without a language model: values
extracted by the schema from the document's own labels, tables and sections (\`src/enrich/extract\`),
through Quire's whole pipeline in-process.

**The set**: ${cases.length} documents written for this bench (invoices, receipts, résumés, product
sheets, forms, tables; HTML, Markdown, CSV, and PDFs printed by Chromium from \`.src.html\`), each
with a JSON Schema and the JSON a careful reader would extract (\`cases/<split>/<name>.case.json\`).
What a document does not state is absent from the expected JSON; dates are ISO where the schema
says \`format: date\`. The held-out split was written before the extraction rules were tuned and
was never looked at while tuning: only its scores were read.

**Fields**: every leaf of the expected JSON (list positions included) is one field. *Accuracy* is
the share of expected fields the extraction got right (exact after normalising case, spaces,
dashes, quotes and trailing punctuation; numbers numerically); *precision* the share of the fields
it produced that are right (a value the document does not state, or at the wrong place, counts
against it).

${header}
${splitRows.join('\n')}

By category:

${header}
${categoryRows.join('\n')}

Per document (wrong = produced but not right; ms = the whole parse, conversion included):

| document | format | fields | right | wrong | ms |
|---|---|---|---|---|---|
${caseRows.join('\n')}
`;

console.log(`${header}\n${splitRows.join('\n')}`);
fs.writeFileSync(path.join(import.meta.dirname, 'RESULTS.md'), report);
