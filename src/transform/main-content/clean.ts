import type { Element, ElementContent, RootContent } from 'hast';
import { HEADING_TAGS } from './blocks.ts';
import { classList, FURNITURE_WEIGHT, hintWeight } from './hints.ts';
import type { NodeStats } from './stats.ts';
import { linkDensity, related } from './stats.ts';
import { isNonMain } from './upstream.ts';

/** Interactive and embedded parts: nothing to read in Markdown. */
const ALWAYS_DROPPED = new Set([
  'button',
  'input',
  'select',
  'textarea',
  'iframe',
  'object',
  'embed',
  'dialog',
]);
/** Containers that are judged on their own evidence before they are kept. */
const JUDGED = new Set([
  'form',
  'div',
  'section',
  'ul',
  'ol',
  'dl',
  'table',
  'aside',
  'header',
  'footer',
  'nav',
  'figure',
  'span',
  'p',
]);
/** Landmarks that are page furniture by their tag (upstream's list names them). */
const FURNITURE_TAGS = new Set(['header', 'footer', 'nav', 'aside']);
/** Unlinked text (a short paragraph) that keeps a block whose class upstream calls furniture. */
const MIN_NAMED_TEXT = 100;
/** Prose points (about two real paragraphs) that make a form part of the content. */
const MIN_FORM_PROSE = 6;
/** Above this share of the chosen content, a block is the content itself, whatever its name. */
const CONTENT_SHARE = 0.5;

function isHeadingBlock(el: Element, stats: Map<Element, NodeStats>): boolean {
  for (const child of el.children)
    if (child.type === 'element' && HEADING_TAGS.has(child.tagName)) return true;
  return stats.get(el)!.text > 0 && HEADING_TAGS.has(el.tagName);
}

/** The text of an element, in document order, up to its first link or, with `firstOnly`, its first words. */
function leadingText(el: Element, firstOnly: boolean): string {
  let text = '';
  const stack: ElementContent[] = [...el.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') {
      text += node.value;
      // The text so far was blank, so this node's words are its first (trimming all of it
      // again at every node would cost the square of a run of blank spans).
      if (firstOnly && node.value.trim() !== '') break;
    } else if (node.type === 'element') {
      if (node.tagName === 'a' && !firstOnly) break;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return text.trim();
}

/** A copyright line is longer than this only when it is prose about copyright. */
const MAX_COPYRIGHT_TEXT = 250;

/** Whether a picture sits anywhere inside the element. */
function holdsImage(el: Element): boolean {
  const stack = [el];
  while (stack.length > 0)
    for (const child of stack.pop()!.children) {
      if (child.type !== 'element') continue;
      if (child.tagName === 'img') return true;
      stack.push(child);
    }
  return false;
}

/**
 * A copyright notice ("© 2020 Example Inc. All rights reserved"): page furniture wherever it
 * sits, unless it is the credit of a picture it holds.
 */
function isCopyrightLine(el: Element, s: NodeStats): boolean {
  return (
    s.text < MAX_COPYRIGHT_TEXT &&
    /^(?:©|\(c\)\s|copyright\s)/i.test(leadingText(el, true)) &&
    !holdsImage(el)
  );
}

/**
 * A "Read also: <link>" line between paragraphs: short, mostly one link, which a label ending
 * in a colon introduces or, for a paragraph, which it starts with. A line that only ends in a
 * link is prose; a heading that is a link is a listing's item title.
 */
function isReadAlso(el: Element, s: NodeStats): boolean {
  if (linkDensity(s) <= 0.6 || s.text >= 250 || s.commas > 1) return false;
  const label = leadingText(el, false);
  return label.endsWith(':') || (label === '' && el.tagName === 'p');
}

/** Link density of a block that is nothing but a link. */
const ONLY_LINK = 0.9;
/** How many alike siblings make a run of items (ingredients, table-like rows, cards). */
const RUN_LENGTH = 3;

/** A block's tag and classes, when it has classes: blocks of one kind are alike. */
function kindOf(el: Element): string | undefined {
  const classes = classList(el);
  return classes.length === 0 ? undefined : `${el.tagName}.${classes.join('.')}`;
}

/** The kinds that recur in a group of siblings often enough to make a run of items. */
function runsIn(children: RootContent[]): Set<string> {
  const counts = new Map<string, number>();
  const runs = new Set<string>();
  for (const child of children) {
    if (child.type !== 'element') continue;
    const kind = kindOf(child);
    if (kind === undefined) continue;
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    if (n >= RUN_LENGTH) runs.add(kind);
  }
  return runs;
}

/** An unlinked paragraph this long is a sentence of the text, not a teaser's line. */
const MIN_SENTENCE_TEXT = 80;

/** Whether a paragraph of unlinked text sits inside the block: then it is not a mere link list. */
function holdsSentence(el: Element, stats: Map<Element, NodeStats>): boolean {
  const stack = [el];
  while (stack.length > 0)
    for (const child of stack.pop()!.children) {
      if (child.type !== 'element') continue;
      const s = stats.get(child)!;
      if (s.text < MIN_SENTENCE_TEXT) continue;
      if (child.tagName === 'p' && s.linkText === 0) return true;
      stack.push(child);
    }
  return false;
}

/** Entries a list needs before its entries' labels say what kind of list it is. */
const MIN_ANNOTATED_ENTRIES = 3;

/** Whether every entry of a list starts with words of its own before its first link. */
function isAnnotatedList(el: Element): boolean {
  let entries = 0;
  for (const child of el.children) {
    if (child.type !== 'element' || child.tagName !== 'li') continue;
    // A bullet or an arrow before the link is decoration, not a label.
    if (!/[\p{L}\p{N}]/u.test(leadingText(child, false))) return false;
    entries++;
  }
  return entries >= MIN_ANNOTATED_ENTRIES;
}

/** Unlinked text a teaser holds besides its linked title: a label and a line or two of summary. */
const MAX_TEASER_TEXT = 300;
/**
 * Elements a teaser holds at most: a card is a handful of blocks. The bound also keeps the
 * look inside each card short, so that nested blocks are not walked again at every level.
 */
const MAX_TEASER_ELEMENTS = 100;

/**
 * A teaser of another page: a card with a thumbnail, a heading that is a link (the other
 * page's title) and at most a short summary of its own.
 */
function isTeaser(el: Element, stats: Map<Element, NodeStats>): boolean {
  const s = stats.get(el)!;
  if (s.end - s.order > MAX_TEASER_ELEMENTS || s.text - s.linkText > MAX_TEASER_TEXT) return false;
  if (!holdsImage(el)) return false;
  const stack = [el];
  while (stack.length > 0)
    for (const child of stack.pop()!.children) {
      if (child.type !== 'element') continue;
      if (HEADING_TAGS.has(child.tagName)) {
        const h = stats.get(child)!;
        return h.text > 0 && linkDensity(h) >= ONLY_LINK;
      }
      stack.push(child);
    }
  return false;
}

/**
 * A run of teasers ("Related articles", "More from", course and product cards): a block whose
 * every child is a teaser, enough of them to make a run. Only cards whose titles are links
 * count (cards of a recipe or a feature grid have plain headings), and only cards with a
 * picture: a directory of links with a line about each has none.
 */
function isTeaserRun(el: Element, stats: Map<Element, NodeStats>): boolean {
  let items = 0;
  for (const child of el.children) {
    if (child.type !== 'element') continue;
    if (!isTeaser(child, stats)) return false;
    items++;
  }
  return items >= RUN_LENGTH;
}

/**
 * Share of the content's text above which its teaser runs are what the page is about (a
 * collection, a blog's front page), not cards after an article.
 */
const MAX_TEASER_SHARE = 0.25;

/** The outermost teaser runs inside the content. */
function teaserRunsIn(nodes: Element[], stats: Map<Element, NodeStats>): Set<Element> {
  const runs = new Set<Element>();
  const stack = [...nodes];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (isTeaserRun(el, stats)) runs.add(el);
    else for (const child of el.children) if (child.type === 'element') stack.push(child);
  }
  return runs;
}

/** Whether a block inside the content is boilerplate: a share bar, a comment section, a link list. */
function isBoilerplate(el: Element, s: NodeStats, context: Context, item: boolean): boolean {
  const { contentText, stats, lenient } = context;
  if (ALWAYS_DROPPED.has(el.tagName)) return true;
  // Contact details of the page's or the article's owner, not part of its text.
  if (el.tagName === 'address') return true;
  if (HEADING_TAGS.has(el.tagName)) return el.tagName !== 'h1' && isReadAlso(el, s);
  if (!JUDGED.has(el.tagName)) return false;
  if (s.text >= contentText * CONTENT_SHARE) return false;
  const density = linkDensity(s);
  const weight = hintWeight(el);
  // A header inside the article carries its title and byline; keep it unless it is a menu.
  if (el.tagName === 'header' && isHeadingBlock(el, stats)) return density > 0.5;
  // Upstream's class names ("widget", "share", "ad") are a verdict on the page around the
  // content; inside it, page builders name quote boxes and text blocks "widget": unlinked
  // text keeps them.
  if (isNonMain(el)) return FURNITURE_TAGS.has(el.tagName) || !(s.text >= MIN_NAMED_TEXT && density < 0.1);
  // Forms are comment boxes and search fields, unless (as on shop and ASP.NET pages) they wrap prose.
  if (el.tagName === 'form') return (context.prose.get(el) ?? 0) < MIN_FORM_PROSE;
  if (isCopyrightLine(el, s)) return true;
  if (el.tagName === 'p') return (weight < 0 && density > 0.3) || isReadAlso(el, s);
  if (weight <= FURNITURE_WEIGHT && !lenient) return true;
  // A table of links is a data table (platforms, downloads), not a menu.
  if (el.tagName === 'table') return false;
  // An item of a run of alike blocks (ingredients, table-like rows) is judged with the run,
  // and so is what it holds, unless it is nothing but a link (a button among text blocks).
  if (item && density < ONLY_LINK) return false;
  const list = el.tagName === 'ul' || el.tagName === 'ol';
  // A list whose entries each say something before their link (a date, a source) annotates
  // its links: press coverage, references, downloads.
  if (list && isAnnotatedList(el)) return false;
  if (context.teasers.has(el)) return true;
  // Link lists (related stories, tag clouds, pagination): mostly links, little prose.
  if (density > 0.5 && s.commas < 10) return !holdsSentence(el, stats);
  if (list && density > 0.35 && s.commas < 5) return true;
  return false;
}

/**
 * The boilerplate inside the chosen content, to be removed: blocks inside the content nodes,
 * and the header blocks themselves (what stands between the title and the content). Headings
 * that only introduce a removed block ("Related articles") go with it, and so do second copies
 * of blocks that stay.
 */
export function boilerplateIn(
  nodes: Element[],
  header: Element[],
  stats: Map<Element, NodeStats>,
  prose: Map<Element, number>,
): Set<RootContent> {
  let contentText = 0;
  for (const n of nodes) contentText += stats.get(n)!.text;
  const groups = [header, ...nodes.map((n) => n.children)];
  // Cards of other pages go when they are an appendix to the content, not when they are most of it.
  let teasers = teaserRunsIn(nodes, stats);
  let teaserText = 0;
  for (const run of teasers) teaserText += stats.get(run)!.text;
  if (teaserText > contentText * MAX_TEASER_SHARE) teasers = new Set();
  let doomed = findBoilerplate(groups, { contentText, stats, prose, lenient: false, teasers });
  let removed = 0;
  for (const n of doomed) if (n.type === 'element') removed += stats.get(n)!.text;
  // Class words alone would take most of the text away: on forums and Q&A pages the posts are
  // named "comment" and are the content. Trust only the structural evidence then.
  if (removed > contentText * CONTENT_SHARE)
    doomed = findBoilerplate(groups, { contentText, stats, prose, lenient: true, teasers });
  for (const el of repeatsIn(groups, stats, doomed)) doomed.add(el);
  return doomed;
}

/** An element's text without whitespace: two copies of one block read the same. */
function textKey(el: Element): string {
  let text = '';
  const stack: ElementContent[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') text += node.value;
    else if (node.type === 'element')
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return text.replace(/\s+/g, '');
}

/**
 * Second copies of a block the content already holds: shops and landing pages write the same
 * section once for narrow and once for wide screens, and carousels clone their slides, which
 * CSS and scripts hide but Markdown would print twice. Only the first copy that is kept stays.
 * Shorter blocks (prices, labels) may well say the same thing twice. Texts are compared only
 * between blocks of equal length that do not hold one another.
 */
function repeatsIn(
  groups: RootContent[][],
  stats: Map<Element, NodeStats>,
  doomed: Set<RootContent>,
): Element[] {
  const blocks: Element[] = [];
  const stack: RootContent[] = groups.flat().reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element' || doomed.has(node)) continue;
    if (stats.get(node)!.text >= MIN_SENTENCE_TEXT) blocks.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  const byLength = new Map<number, Element[]>();
  for (const el of blocks) {
    const length = stats.get(el)!.text;
    const sameLength = byLength.get(length);
    if (sameLength) sameLength.push(el);
    else byLength.set(length, [el]);
  }
  const repeats: Element[] = [];
  for (const sameLength of byLength.values()) {
    if (sameLength.length < 2) continue;
    const first = new Map<string, Element>();
    for (const el of sameLength) {
      const key = textKey(el);
      const earlier = first.get(key);
      if (earlier && !related(earlier, el, stats)) repeats.push(el);
      else if (!earlier) first.set(key, el);
    }
  }
  return repeats;
}

interface Context {
  contentText: number;
  stats: Map<Element, NodeStats>;
  prose: Map<Element, number>;
  /** Whether negative class/id words alone are not enough to remove a block. */
  lenient: boolean;
  /** Runs of teasers to remove: cards of other pages after the content. */
  teasers: Set<Element>;
}

/** Judges each group of sibling nodes, then the children of what it keeps. */
function findBoilerplate(groups: RootContent[][], context: Context): Set<RootContent> {
  const { stats } = context;
  const doomed = new Set<RootContent>();
  const stack = groups.map((children) => ({ children, inItem: false }));
  while (stack.length > 0) {
    const { children, inItem } = stack.pop()!;
    const runs = runsIn(children);
    // A heading goes with the blocks it introduces when they all go ("Related articles"),
    // never when something it introduces stays. The page's title (h1) always stays.
    let heading: Element | undefined;
    let removedSince = false;
    let keptSince = false;
    const closeSection = () => {
      if (heading && removedSince && !keptSince && stats.get(heading)!.text < 80) doomed.add(heading);
    };
    for (const child of children) {
      if (child.type !== 'element') {
        if (child.type === 'text' && child.value.trim() !== '') keptSince = true;
        continue;
      }
      const s = stats.get(child)!;
      const kind = kindOf(child);
      const item = inItem || (kind !== undefined && runs.has(kind));
      if (isBoilerplate(child, s, context, item)) {
        doomed.add(child);
        removedSince = true;
        continue;
      }
      if (HEADING_TAGS.has(child.tagName)) {
        closeSection();
        heading = child.tagName === 'h1' ? undefined : child;
        removedSince = false;
        keptSince = false;
      } else if (s.text > 0) keptSince = true;
      // What a link holds is the link's text, all of it linked: judged by link density, a span
      // in it would always look like a link list.
      if (child.tagName !== 'a') stack.push({ children: child.children, inItem: item });
    }
    closeSection();
  }
  return doomed;
}
