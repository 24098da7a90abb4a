/**
 * Scores PII redaction on the labelled set (bench/pii/docs): precision and recall per bucket,
 * for Quire's modes and for the npm libraries redact-pii and @openredaction/openredaction run on
 * the same text. Runs alone:
 *
 *   node bench/pii/score.ts            # prints the tables
 *   node bench/pii/score.ts --write    # also writes bench/pii/RESULTS.md
 *   node bench/pii/score.ts --errors   # lists misses and wrong spans
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { findPii } from '../../src/transform/pii/find-pii.ts';
import { loadNameFinder } from '../../src/transform/pii/names.ts';
import { allBuckets } from '../../src/transform/pii/settings.ts';
import type { PiiBucket, PiiSpan } from '../../src/transform/pii/spans.ts';
import { type LabelledDocument, type LabelledEntity, loadLabelledSet } from './labelled-set.ts';
import { precision, recall, scoreDocument, type Tally } from './metrics.ts';
import { compromiseSpans, openRedactionSpans, redactPiiSpans } from './peers.ts';
import { timeRedaction } from './speed.ts';

interface System {
  name: string;
  run: (text: string) => PiiSpan[];
}

const everything = new Set<PiiBucket>(allBuckets);
const names = await loadNameFinder();
const systems: System[] = [
  { name: 'Quire fast', run: (t) => findPii(t, 'fast', everything) },
  { name: 'Quire aggressive', run: (t) => findPii(t, 'aggressive', everything, names) },
  { name: 'redact-pii 3.4', run: redactPiiSpans },
  { name: 'openredaction 1.0', run: openRedactionSpans },
  { name: 'compromise 14 NER', run: compromiseSpans },
];

const docs = loadLabelledSet();
const showErrors = process.argv.includes('--errors');
const results = new Map<
  string,
  { tallies: Record<LabelledDocument['split'], Map<PiiBucket, Tally>>; ms: number }
>();

// Each system reads one document first, so that loading (metadata, lexicons) is not timed.
for (const system of systems) system.run(docs[0]!.text);

for (const system of systems) {
  const tallies = { dev: new Map<PiiBucket, Tally>(), dev2: new Map<PiiBucket, Tally>() };
  let ms = 0;
  for (const doc of docs) {
    const started = performance.now();
    const spans = system.run(doc.text);
    ms += performance.now() - started;
    // Both splits are in-sample (see labelled-set.ts), so the errors of both are shown.
    const errors = showErrors ? { missed: [] as LabelledEntity[], wrong: [] as PiiSpan[] } : undefined;
    scoreDocument(doc.text, doc.entities, spans, tallies[doc.split], errors);
    if (errors && system.name.startsWith('Quire')) {
      for (const e of errors.missed)
        console.log(`${system.name} ${doc.split}/${doc.id} MISSED ${e.bucket} ${JSON.stringify(e.text)}`);
      for (const s of errors.wrong)
        console.log(
          `${system.name} ${doc.split}/${doc.id} WRONG ${s.bucket} ${JSON.stringify(doc.text.slice(s.start, s.end))}`,
        );
    }
  }
  results.set(system.name, { tallies, ms });
}

const fmt = (x: number) => x.toFixed(2);
const countEntities = (split: LabelledDocument['split']) => {
  const n = new Map<PiiBucket, number>();
  for (const d of docs)
    if (d.split === split) for (const e of d.entities) n.set(e.bucket, (n.get(e.bucket) ?? 0) + 1);
  return n;
};

function table(split: LabelledDocument['split']): string {
  const counts = countEntities(split);
  const lines = [
    `| Bucket (entities) | ${systems.map((s) => s.name).join(' | ')} |`,
    `|---|${systems.map(() => '---').join('|')}|`,
  ];
  for (const bucket of allBuckets) {
    const cells = systems.map((s) => {
      const t = results.get(s.name)!.tallies[split].get(bucket);
      if (!t) return '–';
      // A system that redacted nothing in a bucket has no precision to speak of.
      return `${t.predicted === 0 ? '–' : fmt(precision(t))} / ${fmt(recall(t))}`;
    });
    lines.push(`| ${bucket} (${counts.get(bucket) ?? 0}) | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

const totalChars = docs.reduce((n, d) => n + d.text.length, 0);
const speed = systems.map((s) => `${s.name} ${fmt(results.get(s.name)!.ms)} ms`).join(', ');
const devCount = docs.filter((d) => d.split === 'dev').reduce((n, d) => n + d.entities.length, 0);
const dev2Count = docs.filter((d) => d.split === 'dev2').reduce((n, d) => n + d.entities.length, 0);
const report = `# PII redaction: labelled set scores

Precision / recall per bucket (see bench/pii/README.md for the set and how spans are scored).
Without a language model \`accurate\` runs \`aggressive\`, so it scores the same; with one, its quality is the
model's, and this set is not sent to a model here.

## Dev split (${docs.filter((d) => d.split === 'dev').length} documents, ${devCount} entities; looked at while writing the rules)

${table('dev')}

## Dev split 2 (${docs.filter((d) => d.split === 'dev2').length} documents, ${dev2Count} entities; in-sample: written before the rules, read while they were written)

${table('dev2')}

Time over all ${docs.length} documents (${totalChars} characters), after loading: ${speed}.

## Speed on 1 MB

Redaction alone (no conversion, no rendering) on a 1,000,000-character document tree made of the
set's text repeated, far denser in personal data than most documents; median of three runs:

${(await timeRedaction())
  .map((r) => `- ${r.mode}: ${fmt(r.ms)} ms wall clock, ${fmt(r.cpuMs)} ms CPU`)
  .join('\n')}
`;
console.log(report);
if (process.argv.includes('--write')) fs.writeFileSync(path.join(import.meta.dirname, 'RESULTS.md'), report);
