import type { Element, ElementContent } from 'hast';

export function el(tagName: string, properties: Element['properties'], children: ElementContent[]): Element {
  return { type: 'element', tagName, properties, children };
}

/**
 * `target.push(...items)` without the spread: a section or a paragraph can hold hundreds of
 * thousands of nodes, past the engine's limit on call arguments.
 */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
