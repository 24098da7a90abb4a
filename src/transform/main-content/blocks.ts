import type { Element } from 'hast';

/** Elements that start a block of their own: a container holding one is not a paragraph. */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);

export const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Whether none of the element's children is a block: text laid out as one paragraph. */
export function hasOnlyInlineChildren(el: Element): boolean {
  for (const child of el.children)
    if (child.type === 'element' && BLOCK_TAGS.has(child.tagName)) return false;
  return true;
}
