import type { Root } from 'hast';
import { eachElement } from './walk-elements.ts';

const WANTED = /^(?:https?:\/\/|mailto:)/i;

/** Unique absolute http(s) and mailto link targets, in document order. */
export function collectLinks(tree: Root): string[] {
  const seen = new Set<string>();
  eachElement(tree, (el) => {
    if (el.tagName !== 'a' && el.tagName !== 'area') return;
    const href = el.properties.href;
    if (typeof href === 'string' && WANTED.test(href.trim())) seen.add(href.trim());
  });
  return [...seen];
}
