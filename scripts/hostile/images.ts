import { type HostileCase, png } from './case.ts';

// Hostile images: headers declaring sizes no decoder should allocate, and frame lists without end.

/** A TIFF (little-endian) with `frames` 1x1 IFDs chained one after another; `loop` points the last back at the first. */
function tiff(frames: number, loop = false, width = 1, height = 1): Uint8Array {
  const entries = [
    [256, 4, 1, width], // ImageWidth
    [257, 4, 1, height], // ImageLength
    [258, 3, 1, 8], // BitsPerSample
    [259, 3, 1, 1], // Compression: none
    [262, 3, 1, 1], // Photometric: black is zero
    [273, 4, 1, 8], // StripOffsets: the pixel after the header
    [277, 3, 1, 1], // SamplesPerPixel
    [278, 4, 1, height], // RowsPerStrip
    [279, 4, 1, 1], // StripByteCounts
  ] as const;
  const ifdSize = 2 + entries.length * 12 + 4;
  const first = 16;
  const out = Buffer.alloc(first + frames * ifdSize);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(first, 4);
  for (let f = 0; f < frames; f++) {
    let at = first + f * ifdSize;
    out.writeUInt16LE(entries.length, at);
    at += 2;
    for (const [tag, type, count, value] of entries) {
      out.writeUInt16LE(tag, at);
      out.writeUInt16LE(type, at + 2);
      out.writeUInt32LE(count, at + 4);
      out.writeUInt32LE(value, at + 8);
      at += 12;
    }
    const last = f === frames - 1;
    out.writeUInt32LE(last ? (loop ? first : 0) : first + (f + 1) * ifdSize, at);
  }
  return out;
}

/** A baseline JPEG's start: SOI and a frame header declaring `width` x `height`, then no scan. */
function jpegHeader(width: number, height: number): Uint8Array {
  const sof = Buffer.from([
    0xff,
    0xc0,
    0,
    11,
    8,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    1,
    1,
    0x11,
    0,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]);
}

function gifHeader(width: number, height: number): Uint8Array {
  const out = Buffer.alloc(13 + 10 + 4);
  out.write('GIF89a', 0, 'latin1');
  out.writeUInt16LE(width, 6);
  out.writeUInt16LE(height, 8);
  // An image descriptor as large as the screen, then an empty LZW stream and the trailer.
  out[13] = 0x2c;
  out.writeUInt16LE(width, 18);
  out.writeUInt16LE(height, 20);
  out[23] = 2;
  out[24] = 0;
  out[25] = 0x3b;
  return out;
}

function bmpHeader(width: number, height: number): Uint8Array {
  const out = Buffer.alloc(54 + 16);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  return out;
}

export const imageCases: HostileCase[] = [
  {
    name: 'png-huge-dimensions',
    filename: 'huge.png',
    attack: 'a PNG header declaring 100000 x 100000 pixels over one row of data',
    build: () => png(100_000, 100_000, 1),
  },
  {
    name: 'tiff-many-frames',
    filename: 'frames.tiff',
    attack: '5,000 frames in one TIFF',
    build: () => tiff(5000),
  },
  {
    name: 'tiff-frame-loop',
    filename: 'frame-loop.tiff',
    attack: "a TIFF whose last frame's next-frame offset points back at the first",
    build: () => tiff(3, true),
  },
  {
    name: 'tiff-huge-dimensions',
    filename: 'huge.tiff',
    attack: 'a TIFF frame declaring 4 billion x 4 billion pixels',
    build: () => tiff(1, false, 0xffffffff, 0xffffffff),
  },
  {
    name: 'jpeg-huge-dimensions',
    filename: 'huge.jpg',
    attack: 'a JPEG frame header declaring 65535 x 65535 pixels',
    build: () => jpegHeader(0xffff, 0xffff),
  },
  {
    name: 'gif-huge-dimensions',
    filename: 'huge.gif',
    attack: 'a GIF screen and image declaring 65535 x 65535 pixels',
    build: () => gifHeader(0xffff, 0xffff),
  },
  {
    name: 'bmp-huge-dimensions',
    filename: 'huge.bmp',
    attack: 'a BMP declaring 2 billion x 2 billion pixels',
    build: () => bmpHeader(0x7fffffff, 0x7fffffff),
  },
];
