import type { Element, Root, RootContent } from 'hast';
import { selectAll } from 'hast-util-select';
import { withoutNodes } from './walk.ts';

/**
 * `includeTags`: a new tree holding every element that matches one of the selectors,
 * in document order, inside one `div`. A match inside another match comes with its ancestor
 * and is not repeated. The elements are shared with `tree`, not copied.
 */
export function includeTags(tree: Root, selectors: readonly string[]): Root {
  const matches = new Set<RootContent>(selectAll(selectors.join(', '), tree));
  const kept: Element[] = [];
  if (matches.size > 0) {
    // Pre-order walk: children are pushed right to left so that they pop in document order.
    const stack: RootContent[] = [...tree.children].reverse();
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type !== 'element') continue;
      if (matches.has(node)) {
        kept.push(node);
        continue;
      }
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  const div: Element = { type: 'element', tagName: 'div', properties: {}, children: kept };
  return { type: 'root', children: [div] };
}

/** `excludeTags`: the tree without the elements that match one of the selectors. */
export function excludeTags(tree: Root, selectors: readonly string[]): Root {
  return withoutNodes(tree, new Set<RootContent>(selectAll(selectors.join(', '), tree)));
}
