import type { Element, Root } from 'hast';
import { boilerplateIn } from './main-content/clean.ts';
import { scoreCandidates } from './main-content/scoring.ts';
import { chooseContent } from './main-content/select.ts';
import type { NodeStats } from './main-content/stats.ts';
import { collectStats } from './main-content/stats.ts';
import { titleBefore } from './main-content/title.ts';
import { isNonMain, withoutPageFurniture } from './main-content/upstream.ts';
import { hasContent, withoutNodes } from './walk.ts';

/** Content shorter than this (in visible characters) is too little to judge a page by. */
const MIN_CONTENT_TEXT = 500;

/** The page's text outside the elements upstream's list calls furniture. */
function textWithoutFurniture(stats: Map<Element, NodeStats>, page: NodeStats): number {
  let text = page.text;
  for (const [el, s] of stats) {
    if (!isNonMain(el)) continue;
    let nested = false;
    for (let a = s.parent; a && !nested; a = stats.get(a)!.parent) nested = isNonMain(a);
    if (!nested) text -= s.text;
  }
  return text;
}

/**
 * `onlyMainContent`: the page's main content, chosen by evidence. Paragraphs score their
 * containers (text, commas, link density, class/id words, landmarks, upstream's furniture
 * list); the best container and its kindred siblings are kept, with the title heading above
 * them, and cleaned of boilerplate inside. When no container clearly holds the page's text,
 * upstream's selector-list removal is used instead, which keeps more.
 */
export function keepMainContent(tree: Root): Root {
  const { stats, page } = collectStats(tree);
  const scores = scoreCandidates(stats);
  const nodes = chooseContent(scores, stats);
  if (!nodes) return withoutPageFurniture(tree);
  let contentText = 0;
  for (const n of nodes) contentText += stats.get(n)!.text;
  const pageText = textWithoutFurniture(stats, page);
  // Too little text to tell content from furniture (Readability's threshold is the same).
  if (contentText < MIN_CONTENT_TEXT && pageText > contentText) return withoutPageFurniture(tree);

  const content: Root = { type: 'root', children: [...titleBefore(nodes, stats), ...nodes] };
  const cleaned = withoutNodes(content, boilerplateIn(nodes, stats, scores.prose));
  return hasContent(cleaned) ? cleaned : withoutPageFurniture(tree);
}
