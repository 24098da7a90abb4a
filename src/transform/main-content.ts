import type { Element, ElementContent, Root } from 'hast';
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

/**
 * The page's text outside the elements upstream's list calls furniture. In document order a
 * parent comes before its children, so what lies inside furniture is known in one pass.
 */
function textWithoutFurniture(stats: Map<Element, NodeStats>, page: NodeStats): number {
  let text = page.text;
  const inside = new Set<Element>();
  for (const [el, s] of stats) {
    if (s.parent && inside.has(s.parent)) inside.add(el);
    else if (isNonMain(el)) {
      inside.add(el);
      text -= s.text;
    }
  }
  return text;
}

/**
 * `onlyMainContent`: the page's main content, chosen by evidence. Paragraphs score their
 * containers (text, commas, link density, class/id words, landmarks, upstream's furniture
 * list); the best container and its kindred siblings are kept, with the title heading above
 * them and the header between (deck, lead, byline), and cleaned of boilerplate inside. When no
 * container clearly holds the page's text, upstream's selector-list removal is used instead,
 * which keeps more.
 */
export function keepMainContent(tree: Root): Root {
  // The converter hands over the body's children: a body around them gives every block a
  // parent, so that blocks at the top level can be the content's siblings and ancestors.
  // (A web page's tree holds elements, text and comments only; the filter tells the compiler.)
  const children = tree.children.filter(
    (c): c is ElementContent => c.type !== 'doctype' && c.type !== 'dataTable',
  );
  const body: Element = { type: 'element', tagName: 'body', properties: {}, children };
  const { stats, page } = collectStats({ type: 'root', children: [body] });
  const scores = scoreCandidates(stats);
  const nodes = chooseContent(scores, stats);
  if (!nodes) return withoutPageFurniture(tree);
  let contentText = 0;
  for (const n of nodes) contentText += stats.get(n)!.text;
  const pageText = textWithoutFurniture(stats, page);
  // Too little text to tell content from furniture (Readability's threshold is the same).
  if (contentText < MIN_CONTENT_TEXT && pageText > contentText) return withoutPageFurniture(tree);

  const header = titleBefore(nodes, stats);
  const content: Root = { type: 'root', children: [...header, ...nodes] };
  const cleaned = withoutNodes(content, boilerplateIn(nodes, header, stats, scores.prose));
  return hasContent(cleaned) ? cleaned : withoutPageFurniture(tree);
}
