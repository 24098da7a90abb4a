import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import type { ByteReader } from './byte-reader.ts';

/**
 * Footnotes and endnotes ([MS-DOC] 2.8.x PlcffndRef/PlcffndTxt, PlcfendRef/PlcfendTxt): the
 * reference PLC gives each note's reference CP in the main text, the text PLC the CP range
 * of its text in the footnote (or endnote) part. References are labelled in reading order
 * and rendered in the model's footnote convention.
 */
export interface NoteRanges {
  /** Reference CP in the main text → [start, end) CPs of the note's text. */
  byRef: Map<number, [number, number]>;
}

function cps(table: ByteReader, plc: { fc: number; lcb: number }, count: number): number[] {
  const out: number[] = [];
  if (!table.has(plc.fc, count * 4)) return out;
  for (let i = 0; i < count; i++) out.push(table.u32(plc.fc + i * 4));
  return out;
}

/** Notes of one kind; `partStart` is the CP where their part begins. */
export function readNoteRanges(
  table: ByteReader,
  ref: { fc: number; lcb: number },
  txt: { fc: number; lcb: number },
  partStart: number,
  partEnd: number,
): NoteRanges {
  const byRef = new Map<number, [number, number]>();
  // PlcffndRef: n+1 CPs and n 2-byte FRDs; PlcffndTxt: n+2 CPs (the last one is extra).
  const n = ref.lcb >= 10 ? Math.floor((ref.lcb - 4) / 6) : 0;
  const refs = cps(table, ref, n);
  const starts = cps(table, txt, Math.floor(txt.lcb / 4));
  // Note texts follow each other; a range reaching back over an earlier one is damage.
  let previousEnd = partStart;
  for (let i = 0; i < refs.length && i + 1 < starts.length; i++) {
    const start = partStart + starts[i]!;
    const end = Math.min(partStart + starts[i + 1]!, partEnd);
    if (start < previousEnd || start >= end) continue;
    byRef.set(refs[i]!, [start, end]);
    previousEnd = end;
  }
  return { byRef };
}

export interface CollectedNote {
  label: string;
  range: [number, number];
}

/** Hands out labels and reference elements as the main text meets note references. */
export class NoteCollector {
  readonly notes: CollectedNote[] = [];
  private readonly ranges: Map<number, [number, number]>;

  constructor(parts: NoteRanges[]) {
    this.ranges = new Map(parts.flatMap((p) => [...p.byRef]));
  }

  has(cp: number): boolean {
    return this.ranges.has(cp);
  }

  ref(cp: number): Element {
    const label = String(this.notes.length + 1);
    const range = this.ranges.get(cp);
    if (range) this.notes.push({ label, range });
    return h('sup', [h('a', { href: `#fn-${label}`, id: `fnref-${label}`, dataFootnoteRef: true }, [label])]);
  }
}

/** The notes section at the end of the body. */
export function notesSection(notes: { label: string; blocks: ElementContent[] }[]): Element {
  return h('section', { dataFootnotes: true }, [
    h(
      'ol',
      notes.map((n) => h('li', { id: `fn-${n.label}` }, n.blocks)),
    ),
  ]);
}
