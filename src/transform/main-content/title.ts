import type { Element } from 'hast';
import { hasOnlyInlineChildren } from './blocks.ts';
import type { NodeStats } from './stats.ts';
import { linkDensity } from './stats.ts';

/** A title is one line; longer "headings" are styled paragraphs. */
const MAX_TITLE_TEXT = 200;
/** Shorter text after the title is a dateline or a label, not a lead paragraph. */
const MIN_LEAD_TEXT = 25;

/**
 * The page's article title when it sits outside the chosen content: the last `h1` before the
 * content in document order (pages often put the title in a header above the body column),
 * unless it is a linked site logo. None when the content has its own `h1`.
 */
function findTitle(first: number, end: number, stats: Map<Element, NodeStats>): Element | undefined {
  let title: Element | undefined;
  for (const [el, s] of stats) {
    if (el.tagName !== 'h1' || s.text === 0 || s.text > MAX_TITLE_TEXT) continue;
    if (s.order >= first && s.order <= end) return undefined;
    if (s.order < first && linkDensity(s) < 0.5 && (!title || s.order > stats.get(title)!.order)) title = el;
  }
  return title;
}

/** Unlinked prose right after the title: the lead (standfirst) that news pages set apart. */
function isLead(el: Element, s: NodeStats): boolean {
  return (
    (el.tagName === 'p' || (el.tagName === 'div' && hasOnlyInlineChildren(el))) &&
    s.text >= MIN_LEAD_TEXT &&
    linkDensity(s) < 0.25
  );
}

/**
 * The title heading above the chosen content and the lead paragraphs that follow it, to be
 * kept in front of the content. Empty when the content carries its own title.
 */
export function titleBefore(nodes: Element[], stats: Map<Element, NodeStats>): Element[] {
  const first = stats.get(nodes[0]!)!.order;
  const title = findTitle(first, stats.get(nodes[nodes.length - 1]!)!.end, stats);
  if (!title) return [];
  const kept = [title];
  const parent = stats.get(title)!.parent;
  if (!parent) return kept;
  for (let i = parent.children.indexOf(title) + 1; i < parent.children.length; i++) {
    const sibling = parent.children[i]!;
    if (sibling.type !== 'element') continue;
    const s = stats.get(sibling)!;
    // Stop at the content itself, or at anything that is not a lead.
    if (s.end >= first || !isLead(sibling, s)) break;
    kept.push(sibling);
  }
  return kept;
}
