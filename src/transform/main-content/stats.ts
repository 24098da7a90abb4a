import type { Element, Root, RootContent } from 'hast';

/** What the scoring needs to know about one element, summed over its subtree. */
export interface NodeStats {
  parent: Element | undefined;
  /** Position in document order (pre-order), to compare where two elements sit. */
  order: number;
  /** Position of its last descendant: its subtree is `order..end`. */
  end: number;
  /** Visible characters, whitespace not counted. */
  text: number;
  /** Of those, the characters inside links. */
  linkText: number;
  /** Commas (Latin and CJK): a sign of running prose rather than labels. */
  commas: number;
}

const COMMAS = /[,，、،]/g;
const SPACE = /\s/g;

function countMatches(value: string, re: RegExp): number {
  re.lastIndex = 0;
  let n = 0;
  while (re.exec(value)) n++;
  return n;
}

/**
 * One iterative post-order pass: per element, its text and link-text lengths and comma count,
 * summed bottom-up, with its parent and document position. Linear in the tree's size.
 */
export function collectStats(tree: Root): { stats: Map<Element, NodeStats>; page: NodeStats } {
  const stats = new Map<Element, NodeStats>();
  let order = 0;
  const fresh = (parent: Element | undefined): NodeStats => ({
    parent,
    order: order++,
    end: 0,
    text: 0,
    linkText: 0,
    commas: 0,
  });
  const page = fresh(undefined);
  const stack: Array<{ node: Root | Element; own: NodeStats; index: number; inLink: boolean }> = [
    { node: tree, own: page, index: 0, inLink: false },
  ];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const { own } = frame;
    const children: RootContent[] = frame.node.children;
    const child = children[frame.index++];
    if (child === undefined) {
      stack.pop();
      own.end = order - 1;
      const outer = stack[stack.length - 1];
      if (outer) {
        outer.own.text += own.text;
        outer.own.linkText += own.linkText;
        outer.own.commas += own.commas;
      }
      continue;
    }
    if (child.type === 'text') {
      const length = child.value.length - countMatches(child.value, SPACE);
      own.text += length;
      if (frame.inLink) own.linkText += length;
      own.commas += countMatches(child.value, COMMAS);
    } else if (child.type === 'dataTable') {
      // Generated tabular data is content through and through; its size stands in for its text.
      own.text += child.rowCount * child.columns * 8;
    } else if (child.type === 'element') {
      const childStats = fresh(frame.node.type === 'element' ? frame.node : undefined);
      stats.set(child, childStats);
      stack.push({ node: child, own: childStats, index: 0, inLink: frame.inLink || child.tagName === 'a' });
    }
  }
  return { stats, page };
}

export function linkDensity(s: NodeStats): number {
  return s.text === 0 ? 0 : s.linkText / s.text;
}

/** The element's ancestors, nearest first. */
export function ancestors(el: Element, stats: Map<Element, NodeStats>): Element[] {
  const out: Element[] = [];
  for (let a = stats.get(el)!.parent; a; a = stats.get(a)!.parent) out.push(a);
  return out;
}

/** Whether one element holds the other (or they are the same). */
export function related(a: Element, b: Element, stats: Map<Element, NodeStats>): boolean {
  const sa = stats.get(a)!;
  const sb = stats.get(b)!;
  return (sa.order <= sb.order && sb.order <= sa.end) || (sb.order <= sa.order && sa.order <= sb.end);
}
