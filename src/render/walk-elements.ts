import type { Element, Root, RootContent } from 'hast';

/** Calls `fn` on every element in document order, without recursion; `dataTable` nodes are skipped. */
export function eachElement(tree: Root, fn: (el: Element) => void): void {
  const stack: RootContent[] = [];
  for (let i = tree.children.length - 1; i >= 0; i--) stack.push(tree.children[i]!);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    fn(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
}
