import type { Element, Root, RootContent } from 'hast';
import { hasContent, withoutNodes } from '../walk.ts';
import { classList } from './hints.ts';

/** Upstream's `onlyMainContent` selectors (firecrawl-behaviour.md §6), verbatim. */
const NON_MAIN_SELECTORS = [
  'header',
  'footer',
  'nav',
  'aside',
  '.header',
  '.top',
  '.navbar',
  '#header',
  '.footer',
  '.bottom',
  '#footer',
  '.sidebar',
  '.side',
  '.aside',
  '#sidebar',
  '.modal',
  '.popup',
  '#modal',
  '.overlay',
  '.ad',
  '.ads',
  '.advert',
  '#ad',
  '.lang-selector',
  '.language',
  '#language-selector',
  '.social',
  '.social-media',
  '.social-links',
  '#social',
  '.menu',
  '.navigation',
  '#nav',
  '.breadcrumbs',
  '#breadcrumbs',
  '.share',
  '#share',
  '.widget',
  '#widget',
  '.cookie',
  '#cookie',
  '.fc-decoration',
] as const;

/** The list is made of bare tag, class and id selectors, so it compiles to three sets. */
const tags = new Set<string>();
const classes = new Set<string>();
const ids = new Set<string>();
for (const selector of NON_MAIN_SELECTORS) {
  if (selector.startsWith('.')) classes.add(selector.slice(1));
  else if (selector.startsWith('#')) ids.add(selector.slice(1));
  else tags.add(selector);
}

/** Whether upstream's list names the element as page furniture. */
export function isNonMain(el: Element): boolean {
  if (tags.has(el.tagName)) return true;
  const id = el.properties.id;
  if (typeof id === 'string' && ids.has(id)) return true;
  for (const c of classList(el)) if (classes.has(c)) return true;
  return false;
}

/** Upstream keeps a non-main element that holds `#main` or swoogo event content. */
function isForcedMain(el: Element): boolean {
  if (el.properties.id === 'main') return true;
  for (const c of classList(el)) if (c.startsWith('swoogo-')) return true;
  return false;
}

/** Elements that are, or contain, forced main content. */
function protectedElements(tree: Root): Set<Element> {
  const marked = new Set<Element>();
  // path[i] is the ancestor at depth i of the node being looked at.
  const path: Element[] = [];
  const stack: Array<{ node: RootContent; depth: number }> = [];
  for (let i = tree.children.length - 1; i >= 0; i--) stack.push({ node: tree.children[i]!, depth: 0 });
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node.type !== 'element') continue;
    path.length = depth;
    path.push(node);
    if (isForcedMain(node)) {
      for (let i = path.length - 1; i >= 0 && !marked.has(path[i]!); i--) marked.add(path[i]!);
    }
    for (let i = node.children.length - 1; i >= 0; i--)
      stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  return marked;
}

/**
 * Upstream's approach: the page without headers, footers, navigation, sidebars, pop-ups, ads
 * and the like, keeping any that hold `#main` or swoogo content. When nothing would be left,
 * the tree is left whole, as upstream retries without the option. This is the fallback when
 * the evidence for one main container is weak: it keeps more rather than less.
 */
export function withoutPageFurniture(tree: Root): Root {
  const keep = protectedElements(tree);
  const doomed = new Set<RootContent>();
  const stack: RootContent[] = [...tree.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    if (isNonMain(node) && !keep.has(node)) {
      doomed.add(node);
      continue;
    }
    for (const child of node.children) stack.push(child);
  }
  if (doomed.size === 0 || !hasContent(tree, doomed)) return tree;
  return withoutNodes(tree, doomed);
}
