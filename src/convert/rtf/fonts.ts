import { charsetCodepage } from './codepage.ts';
import { appendName, type NamedEntry } from './table-entry.ts';

/** Font families whose text is code when a document uses them among proportional fonts. */
const MONOSPACE =
  /courier|consolas|menlo|monaco|lucida (console|sans typewriter)|source code|mono\b|andale|inconsolata|fira code|fixedsys|\bocr\b/i;

interface FontEntry extends NamedEntry {
  /** Code page from `\fcharsetN` / `\cpgN`; undefined means the document's `\ansicpgN`. */
  codepage: number | undefined;
}

/** The font table: each font's code page and whether it is monospace. */
export class FontTable {
  private readonly fonts = new Map<number, FontEntry>();
  private current: FontEntry | undefined;
  private readonly monoCache = new Map<number, boolean>();

  /** `\fN` inside `\fonttbl`: a new entry. */
  begin(font: number): void {
    this.current = { name: [], codepage: undefined, named: false };
    this.fonts.set(font, this.current);
  }

  charset(charset: number): void {
    if (this.current) this.current.codepage = charsetCodepage(charset);
  }

  codepage(codepage: number): void {
    if (this.current && codepage > 0) this.current.codepage = codepage;
  }

  text(text: string): void {
    appendName(this.current, text);
  }

  codepageOf(font: number, fallback: number): number {
    return this.fonts.get(font)?.codepage ?? fallback;
  }

  isMonospace(font: number): boolean {
    let mono = this.monoCache.get(font);
    if (mono === undefined) {
      const entry = this.fonts.get(font);
      mono = entry ? MONOSPACE.test(entry.name.join('').trim()) : false;
      this.monoCache.set(font, mono);
    }
    return mono;
  }
}
