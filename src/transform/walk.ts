import type { Element, Root, RootContent } from 'hast';

export type Parent = Root | Element;

interface Frame {
  node: Parent;
  /** Index of the child being looked at. */
  index: number;
  /** The new children, once one of them was removed or replaced; until then the old ones stand. */
  out: RootContent[] | undefined;
}

/**
 * The tree without the nodes in `doomed`, without recursion and without modifying `tree`:
 * the ancestors of removed nodes are copied (shallowly), every other subtree is shared.
 * Returns `tree` itself when nothing was removed.
 */
export function withoutNodes<T extends Parent>(tree: T, doomed: ReadonlySet<RootContent>): T {
  if (doomed.size === 0) return tree;
  const stack: Frame[] = [{ node: tree, index: 0, out: undefined }];
  for (;;) {
    const frame = stack[stack.length - 1]!;
    const children: RootContent[] = frame.node.children;
    if (frame.index < children.length) {
      const child = children[frame.index]!;
      if (doomed.has(child)) {
        frame.out ??= children.slice(0, frame.index);
        frame.index++;
      } else if (child.type === 'element' && child.children.length > 0) {
        stack.push({ node: child, index: 0, out: undefined });
      } else {
        frame.out?.push(child);
        frame.index++;
      }
      continue;
    }
    stack.pop();
    const result = frame.out ? ({ ...frame.node, children: frame.out } as Parent) : frame.node;
    const parent = stack[stack.length - 1];
    if (!parent) return result as T;
    if (result !== frame.node) parent.out ??= (parent.node.children as RootContent[]).slice(0, parent.index);
    parent.out?.push(result as Element);
    parent.index++;
  }
}

/**
 * Whether anything would be left to show once `doomed` is removed: non-blank text, an image
 * or a data table.
 */
export function hasContent(tree: Parent, doomed: ReadonlySet<RootContent> = new Set()): boolean {
  const stack: Parent[] = [tree];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    for (const child of parent.children as RootContent[]) {
      if (doomed.has(child)) continue;
      if (child.type === 'text' && child.value.trim() !== '') return true;
      if (child.type === 'dataTable') return true;
      if (child.type === 'element') {
        if (child.tagName === 'img') return true;
        if (child.children.length > 0) stack.push(child);
      }
    }
  }
  return false;
}
