import { PendingBytes } from './codepage.ts';
import { hexValue } from './tokenizer.ts';

/** Picture formats by their `\pict` control word; DIBs and device bitmaps are not kept. */
const FORMATS: ReadonlyMap<string, string> = new Map([
  ['pngblip', 'image/png'],
  ['jpegblip', 'image/jpeg'],
  ['emfblip', 'image/emf'],
  ['wmetafile', 'image/wmf'],
  ['macpict', 'image/x-pict'],
]);

/** One `\pict`: its format and its data, written as hex digits or as `\binN` bytes. */
export class Picture {
  private mime: string | undefined;
  /** Alt text: the description (`wzDescription`) of the picture or its shape. */
  alt: string | undefined;
  private readonly data = new PendingBytes();
  /** The high nibble waiting for its low one, or -1. */
  private high = -1;

  word(word: string): void {
    const mime = FORMATS.get(word);
    if (mime) this.mime = mime;
  }

  hex(bytes: Uint8Array, start: number, end: number): void {
    let high = this.high;
    for (let i = start; i < end; i++) {
      const v = hexValue(bytes[i]!);
      if (v < 0) continue;
      if (high < 0) high = v;
      else {
        this.data.push((high << 4) | v);
        high = -1;
      }
    }
    this.high = high;
  }

  raw(bytes: Uint8Array, start: number, end: number): void {
    this.data.pushRange(bytes, start, end);
  }

  get size(): number {
    return this.data.length;
  }

  dataUri(): string | undefined {
    if (!this.mime || this.data.length === 0) return undefined;
    return `data:${this.mime};base64,${this.data.base64()}`;
  }
}
