import CFB from 'cfb';
import { openZip } from '../../src/convert/package/zip.ts';
import { writeZip } from './zip.ts';

/** A small seeded PRNG (mulberry32): the same seed gives the same mutations on every machine. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** A mutation's name and what it did, for reports and for reproducing a finding by hand. */
export interface Mutated {
  bytes: Uint8Array;
  steps: string[];
}

type ByteMutator = (
  bytes: Uint8Array,
  rnd: Random,
  donors: readonly Uint8Array[],
) => { bytes: Uint8Array; step: string };

const interestingBytes = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe, 0x3c, 0x3e, 0x22, 0x7b, 0x7d, 0x5c, 0x39];
/** Numbers that sit on the edges readers get wrong: zero, negatives, 16/31/32-bit limits, overflow. */
const interestingNumbers = [
  '0',
  '-1',
  '65535',
  '65536',
  '2147483647',
  '2147483648',
  '4294967295',
  '99999999999',
  '1e308',
];

const bitflip: ByteMutator = (bytes, rnd) => {
  const out = new Uint8Array(bytes);
  const flips = 1 + rnd.int(32);
  for (let i = 0; i < flips && out.length > 0; i++) out[rnd.int(out.length)]! ^= 1 << rnd.int(8);
  return { bytes: out, step: `bitflip x${flips}` };
};

const setBytes: ByteMutator = (bytes, rnd) => {
  const out = new Uint8Array(bytes);
  const count = 1 + rnd.int(16);
  for (let i = 0; i < count && out.length > 0; i++) out[rnd.int(out.length)] = rnd.pick(interestingBytes);
  return { bytes: out, step: `bytes x${count}` };
};

const truncate: ByteMutator = (bytes, rnd) => {
  const at = 1 + rnd.int(Math.max(1, bytes.length - 1));
  return { bytes: bytes.subarray(0, at), step: `truncate@${at}` };
};

/** A chunk of another file of the same format, inserted or written over this one's bytes. */
const splice: ByteMutator = (bytes, rnd, donors) => {
  const donor = donors.length > 0 ? rnd.pick(donors) : bytes;
  const size = 1 + rnd.int(Math.min(4096, donor.length));
  const from = rnd.int(Math.max(1, donor.length - size));
  const chunk = donor.subarray(from, from + size);
  const at = rnd.int(bytes.length + 1);
  const overwrite = rnd.next() < 0.5;
  const out = Buffer.concat([
    bytes.subarray(0, at),
    chunk,
    bytes.subarray(overwrite ? at + chunk.length : at),
  ]);
  return { bytes: out, step: `splice ${size}B ${overwrite ? 'over' : 'into'}@${at}` };
};

/** A decimal number in text (PDF, RTF, XML attributes) replaced by an edge value. */
const number: ByteMutator = (bytes, rnd) => {
  const text = Buffer.from(bytes).toString('latin1');
  const starts: number[] = [];
  const digits = /\d+/g;
  for (let m = digits.exec(text); m && starts.length < 100_000; m = digits.exec(text)) starts.push(m.index);
  if (starts.length === 0) return bitflip(bytes, rnd, []);
  const at = rnd.pick(starts);
  const end = at + /^\d+/.exec(text.slice(at))![0].length;
  const value = rnd.pick(interestingNumbers);
  return {
    bytes: Buffer.from(text.slice(0, at) + value + text.slice(end), 'latin1'),
    step: `number@${at}=${value}`,
  };
};

const byteMutators: readonly [string, ByteMutator][] = [
  ['bitflip', bitflip],
  ['bytes', setBytes],
  ['truncate', truncate],
  ['splice', splice],
  ['number', number],
];

/** One to three byte-level mutations, stacked. */
function mutateBytes(bytes: Uint8Array, rnd: Random, donors: readonly Uint8Array[]): Mutated {
  let out = bytes;
  const steps: string[] = [];
  for (let i = 1 + rnd.int(3); i > 0; i--) {
    const [, mutate] = rnd.pick(byteMutators);
    const r = mutate(out, rnd, donors);
    out = r.bytes;
    steps.push(r.step);
  }
  return { bytes: out, steps };
}

/** Inside a ZIP package: one entry's inflated bytes mutated (most often an XML part), then re-packed. */
function mutateZipEntry(bytes: Uint8Array, rnd: Random, donors: readonly Uint8Array[]): Mutated | undefined {
  let pkg: ReturnType<typeof openZip>;
  try {
    pkg = openZip(bytes);
  } catch {
    return undefined;
  }
  const names = pkg.names.filter((n) => !n.endsWith('/'));
  const xml = names.filter((n) => /\.(xml|rels|xhtml|html|opf|ncx|bin)$/i.test(n));
  const name = rnd.next() < 0.85 && xml.length > 0 ? rnd.pick(xml) : rnd.pick(names);
  if (!name) return undefined;
  // Donors: the same entry in the other files of the format, else any of their bytes.
  const sameEntry = donors.flatMap((d) => {
    try {
      const other = openZip(d).bytes(name);
      return other ? [other] : [];
    } catch {
      return [];
    }
  });
  const inner = mutateBytes(pkg.bytes(name)!, rnd, sameEntry);
  const repacked = writeZip(
    names.map((n) =>
      n === name ? { name: n, data: inner.bytes } : { name: n, data: pkg.bytes(n)!, store: n === 'mimetype' },
    ),
  );
  return { bytes: repacked, steps: [`entry ${name}: ${inner.steps.join(', ')}`] };
}

/** Inside an OLE compound file: one stream's bytes mutated, then the file written again. */
function mutateOleStream(bytes: Uint8Array, rnd: Random): Mutated | undefined {
  let file: CFB.CFB$Container;
  try {
    file = CFB.read(Buffer.from(bytes), { type: 'buffer' });
  } catch {
    return undefined;
  }
  const streams = file.FileIndex.map((entry, i) => ({ entry, path: file.FullPaths[i]! })).filter(
    (s) => s.entry.type === 2 && s.entry.content && s.entry.content.length > 0,
  );
  if (streams.length === 0) return undefined;
  const target = rnd.pick(streams);
  const inner = mutateBytes(Uint8Array.from(target.entry.content as ArrayLike<number>), rnd, []);
  target.entry.content = Buffer.from(inner.bytes);
  target.entry.size = inner.bytes.length;
  return {
    bytes: new Uint8Array(CFB.write(file, { type: 'buffer' }) as Buffer),
    steps: [`stream ${target.path}: ${inner.steps.join(', ')}`],
  };
}

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b;
const isOle = (b: Uint8Array) => b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0;

/**
 * A mutant of `bytes`: inside its container half of the time (ZIP entries, OLE streams, where
 * flipping compressed bytes would mostly test inflate), otherwise on the raw bytes.
 */
export function mutate(bytes: Uint8Array, rnd: Random, donors: readonly Uint8Array[]): Mutated {
  if (rnd.next() < 0.5) {
    const inner = isZip(bytes)
      ? mutateZipEntry(bytes, rnd, donors)
      : isOle(bytes)
        ? mutateOleStream(bytes, rnd)
        : undefined;
    if (inner) return inner;
  }
  return mutateBytes(bytes, rnd, donors);
}
