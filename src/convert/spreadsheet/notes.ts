import { utils } from '@e965/xlsx';
import type { Element, ElementContent } from 'hast';
import type { NoteAnchor } from './sheet-layout.ts';

/**
 * Cell comments as notes after their table: "Comments:" and a list of
 * "B2 (author): text", threaded replies each as their own item.
 */
function element(tagName: string, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties: {}, children };
}

/** Legacy comments repeat their author as the text's first line ("Jane:\ntext"). */
function commentText(text: string, author: string | undefined): string {
  let t = text.replace(/\s+/g, ' ').trim();
  if (author && t.startsWith(`${author}:`)) t = t.slice(author.length + 1).trim();
  return t;
}

export function notesList(anchors: readonly NoteAnchor[]): Element[] {
  const items: Element[] = [];
  for (const { r, c, comments } of anchors) {
    const ref = utils.encode_cell({ r, c });
    for (const comment of comments) {
      const author = comment.a?.trim() || undefined;
      const text = commentText(comment.t ?? '', author);
      if (!text) continue;
      items.push(element('li', [{ type: 'text', value: `${ref}${author ? ` (${author})` : ''}: ${text}` }]));
    }
  }
  if (items.length === 0) return [];
  return [element('p', [{ type: 'text', value: 'Comments:' }]), element('ul', items)];
}
