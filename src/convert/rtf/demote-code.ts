import type { Element, ElementContent } from 'hast';

/**
 * Undoes code formatting across a tree: for documents set mostly in a monospace font
 * (screenplays, court filings, text dumps), where the font says nothing about code.
 * Code blocks become one paragraph per line; inline code becomes plain text.
 * Iterative, so nesting depth does not matter.
 */
export function demoteCode(nodes: ElementContent[]): void {
  const replaced = demoteChildren(nodes);
  nodes.length = 0;
  for (const node of replaced.children) nodes.push(node);
  const stack = replaced.elements;
  while (stack.length > 0) {
    const element = stack.pop()!;
    const { children, elements } = demoteChildren(element.children);
    element.children = children;
    for (const e of elements) stack.push(e);
  }
}

/** One level: the new children, and the elements among them still to visit. */
function demoteChildren(list: ElementContent[]): { children: ElementContent[]; elements: Element[] } {
  const children: ElementContent[] = [];
  const elements: Element[] = [];
  for (const node of list) {
    if (node.type !== 'element') children.push(node);
    else if (node.tagName === 'pre') for (const line of codeLines(node)) children.push(paragraph(line));
    else if (node.tagName === 'code') for (const child of node.children) children.push(child);
    else {
      children.push(node);
      elements.push(node);
    }
  }
  return { children, elements };
}

function codeLines(pre: Element): string[] {
  const code = pre.children[0];
  const text = code?.type === 'element' && code.children[0]?.type === 'text' ? code.children[0].value : '';
  return text.split('\n').filter((line) => line.trim() !== '');
}

function paragraph(text: string): Element {
  return { type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value: text }] };
}
