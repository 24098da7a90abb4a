import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const imageFixtures = path.resolve(import.meta.dirname, '../fixtures/images');

/** One of the committed image fixtures (test/fixtures/images, made by its make-fixtures.sh). */
export function imageFixture(name: string): { bytes: Uint8Array; filename: string } {
  return { bytes: new Uint8Array(fs.readFileSync(path.join(imageFixtures, name))), filename: name };
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8; // bit depth
  data[9] = 0; // gray
  return chunk('IHDR', data);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An 8-bit gray PNG of one shade. */
export function plainPng(width: number, height: number, shade = 255): Uint8Array {
  const row = Buffer.alloc(width + 1, shade);
  row[0] = 0; // filter: none
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    SIGNATURE,
    ihdr(width, height),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A decompression bomb's header: a valid PNG header declaring `width` x `height` pixels, then a
 * few bytes of image data (a real bomb's would inflate to the full size).
 */
export function hugePngHeader(width: number, height: number): Uint8Array {
  const someRows = zlib.deflateSync(Buffer.alloc(width + 1));
  return Buffer.concat([
    SIGNATURE,
    ihdr(width, height),
    chunk('IDAT', someRows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
