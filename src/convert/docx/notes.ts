import type { Element } from 'hast';
import { readRelationships } from '../package/ooxml.ts';
import { childrenNamed, parseXml, type XmlElement } from '../package/xml.ts';
import type { DocxContext, Part } from './context.ts';

type Kind = 'footnote' | 'endnote';

interface NotesPart {
  part: Part;
  notes: Map<string, XmlElement>;
}

/**
 * Footnotes and endnotes, in the model's convention: references are labelled 1, 2, 3 … in the
 * order they are first met (one sequence for both kinds, so labels never collide), and the
 * notes' content is gathered in a section at the end. Parts are read only when referenced.
 */
export class Notes {
  private parts = new Map<Kind, NotesPart | undefined>();
  private labels = new Map<string, string>();
  private queue: { kind: Kind; id: string; label: string }[] = [];

  private readonly paths: Record<Kind, string | undefined>;

  constructor(paths: Record<Kind, string | undefined>) {
    this.paths = paths;
  }

  private load(kind: Kind, ctx: DocxContext): NotesPart | undefined {
    if (this.parts.has(kind)) return this.parts.get(kind);
    const path = this.paths[kind];
    const bytes = path ? ctx.zip.bytes(path) : undefined;
    let loaded: NotesPart | undefined;
    if (path && bytes) {
      const doc = parseXml(bytes, ctx.budget, { part: path, lenient: true });
      if (doc.damage) ctx.warnings.push(doc.damage);
      const notes = new Map<string, XmlElement>();
      for (const el of childrenNamed(doc.root, `w:${kind}`)) {
        const type = el.attrs['w:type'];
        const id = el.attrs['w:id'];
        // Separator and continuation notices are Word's furniture, not notes.
        if (id !== undefined && (type === undefined || type === 'normal')) notes.set(id, el);
      }
      loaded = { part: { path, rels: readRelationships(ctx.zip, path, ctx.budget) }, notes };
    }
    this.parts.set(kind, loaded);
    return loaded;
  }

  /** The label of a reference, or undefined when the note does not exist. */
  reference(kind: Kind, id: string, ctx: DocxContext): string | undefined {
    const key = `${kind}:${id}`;
    const known = this.labels.get(key);
    if (known !== undefined) return known;
    if (!this.load(kind, ctx)?.notes.has(id)) return undefined;
    const label = String(this.labels.size + 1);
    this.labels.set(key, label);
    this.queue.push({ kind, id, label });
    return label;
  }

  /** The notes section, or undefined without notes. Notes referenced from notes are included too. */
  section(ctx: DocxContext): Element | undefined {
    if (this.queue.length === 0) return undefined;
    const items: Element[] = [];
    const bodyPart = ctx.part;
    for (let i = 0; i < this.queue.length; i++) {
      const { kind, id, label } = this.queue[i]!;
      const loaded = this.load(kind, ctx)!;
      ctx.part = loaded.part;
      const blocks = ctx.blocks(loaded.notes.get(id)!.children);
      items.push({ type: 'element', tagName: 'li', properties: { id: `fn-${label}` }, children: blocks });
    }
    ctx.part = bodyPart;
    const list: Element = { type: 'element', tagName: 'ol', properties: {}, children: items };
    return { type: 'element', tagName: 'section', properties: { dataFootnotes: true }, children: [list] };
  }
}
