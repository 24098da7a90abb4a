import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import type { CharFormat } from './text-properties.ts';

/** A run of text with one format, before it is turned into elements. */
interface Run {
  run: string;
  format: CharFormat;
}

type Item = Run | ElementContent;

/** Formats that become elements, outermost first. */
const WRAPPERS: [tag: string, on: (f: CharFormat) => boolean][] = [
  ['strong', (f) => f.bold],
  ['em', (f) => f.italic],
  ['del', (f) => f.strike],
];

const isRun = (item: Item): item is Run => 'run' in item;
const blank = (item: Item): boolean => isRun(item) && item.run.trim() === '';

/**
 * Items → inline elements, grouping neighbouring runs that share a format under one wrapper,
 * so `ita` + struck `li` + `c` in italics reads `*ita~~li~~c*`, not three emphases.
 * Whitespace-only runs join the group around them but never start or end one.
 */
function group(items: Item[], level: number): ElementContent[] {
  const out: ElementContent[] = [];
  const wrapper = WRAPPERS[level];
  const text = (value: string): void => {
    const prev = out[out.length - 1];
    if (prev?.type === 'text') prev.value += value;
    else out.push({ type: 'text', value });
  };
  for (let i = 0; i < items.length; ) {
    const item = items[i]!;
    if (!isRun(item)) {
      out.push(item);
      i++;
      continue;
    }
    if (!wrapper || blank(item)) {
      text(item.run);
      i++;
      continue;
    }
    const on = wrapper[1](item.format);
    let end = i + 1;
    for (let j = i + 1; j < items.length; j++) {
      const next = items[j]!;
      if (!isRun(next)) break;
      if (blank(next)) continue;
      if (wrapper[1](next.format) !== on) break;
      end = j + 1;
    }
    const inner = group(items.slice(i, end), level + 1);
    if (on) out.push(h(wrapper[0], inner));
    else for (const node of inner) node.type === 'text' ? text(node.value) : out.push(node);
    i = end;
  }
  return out;
}

/** Accumulates a paragraph's inline content. */
export class InlineBuilder {
  private items: Item[] = [];

  /** Tracked deletions are dropped: the text shown is the document with its changes accepted. */
  text(s: string, format: CharFormat): void {
    if (format.deleted) return;
    const last = this.items[this.items.length - 1];
    if (last && isRun(last) && last.format === format) last.run += s;
    else this.items.push({ run: s, format });
  }

  node(node: ElementContent): void {
    this.items.push(node);
  }

  /** A position to wrap from later. */
  mark(): number {
    return this.items.length;
  }

  /** Wraps everything since `mark` into one element (a link's result). */
  wrapFrom(mark: number, wrap: (children: ElementContent[]) => Element): void {
    const items = this.items.splice(mark);
    if (items.length) this.items.push(wrap(group(items, 0)));
  }

  take(): ElementContent[] {
    const nodes = group(this.items, 0);
    this.items = [];
    return nodes;
  }
}
