import { crc32, deflateSync } from 'node:zlib';

export const MiB = 1024 * 1024;

/** One hostile upload: what it attacks, and how to make it. */
export interface HostileCase {
  /** Unique id, also the stem of the written file's name. */
  name: string;
  /** The upload's filename: its extension claims the format. */
  filename: string;
  /** What the file does to a converter, for reports. */
  attack: string;
  /** Makes the bytes; lazy because a few are tens of MB and a run holds one at a time. */
  build(): Uint8Array;
  /** Parse options that make the attack bite (pdf modes), merged over the sender's. */
  options?: Record<string, unknown>;
  /**
   * Answered 200, the output must say that something was left out (a `warning`): the file
   * holds more than Quire reads, by construction.
   */
  cut?: boolean;
}

export const text = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
export const latin1 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

/** The first `fraction` of a file: a truncated upload. */
export function truncated(bytes: Uint8Array, fraction = 0.5): Uint8Array {
  return bytes.subarray(0, Math.floor(bytes.length * fraction));
}

/** `<!DOCTYPE>` declaring ten levels of ten-fold entity expansion (10^10 "lol"s), rooted at `root`. */
export function billionLaughs(root: string): string {
  let decl = '<!ENTITY lol0 "lol">';
  for (let i = 1; i <= 10; i++) decl += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return `<!DOCTYPE ${root} [${decl}]>`;
}

/** `open` `depth` times, then `inner`, then `close` as often. */
export function nested(open: string, close: string, depth: number, inner = ''): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG whose header declares `width` x `height` (8-bit grey) and whose pixel data is `rows`
 * rows of zeros: a real picture when `rows === height`, a decompression bomb's header otherwise.
 * `stored` keeps the pixels uncompressed, so the file is as big as its pixels.
 */
export function png(width: number, height: number, rows = height, stored = false): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const pixels = deflateSync(Buffer.alloc((width + 1) * rows), { level: stored ? 0 : 9 });
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', pixels),
      pngChunk('IEND', new Uint8Array()),
    ]),
  );
}

/**
 * An 8 MB picture (a valid 2896 x 2896 greyscale PNG, all black, its pixels stored) that deflates
 * to a few KB in a package: placed forty times, it is the "9.6 KB file, 447 MB answer" case.
 */
export function bigPicture(): Uint8Array {
  return png(2896, 2896, 2896, true);
}

/** How often the repeated-picture files place their one picture. */
export const pictureRepeats = 40;
