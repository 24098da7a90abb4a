import type { Element } from 'hast';

/** A link met while walking a chapter; its target is resolved once every chapter is known. */
export interface LinkRecord {
  el: Element;
  parent: Element;
  chapter: string;
  /** Inside a footnote or endnote (where a link back to the reference is noise). */
  inNote: boolean;
  /** Marked `epub:type="noteref"` (or `role="doc-noteref"`). */
  noteref: boolean;
}

export interface NoteRecord {
  el: Element;
  parent: Element;
}

/** What the chapters share: ids in use, and the links and notes to connect across chapters. */
export class BookState {
  /** Every id in the combined tree. */
  private readonly used = new Set<string>();
  /** The last numbered suffix given to each wanted id. */
  private readonly suffixes = new Map<string, number>();
  /** `chapter#id` → the id it has in the combined tree. */
  readonly ids = new Map<string, string>();
  /** Chapter path → the id of the section holding it. */
  readonly chapters = new Map<string, string>();
  readonly links: LinkRecord[] = [];
  /** `chapter#id` → footnote or endnote. */
  readonly notes = new Map<string, NoteRecord>();
  /** Sections holding notes (`epub:type="endnotes"`), to drop once their notes have moved. */
  readonly noteSections: NoteRecord[] = [];
  /** `chapter#id` of every note reference, to recognise the notes' links back to them. */
  readonly noterefKeys = new Set<string>();

  /**
   * Claims `wanted` in the combined tree, or a numbered variant when an earlier chapter
   * already used it (chapters are separate documents, so their ids may collide).
   */
  claim(wanted: string): string {
    let id = wanted;
    // Counting on from the last suffix given keeps a thousand `id="top"` linear.
    let n = this.suffixes.get(wanted) ?? 1;
    while (this.used.has(id)) id = `${wanted}-${++n}`;
    this.suffixes.set(wanted, n);
    this.used.add(id);
    return id;
  }
}

export const key = (chapter: string, id: string) => `${chapter}#${id}`;
