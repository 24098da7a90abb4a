import { appendName, type NamedEntry } from './table-entry.ts';

/**
 * Heading style names, in English and as Word localizes them ("Überschrift 1", "Titre 1",
 * "見出し 1", ...). Word may append aliases after a comma.
 */
const HEADING_NAME =
  /^(?:heading|überschrift|titre|titolo|título|titulo|kop|rubrik|overskrift|otsikko|nagłówek|nadpis|címsor|заголовок|başlık|επικεφαλίδα|כותרת|عنوان|見出し|标题|標題|제목)\s*([1-9])$/i;

interface StyleEntry extends NamedEntry {
  /** `\outlinelevelN` (0-based), -1 when unset. */
  outline: number;
  basedOn: number;
  /** Paragraph style (`\sN`); character, section and table styles do not make headings. */
  paragraph: boolean;
  number: number;
}

/** The stylesheet, read for heading levels only. */
export class StyleSheet {
  private readonly styles = new Map<number, StyleEntry>();
  private current: StyleEntry | undefined;
  private readonly headingCache = new Map<number, number>();

  /** A `{ ... }` entry of the stylesheet opens. */
  begin(): void {
    this.current = { name: [], named: false, outline: -1, basedOn: -1, paragraph: true, number: 0 };
  }

  /** The entry's group closed. */
  end(): void {
    const entry = this.current;
    if (entry?.paragraph) this.styles.set(entry.number, entry);
    this.current = undefined;
  }

  number(n: number): void {
    if (this.current) this.current.number = n;
  }

  notParagraph(): void {
    if (this.current) this.current.paragraph = false;
  }

  outline(level: number): void {
    if (this.current) this.current.outline = level;
  }

  basedOn(n: number): void {
    if (this.current) this.current.basedOn = n;
  }

  text(text: string): void {
    appendName(this.current, text);
  }

  /** Heading level 1-6 of paragraph style `n`, 0 when it is not a heading. */
  headingLevel(n: number): number {
    let level = this.headingCache.get(n);
    if (level === undefined) {
      level = this.resolve(n);
      this.headingCache.set(n, level);
    }
    return level;
  }

  private resolve(n: number): number {
    const first = this.styles.get(n);
    if (!first) return 0;
    const name = first.name.join('').split(',')[0]!.trim();
    const m = HEADING_NAME.exec(name);
    if (m) return Math.min(6, Number(m[1]));
    if (/^title$/i.test(name)) return 1;
    // An outline level may come from the style or one it is based on (a bounded walk).
    let entry: StyleEntry | undefined = first;
    for (let hops = 0; entry && hops < 16; hops++) {
      if (entry.outline >= 0) return entry.outline < 9 ? Math.min(6, entry.outline + 1) : 0;
      entry =
        entry.basedOn >= 0 && entry.basedOn !== entry.number ? this.styles.get(entry.basedOn) : undefined;
    }
    return 0;
  }
}
