import type { Element } from 'hast';
import { hasOnlyInlineChildren } from './blocks.ts';
import { classList, FURNITURE_WEIGHT, hintWeight, isLandmark } from './hints.ts';
import type { NodeStats } from './stats.ts';
import { linkDensity } from './stats.ts';
import { isNonMain } from './upstream.ts';

/** Elements whose text counts as a paragraph of prose when long enough. */
const PARAGRAPH_TAGS = new Set(['p', 'pre', 'td']);
/** Containers that hold text in inline children only (old pages with `<br>` layout). */
const TEXT_CONTAINERS = new Set(['div', 'section', 'article', 'main', 'center', 'font', 'span']);

/** Elements that hold text but never the content as a whole. */
const NOT_CONTAINERS = new Set(['p', 'span', 'font', 'a', 'b', 'strong', 'em', 'i', 'small', 'label']);
/** Shorter text is a label, a caption or a button, not a paragraph. */
const MIN_PARAGRAPH_TEXT = 25;
/** How far up a paragraph's points travel, and how much they fade at each level. */
const SHARE_DIVIDERS = [1, 2, 6, 9, 12];

function tagBonus(tag: string): number {
  switch (tag) {
    case 'div':
    case 'article':
    case 'main':
      return 5;
    case 'section':
    case 'pre':
    case 'td':
    case 'blockquote':
      return 3;
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
    case 'form':
      return -3;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      return -5;
    default:
      return 0;
  }
}

/**
 * What an element says about itself before its text is counted: its tag, its class/id words,
 * whether it is a declared landmark, and whether upstream's list calls it furniture. Each is
 * one signal among several; a strong text score outweighs any of them.
 */
function priorScore(el: Element): number {
  let score = tagBonus(el.tagName) + hintWeight(el);
  if (isLandmark(el)) score += 25;
  if (isNonMain(el)) score -= 25;
  return score;
}

/**
 * Prose has a comma every few dozen characters at most; denser commas separate names or
 * keywords (author lists of references, tag lines), which are not running text.
 */
const MIN_CHARS_PER_COMMA = 40;

/** Points for one paragraph: longer, comma-rich prose counts more; linked text counts less. */
function paragraphPoints(s: NodeStats): number {
  const commas = Math.min(s.commas, 20, Math.ceil(s.text / MIN_CHARS_PER_COMMA));
  return (1 + commas + Math.min(3, Math.floor(s.text / 100))) * (1 - linkDensity(s));
}

function isParagraph(el: Element, s: NodeStats): boolean {
  if (s.text < MIN_PARAGRAPH_TEXT) return false;
  if (PARAGRAPH_TAGS.has(el.tagName)) return true;
  // Documentation, recipes and product pages put their prose in list items.
  if (el.tagName === 'li') return hasOnlyInlineChildren(el);
  return TEXT_CONTAINERS.has(el.tagName) && hasOnlyInlineChildren(el);
}

/**
 * Hidden when the page loads by its own inline style (`display: none`, `visibility: hidden`).
 * Not the `hidden` attribute: React's streamed pages send their content in `<div hidden>` for
 * a script to move into place.
 */
function isStyledHidden(el: Element): boolean {
  const style = el.properties.style;
  return (
    typeof style === 'string' && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i.test(style)
  );
}

/**
 * The hidden blocks that stand alone (a dialog, a pop-up's template, a store of strings for
 * scripts) and what they hold: they are no evidence of where the content is. Hidden blocks of
 * one class, two or more, are collapsed panels (accordions, tabs) that a click opens, often
 * the product's details: they still count.
 */
function loneHidden(stats: Map<Element, NodeStats>): Set<Element> {
  // Each block hidden by its style, with its class list (empty: a block of its own).
  const styled = new Map<Element, string>();
  const byClass = new Map<string, number>();
  for (const el of stats.keys()) {
    if (!isStyledHidden(el)) continue;
    const className = classList(el).join(' ');
    styled.set(el, className);
    if (className) byClass.set(className, (byClass.get(className) ?? 0) + 1);
  }
  const hidden = new Set<Element>();
  if (styled.size === 0) return hidden;
  for (const [el, s] of stats) {
    const className = styled.get(el);
    if ((s.parent && hidden.has(s.parent)) || (className !== undefined && (byClass.get(className) ?? 0) < 2))
      hidden.add(el);
  }
  return hidden;
}

export interface Scores {
  /** Candidate containers and their scores. */
  scores: Map<Element, number>;
  /** Per container, the points of all prose inside it that is not inside furniture. */
  prose: Map<Element, number>;
}

/**
 * Candidate containers and their scores: every paragraph gives its points to its ancestors,
 * fading with distance; a candidate's total plus its prior, scaled down by its link density
 * (navigation and teaser lists are mostly links).
 */
export function scoreCandidates(stats: Map<Element, NodeStats>): Scores {
  const raw = new Map<Element, number>();
  const prose = new Map<Element, number>();
  const furniture = new Map<Element, boolean>();
  const isFurniture = (el: Element): boolean => {
    const known = furniture.get(el);
    if (known !== undefined) return known;
    const verdict = hintWeight(el) <= FURNITURE_WEIGHT || isNonMain(el);
    furniture.set(el, verdict);
    return verdict;
  };
  const hidden = loneHidden(stats);
  const paragraphs = new Map<Element, number>();
  for (const [el, s] of stats) {
    // A hidden paragraph is no evidence of where the content is: what the page shows is.
    if (hidden.has(el) || !isParagraph(el, s)) continue;
    const points = paragraphPoints(s);
    paragraphs.set(el, points);
    // Furniture may win on its own text (an article in a "widget"), but its paragraphs do not
    // lift the containers around it.
    let ancestor = isFurniture(el) ? undefined : s.parent;
    for (let level = 0; ancestor && level < SHARE_DIVIDERS.length; ) {
      // Text inside a paragraph or an inline wrapper credits the block around it instead.
      if (!NOT_CONTAINERS.has(ancestor.tagName)) {
        raw.set(ancestor, (raw.get(ancestor) ?? priorScore(ancestor)) + points / SHARE_DIVIDERS[level]!);
        level++;
      }
      ancestor = isFurniture(ancestor) ? undefined : stats.get(ancestor)!.parent;
    }
  }
  // Prose totals, unfaded, stop at furniture likewise: prose in a comment section or sidebar
  // does not count for the containers around it. They are summed from the leaves up in one
  // pass (in reverse document order every element comes before its ancestors), so a deep
  // page costs no more than a wide one.
  const elements = [...stats.keys()];
  for (let k = elements.length - 1; k >= 0; k--) {
    const el = elements[k]!;
    const flow = (paragraphs.get(el) ?? 0) + (prose.get(el) ?? 0);
    const parent = stats.get(el)!.parent;
    if (flow > 0 && parent && !isFurniture(el)) prose.set(parent, (prose.get(parent) ?? 0) + flow);
  }
  const scores = new Map<Element, number>();
  for (const [el, score] of raw) scores.set(el, score * (1 - linkDensity(stats.get(el)!)));
  return { scores, prose };
}
