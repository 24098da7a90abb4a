import fs from 'node:fs';
import path from 'node:path';
import type { PiiBucket } from '../../src/transform/pii/spans.ts';

/** One labelled entity: where it is in the document's plain text, and its bucket. */
export interface LabelledEntity {
  start: number;
  end: number;
  bucket: PiiBucket;
  text: string;
}

export interface LabelledDocument {
  /** File name without extension, e.g. `01-invoice-uk`. */
  id: string;
  /**
   * Both splits are in-sample: `dev` was looked at while writing the rules; `dev2` was written
   * before them and first scored blind, but its strings were read while the rules were written.
   */
  split: 'dev' | 'dev2';
  text: string;
  entities: LabelledEntity[];
}

const docsDir = path.join(import.meta.dirname, 'docs');
const buckets = new Set<string>(['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET']);

/**
 * The set's documents are written with their labels inline, `⟦EMAIL|ann@example.com⟧`, which
 * keeps the labels readable and right where they apply; this strips them into offsets.
 */
export function parseLabelled(
  id: string,
  split: LabelledDocument['split'],
  source: string,
): LabelledDocument {
  let text = '';
  const entities: LabelledEntity[] = [];
  const mark = /⟦([A-Z]+)\|([^⟧]*)⟧/g;
  let last = 0;
  for (const m of source.matchAll(mark)) {
    const bucket = m[1]!;
    if (!buckets.has(bucket)) throw new Error(`${id}: unknown bucket ${bucket}`);
    text += source.slice(last, m.index);
    const value = m[2]!;
    entities.push({
      start: text.length,
      end: text.length + value.length,
      bucket: bucket as PiiBucket,
      text: value,
    });
    text += value;
    last = m.index + m[0].length;
  }
  text += source.slice(last);
  if (/[⟦⟧]/.test(text)) throw new Error(`${id}: unbalanced label brackets`);
  return { id, split, text, entities };
}

export function loadLabelledSet(): LabelledDocument[] {
  const out: LabelledDocument[] = [];
  for (const split of ['dev', 'dev2'] as const) {
    const dir = path.join(docsDir, split);
    for (const file of fs.readdirSync(dir).sort()) {
      if (!file.endsWith('.txt')) continue;
      out.push(
        parseLabelled(file.replace(/\.txt$/, ''), split, fs.readFileSync(path.join(dir, file), 'utf8')),
      );
    }
  }
  return out;
}
