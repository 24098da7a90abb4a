import type { Element } from 'hast';
import { hasOnlyInlineChildren } from './blocks.ts';
import { FURNITURE_WEIGHT, hintWeight } from './hints.ts';
import type { Scores } from './scoring.ts';
import type { NodeStats } from './stats.ts';
import { ancestors, linkDensity, related } from './stats.ts';

/**
 * A winner below this has about two short paragraphs of evidence: a pop-up or a teaser on a
 * page made of lists (shop categories, landing pages). Too weak to drop everything else.
 */
const MIN_TOP_SCORE = 20;
/** Alternatives this close to the winner are parts of the same content, split in columns. */
const CLOSE_RATIO = 0.75;
/** How many such parts under one ancestor make that ancestor the content. */
const CLOSE_PARTS = 3;
/** The share of the page's prose (outside furniture) the content must hold. */
const PROSE_SHARE = 0.75;
/**
 * An ancestor scoring this close to the winner holds content of its own beside it (the intro
 * before an embedded block). At 0.8 it was the teaser cards below an article that won.
 */
const NEAR_RATIO = 0.9;

const STRUCTURE_PARTS = new Set([
  'tr',
  'tbody',
  'thead',
  'tfoot',
  'th',
  'li',
  'dd',
  'dt',
  'ul',
  'ol',
  'dl',
  'caption',
]);
/** Below this much text a table cell is a cell, not a layout column holding the page. */
const MIN_LAYOUT_CELL_TEXT = 500;

function isStructurePart(el: Element, stats: Map<Element, NodeStats>): boolean {
  if (el.tagName === 'td') return stats.get(el)!.text < MIN_LAYOUT_CELL_TEXT;
  return STRUCTURE_PARTS.has(el.tagName);
}

/** A winner this many times ahead of any unrelated candidate is the content on its own. */
const DOMINANCE = 2;

/**
 * Whether no candidate outside the winner's own line (its ancestors and descendants) comes
 * close: then more prose elsewhere on the page is comments or teasers, not more content.
 */
function isDominant(
  top: Element,
  topScore: number,
  ranked: [Element, number][],
  stats: Map<Element, NodeStats>,
): boolean {
  for (const [el, score] of ranked) if (!related(el, top, stats)) return topScore >= score * DOMINANCE;
  return true;
}

/** Blocks of the winner's class that score less than this are teasers, not article parts. */
const MIN_TWIN_SCORE = 20;

/** Another block of the same tag and classes as the winner, outside its own line. */
function isTwin(el: Element, top: Element, stats: Map<Element, NodeStats>): boolean {
  const className = String(top.properties.className ?? '');
  return (
    className !== '' &&
    el.tagName === top.tagName &&
    String(el.properties.className ?? '') === className &&
    !related(el, top, stats)
  );
}

function isOnlyElementChild(el: Element, parent: Element): boolean {
  for (const child of parent.children) if (child.type === 'element' && child !== el) return false;
  return true;
}

/**
 * Plain prose beside the winner: a paragraph without many links, or, before the winner, a
 * short unlinked line (dateline, byline, subtitle). Short lines after it are tag lines and
 * "follow us" prompts.
 */
function isProseSibling(el: Element, s: NodeStats, before: boolean): boolean {
  // A lead or teaser paragraph is often a `div` of inline text beside the body.
  if (el.tagName !== 'p' && !(el.tagName === 'div' && hasOnlyInlineChildren(el))) return false;
  const density = linkDensity(s);
  if (s.text > 80) return density < 0.25;
  return before && density === 0 && s.text > 0;
}

/**
 * The main content, in document order: the best-scored container, moved up to a common
 * ancestor when several near-equal candidates share one, when its parent scores higher, when
 * it holds too little of the page's prose (not dominant, or an ancestor scores nearly as well),
 * when blocks of its class sit elsewhere, or when it is part of a table or list; then joined by
 * the siblings not named furniture that score well enough, share its class, or are plain
 * prose. None when the evidence is too weak or only the whole page holds the prose: the caller
 * then keeps more.
 */
export function chooseContent(
  { scores, prose }: Scores,
  stats: Map<Element, NodeStats>,
): Element[] | undefined {
  const ranked = [...scores].sort((a, b) => b[1] - a[1]);
  const best = ranked[0];
  if (!best || best[1] < MIN_TOP_SCORE) return undefined;
  let [top, topScore] = best;

  const close = ranked.slice(1, 6).filter(([, score]) => score >= topScore * CLOSE_RATIO);
  if (close.length >= CLOSE_PARTS) {
    const closeAncestors = close.map(([el]) => new Set(ancestors(el, stats)));
    for (const a of ancestors(top, stats)) {
      if (closeAncestors.filter((set) => set.has(a)).length >= CLOSE_PARTS) {
        top = a;
        topScore = Math.max(topScore, scores.get(a) ?? 0);
        break;
      }
    }
  }
  // A parent that scores higher holds more of the content than its child does.
  for (let parent = stats.get(top)!.parent; parent; parent = stats.get(parent)!.parent) {
    const score = scores.get(parent);
    if (score === undefined || score <= topScore) break;
    top = parent;
    topScore = score;
  }

  // Content split into sections (one block per paragraph group) leaves the winner holding
  // only part of the page's prose: climb to the nearest ancestor that holds most of it.
  const ancestorsOfTop = ancestors(top, stats);
  const body = ancestorsOfTop.find((a) => a.tagName === 'body') ?? ancestorsOfTop[ancestorsOfTop.length - 1];
  const pageProse = body ? (prose.get(body) ?? 0) : 0;
  const holdsMost = (el: Element) => (prose.get(el) ?? 0) >= pageProse * PROSE_SHARE;
  if (!holdsMost(top) && !isDominant(top, topScore, ranked, stats)) {
    const holder = ancestorsOfTop.find((a) => a === body || holdsMost(a));
    // Only the whole page holds most of its prose: no container is clearly the content.
    if (!holder || holder === body) return undefined;
    top = holder;
    topScore = Math.max(topScore, scores.get(holder) ?? 0);
  } else if (!holdsMost(top)) {
    // Dominant, yet short of most of the prose: an ancestor that scores nearly as well and
    // holds most of it is the content, the winner one part of it (an embedded block).
    const holder = ancestorsOfTop.find(
      (a) => a !== body && holdsMost(a) && (scores.get(a) ?? 0) >= topScore * NEAR_RATIO,
    );
    if (holder) top = holder;
  }

  // Articles cut by ads into several blocks of the same class: take their common ancestor.
  const twins = ranked.filter(
    ([el, score]) => score >= Math.max(MIN_TWIN_SCORE, topScore * 0.25) && isTwin(el, top, stats),
  );
  for (const [twin] of twins) {
    const common = ancestors(top, stats).find((a) => related(a, twin, stats));
    if (common && common.tagName !== 'body' && common.tagName !== 'html') top = common;
  }

  // Part of a table or a list is not a container of its own: take the whole structure.
  for (let a = stats.get(top)!.parent; a && isStructurePart(top, stats); a = stats.get(a)!.parent) top = a;

  // A wrapper around the winner alone adds nothing but hides its siblings: look past it.
  for (
    let p = stats.get(top)!.parent;
    p && p.tagName !== 'body' && isOnlyElementChild(top, p);
    p = stats.get(p)!.parent
  )
    top = p;

  const parent = stats.get(top)!.parent;
  if (!parent) return [top];
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = String(top.properties.className ?? '');
  const nodes: Element[] = [];
  let before = true;
  for (const sibling of parent.children) {
    if (sibling.type !== 'element') continue;
    if (sibling === top) {
      nodes.push(sibling);
      before = false;
      continue;
    }
    const s = stats.get(sibling)!;
    let score = scores.get(sibling) ?? 0;
    if (topClass !== '' && String(sibling.properties.className ?? '') === topClass) score += topScore * 0.2;
    // A sibling whose own class or id names it furniture (a cookie bar, a share row) stays out,
    // however much prose it holds.
    if (hintWeight(sibling) <= FURNITURE_WEIGHT) continue;
    if (score >= threshold || isProseSibling(sibling, s, before)) nodes.push(sibling);
  }
  return nodes;
}
