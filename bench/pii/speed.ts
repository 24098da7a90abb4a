/**
 * Time of redaction alone on a 1 MB document (the labelled set's text, repeated, as paragraphs
 * of a document tree: far denser in personal data than most documents), per mode, the median
 * of three runs after a first one that loads the detectors:
 *
 *   node bench/pii/speed.ts
 */
import { performance } from 'node:perf_hooks';
import type { Root } from 'hast';
import { h } from 'hastscript';
import { redactDocument } from '../../src/transform/pii/index.ts';
import { loadLabelledSet } from './labelled-set.ts';

const SIZE = 1_000_000;

/** A fresh tree each time: redaction writes into the tree it is given. */
function megabyteTree(): Root {
  const paragraphs: string[] = [];
  let chars = 0;
  while (chars < SIZE)
    for (const doc of loadLabelledSet())
      for (const block of doc.text.split(/\n{2,}/)) {
        paragraphs.push(block);
        chars += block.length;
      }
  return { type: 'root', children: paragraphs.map((p) => h('p', p)) };
}

export interface RedactionTime {
  mode: string;
  /** Wall-clock milliseconds, and CPU milliseconds of this process (steadier on a busy machine). */
  ms: number;
  cpuMs: number;
  chars: number;
}

export async function timeRedaction(): Promise<RedactionTime[]> {
  const out: RedactionTime[] = [];
  for (const mode of ['fast', 'aggressive'] as const) {
    await redactDocument(megabyteTree(), { mode, replaceStyle: 'tag' });
    const times: { ms: number; cpuMs: number }[] = [];
    for (let run = 0; run < 3; run++) {
      const tree = megabyteTree();
      const started = performance.now();
      const cpu = process.cpuUsage();
      await redactDocument(tree, { mode, replaceStyle: 'tag' });
      const used = process.cpuUsage(cpu);
      times.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
    }
    const median = times.sort((a, b) => a.ms - b.ms)[1]!;
    out.push({ mode, ...median, chars: SIZE });
  }
  return out;
}

if (import.meta.main) {
  for (const r of await timeRedaction())
    console.log(`${r.mode}: ${r.ms.toFixed(0)} ms (${r.cpuMs.toFixed(0)} ms CPU) for ${r.chars} characters`);
}
