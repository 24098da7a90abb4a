import type { Element, ElementContent } from 'hast';
import { child, textOf, type XmlElement } from '../package/xml.ts';

/**
 * Footnotes and endnotes (`text:note`) in the model's convention: a `sup > a[data-footnote-ref]`
 * where the note is cited, and one `section[data-footnotes]` list at the end, in citation order.
 */
export class Notes {
  private readonly labels = new Set<string>();
  private readonly items: Element[] = [];

  /** The reference for `note`; `body` converts the note's blocks (called once, here). */
  reference(note: XmlElement, body: (noteBody: XmlElement) => ElementContent[]): Element {
    const label = this.label(note);
    const noteBody = child(note, 'text:note-body');
    this.items.push({
      type: 'element',
      tagName: 'li',
      properties: { id: `fn-${label}` },
      children: noteBody ? body(noteBody) : [],
    });
    const link: Element = {
      type: 'element',
      tagName: 'a',
      properties: { href: `#fn-${label}`, id: `fnref-${label}`, dataFootnoteRef: true },
      children: [{ type: 'text', value: label }],
    };
    return { type: 'element', tagName: 'sup', properties: {}, children: [link] };
  }

  /** The citation as the document shows it ("1", "i", "*") when usable as an id, else a count. */
  private label(note: XmlElement): string {
    const citation = child(note, 'text:note-citation');
    const shown = (citation?.attrs['text:label'] ?? (citation ? textOf(citation) : '')).trim();
    let label = shown.replace(/[^\p{L}\p{N}_-]/gu, '').slice(0, 32);
    if (!label || this.labels.has(label)) label = String(this.items.length + 1);
    for (let n = 2; this.labels.has(label); n++) label = `${this.items.length + 1}-${n}`;
    this.labels.add(label);
    return label;
  }

  /** The notes section, or undefined when the document cites none. */
  section(): Element | undefined {
    if (this.items.length === 0) return undefined;
    const list: Element = { type: 'element', tagName: 'ol', properties: {}, children: this.items };
    return { type: 'element', tagName: 'section', properties: { dataFootnotes: true }, children: [list] };
  }
}
