import type { Element } from 'hast';
import { hasOnlyInlineChildren } from './blocks.ts';
import type { NodeStats } from './stats.ts';
import { ancestors, linkDensity } from './stats.ts';

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

function elementChildren(el: Element): Element[] {
  return el.children.filter((c): c is Element => c.type === 'element');
}

/**
 * The blocks between the title and the content, in document order: the subtrees that start
 * after the title and end before the content, under their nearest common ancestor.
 */
function between(title: Element, content: Element, stats: Map<Element, NodeStats>): Element[] {
  const upFromTitle = [title, ...ancestors(title, stats)];
  const upFromContent = [content, ...ancestors(content, stats)];
  const common = upFromTitle.find((a) => upFromContent.includes(a));
  if (!common) return [];
  const titleSide = upFromTitle.slice(0, upFromTitle.indexOf(common));
  const contentSide = upFromContent.slice(0, upFromContent.indexOf(common)).reverse();
  const out: Element[] = [];
  // Below the common ancestor on the title's side, what follows the title's line.
  for (const node of titleSide.slice(0, -1)) {
    const siblings = elementChildren(stats.get(node)!.parent!);
    out.push(...siblings.slice(siblings.indexOf(node) + 1));
  }
  // Under the common ancestor, what lies between the two lines.
  const top = elementChildren(common);
  out.push(...top.slice(top.indexOf(titleSide[titleSide.length - 1]!) + 1, top.indexOf(contentSide[0]!)));
  // Below it on the content's side, what precedes the content's line.
  for (const node of contentSide.slice(1)) {
    const siblings = elementChildren(stats.get(node)!.parent!);
    out.push(...siblings.slice(0, siblings.indexOf(node)));
  }
  return out;
}

/** More text than this between the title and the content is a page region, not a header. */
const MAX_HEADER_TEXT = 1500;

/**
 * The title heading above the chosen content and what stands between them (deck, lead,
 * byline, dateline: the article's header, to be cleaned like the content), to be kept in
 * front of the content. When much text stands between them, the title is too far from the
 * content to vouch for it, and only the title and the lead paragraphs right after it are kept.
 * Empty when the content carries its own title.
 */
export function titleBefore(nodes: Element[], stats: Map<Element, NodeStats>): Element[] {
  const first = stats.get(nodes[0]!)!.order;
  const title = findTitle(first, stats.get(nodes[nodes.length - 1]!)!.end, stats);
  if (!title) return [];
  const header = between(title, nodes[0]!, stats);
  let headerText = 0;
  for (const el of header) headerText += stats.get(el)!.text;
  if (headerText <= MAX_HEADER_TEXT) return [title, ...header];
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
