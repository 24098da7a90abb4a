import { ConversionError } from '../converter.ts';

/**
 * Bounds-checked little-endian reads over one stream of a binary Office file. Every offset
 * in these formats comes from the file itself, so a read past the end is damage, reported as
 * UNPARSABLE_DOCUMENT naming the stream, never a RangeError or a silent `undefined`.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  readonly name: string;
  private readonly view: DataView;

  constructor(bytes: Uint8Array, name: string) {
    this.bytes = bytes;
    this.name = name;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get length(): number {
    return this.bytes.length;
  }

  /** Whether `size` bytes at `offset` lie inside the stream. */
  has(offset: number, size: number): boolean {
    return Number.isInteger(offset) && offset >= 0 && size >= 0 && offset + size <= this.bytes.length;
  }

  private check(offset: number, size: number): void {
    if (!this.has(offset, size)) {
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        `The ${this.name} stream is truncated or damaged (a structure at byte ${offset} runs past its end at ${this.bytes.length}).`,
      );
    }
  }

  u8(offset: number): number {
    this.check(offset, 1);
    return this.view.getUint8(offset);
  }

  u16(offset: number): number {
    this.check(offset, 2);
    return this.view.getUint16(offset, true);
  }

  i16(offset: number): number {
    this.check(offset, 2);
    return this.view.getInt16(offset, true);
  }

  u32(offset: number): number {
    this.check(offset, 4);
    return this.view.getUint32(offset, true);
  }

  i32(offset: number): number {
    this.check(offset, 4);
    return this.view.getInt32(offset, true);
  }

  /** A view (no copy) of `size` bytes at `offset`. */
  slice(offset: number, size: number): Uint8Array {
    this.check(offset, size);
    return this.bytes.subarray(offset, offset + size);
  }

  /** A reader over `size` bytes at `offset`, with offsets relative to it. */
  sub(offset: number, size: number, name = this.name): ByteReader {
    return new ByteReader(this.slice(offset, size), name);
  }
}
