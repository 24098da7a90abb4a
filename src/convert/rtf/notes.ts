import type { Element, ElementContent } from 'hast';

/** A footnote or endnote: its label (1, 2, ...) and its content. */
export interface Note {
  label: string;
  blocks: ElementContent[];
}

/** The notes section of the document model's footnote convention. */
export function notesSection(notes: Note[]): Element {
  const items: Element[] = notes.map((note) => ({
    type: 'element',
    tagName: 'li',
    properties: { id: `fn-${note.label}` },
    children: note.blocks,
  }));
  return {
    type: 'element',
    tagName: 'section',
    properties: { dataFootnotes: true },
    children: [{ type: 'element', tagName: 'ol', properties: {}, children: items }],
  };
}
