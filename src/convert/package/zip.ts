import { inflateRawSync } from 'node:zlib';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';

/**
 * A ZIP package (DOCX, ODT, EPUB, ...) opened for reading single entries on demand.
 *
 * Written on node:zlib rather than a ZIP library because inflation must stop at a hard
 * output cap: `inflateRawSync`'s `maxOutputLength` aborts a zip bomb inside zlib, whatever
 * sizes the headers claim, where fflate and friends trust (or preallocate from) them.
 */
export interface ZipPackage {
  /** Entry names in central-directory order. */
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The inflated bytes of an entry, or undefined when there is no such entry. */
  bytes(name: string): Uint8Array | undefined;
  /** The entry decoded as UTF-8 (a BOM is dropped), or undefined when absent. */
  text(name: string): string | undefined;
}

interface Entry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ENCRYPTED_FLAG = 0x1;

function corrupt(why: string): ConversionError {
  return new ConversionError('UNPARSABLE_DOCUMENT', `The file is not a readable ZIP package: ${why}.`);
}

function findEocd(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const stop = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let i = view.byteLength - 22; i >= stop; i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw corrupt('no end-of-central-directory record (the file may be truncated)');
}

/** Entry count and central-directory offset, from the ZIP64 record when the classic one overflows. */
function directoryLocation(view: DataView, eocd: number): { count: number; offset: number } {
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if (
    (count === 0xffff || offset === 0xffffffff) &&
    eocd >= 20 &&
    view.getUint32(eocd - 20, true) === ZIP64_LOCATOR
  ) {
    const at = Number(view.getBigUint64(eocd - 20 + 8, true));
    if (at + 56 <= view.byteLength && view.getUint32(at, true) === ZIP64_EOCD) {
      count = Number(view.getBigUint64(at + 32, true));
      offset = Number(view.getBigUint64(at + 48, true));
    }
  }
  return { count, offset };
}

/** Sizes and offset that overflowed 32 bits live in the ZIP64 extra field, in this order. */
function applyZip64(
  view: DataView,
  extraStart: number,
  extraEnd: number,
  entry: Entry,
  uncompressed: number,
): void {
  let p = extraStart;
  while (p + 4 <= extraEnd) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (id === 0x0001) {
      let q = p + 4;
      const read = (): number => {
        const v = q + 8 <= extraEnd ? Number(view.getBigUint64(q, true)) : 0;
        q += 8;
        return v;
      };
      if (uncompressed === 0xffffffff) read();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = read();
      if (entry.localOffset === 0xffffffff) entry.localOffset = read();
      return;
    }
    p += 4 + size;
  }
}

function readDirectory(bytes: Uint8Array): Map<string, Entry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 22) throw corrupt('too short');
  const { count, offset } = directoryLocation(view, findEocd(view));
  if (count > limits.zipEntries) {
    throw new ConversionError(
      'RESOURCE_LIMIT',
      `The package holds ${count} entries; at most ${limits.zipEntries} are read.`,
    );
  }
  const entries = new Map<string, Entry>();
  const decoder = new TextDecoder();
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== CENTRAL)
      throw corrupt('damaged central directory');
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    const entry: Entry = {
      name: decoder.decode(bytes.subarray(p + 46, p + 46 + nameLength)),
      flags: view.getUint16(p + 8, true),
      method: view.getUint16(p + 10, true),
      compressedSize: view.getUint32(p + 20, true),
      localOffset: view.getUint32(p + 42, true),
    };
    const extraStart = p + 46 + nameLength;
    if (extraStart + extraLength > bytes.length) throw corrupt('damaged central directory');
    applyZip64(view, extraStart, extraStart + extraLength, entry, view.getUint32(p + 24, true));
    // The first entry of a name wins, as in every office suite; later twins are ignored.
    if (!entries.has(entry.name)) entries.set(entry.name, entry);
    p = extraStart + extraLength + commentLength;
  }
  return entries;
}

/**
 * Opens a package. Throws ConversionError for a damaged directory or too many entries;
 * entries are inflated only when asked for, all of them sharing one inflated-bytes budget.
 */
export function openZip(bytes: Uint8Array): ZipPackage {
  const entries = readDirectory(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let budget = limits.zipInflatedBytes;
  const names = [...entries.keys()];

  const read = (name: string): Uint8Array | undefined => {
    const entry = entries.get(name);
    if (!entry) return undefined;
    if (entry.flags & ENCRYPTED_FLAG) {
      throw new ConversionError(
        'ENCRYPTED_DOCUMENT',
        `The package entry ${name} is encrypted; remove the password and retry.`,
      );
    }
    const at = entry.localOffset;
    if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL)
      throw corrupt(`entry ${name} has no local header`);
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const end = start + entry.compressedSize;
    if (end > bytes.length) throw corrupt(`entry ${name} runs past the end of the file (truncated?)`);
    const raw = bytes.subarray(start, end);
    let out: Uint8Array;
    if (entry.method === 0) out = raw;
    else if (entry.method === 8) {
      try {
        out = inflateRawSync(raw, { maxOutputLength: Math.max(1, budget) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw inflatedTooMuch();
        throw corrupt(`entry ${name} does not inflate`);
      }
    } else throw corrupt(`entry ${name} uses compression method ${entry.method}`);
    budget -= out.length;
    if (budget < 0) throw inflatedTooMuch();
    return out;
  };

  return {
    names,
    has: (name) => entries.has(name),
    bytes: read,
    text(name) {
      const data = read(name);
      return data === undefined ? undefined : new TextDecoder('utf-8').decode(data);
    },
  };
}

function inflatedTooMuch(): ConversionError {
  return new ConversionError(
    'RESOURCE_LIMIT',
    `The package inflates to more than ${limits.zipInflatedBytes / 1024 / 1024} MiB (a zip bomb?); it was not converted.`,
  );
}
