import { ConversionError } from '../converter.ts';

/**
 * The OLE compound file ([MS-CFB]) around binary Office documents (DOC, XLS, PPT); also where
 * password-protected OOXML files (an `EncryptedPackage` in OLE) are refused.
 *
 * Read here rather than with `cfb`, which copies every stream of the file out of its sectors
 * on open (a sixth of a small deck's conversion time): only the sector tables and the
 * directory are read up front, a stream's sectors when it is asked for. Every chain is walked
 * with a step limit, so a FAT that loops or points outside the file is damage, not a hang.
 */
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;
const NO_STREAM = 0xffffffff;
const HEADER_DIFAT_ENTRIES = 109;
const DIRECTORY_ENTRY = 128;
const STREAM = 2;
const ROOT = 5;

export interface OleContainer {
  /** A stream's bytes by its path (`WordDocument`, `Storage/Stream`), or undefined when there is none. */
  stream(path: string): Uint8Array | undefined;
}

interface DirectoryEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
  start: number;
  size: number;
}

class Damaged extends Error {}

class CompoundFile {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly sectorSize: number;
  private readonly miniSectorSize: number;
  private readonly miniCutoff: number;
  private readonly fat: Uint32Array;
  private readonly entries: DirectoryEntry[];
  private miniFat: Uint32Array | undefined;
  private miniStream: Uint8Array | undefined;
  private readonly firstMiniFat: number;

  constructor(bytes: Uint8Array) {
    if (bytes.length < 512) throw new Damaged('shorter than its header');
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const v = this.view;
    const sectorShift = v.getUint16(0x1e, true);
    const miniShift = v.getUint16(0x20, true);
    if (sectorShift !== 9 && sectorShift !== 12) throw new Damaged('unknown sector size');
    if (miniShift !== 6) throw new Damaged('unknown mini sector size');
    this.sectorSize = 1 << sectorShift;
    this.miniSectorSize = 1 << miniShift;
    this.miniCutoff = v.getUint32(0x38, true);
    this.firstMiniFat = v.getUint32(0x3c, true);
    this.fat = this.readFat(v.getUint32(0x2c, true), v.getUint32(0x44, true));
    this.entries = this.readDirectory(v.getUint32(0x30, true));
  }

  /** Sectors the file holds (the last may be cut short); a damaged file may reference more. */
  private get sectorCount(): number {
    return Math.ceil((this.bytes.length - this.sectorSize) / this.sectorSize);
  }

  /** The FAT from the sectors the DIFAT (109 header slots, then a chain of DIFAT sectors) lists. */
  private readFat(fatSectors: number, firstDifat: number): Uint32Array {
    // Checked first: the DIFAT chain would otherwise list sectors by the million before the count was judged.
    if (fatSectors > this.sectorCount) throw new Damaged('more FAT sectors than the file has');
    const listed: number[] = [];
    for (let i = 0; i < HEADER_DIFAT_ENTRIES && listed.length < fatSectors; i++) {
      listed.push(this.view.getUint32(0x4c + i * 4, true));
    }
    const perDifat = this.sectorSize / 4 - 1;
    const seen = new Set<number>();
    for (let difat = firstDifat; listed.length < fatSectors && difat < this.sectorCount; ) {
      if (seen.has(difat)) throw new Damaged('the DIFAT chain loops');
      seen.add(difat);
      const at = (difat + 1) * this.sectorSize;
      for (let i = 0; i < perDifat && listed.length < fatSectors; i++) {
        listed.push(at + i * 4 + 4 <= this.bytes.length ? this.view.getUint32(at + i * 4, true) : FREE);
      }
      difat =
        at + perDifat * 4 + 4 <= this.bytes.length ? this.view.getUint32(at + perDifat * 4, true) : FREE;
    }
    const perSector = this.sectorSize / 4;
    const fat = new Uint32Array(listed.length * perSector).fill(FREE);
    listed.forEach((sector, i) => {
      if (sector >= this.sectorCount) return;
      const at = (sector + 1) * this.sectorSize;
      const end = Math.min(at + this.sectorSize, this.bytes.length);
      for (let p = at, j = i * perSector; p + 4 <= end; p += 4, j++) fat[j] = this.view.getUint32(p, true);
    });
    return fat;
  }

  /**
   * The sectors of a chain in the FAT (or mini FAT), in order, up to `limit` of them; a chain
   * that loops or leaves the table ends there (what it held so far is kept).
   */
  private chain(start: number, table: Uint32Array, limit: number): number[] {
    const out: number[] = [];
    for (let s = start; s < table.length && out.length < limit; s = table[s]!) out.push(s);
    return out;
  }

  /**
   * A chain of regular sectors read into one buffer, up to `size` bytes; shorter when the chain
   * or the file ends first (a truncated file keeps what it has).
   */
  private readChain(start: number, size = Number.POSITIVE_INFINITY): Uint8Array {
    const wanted = Math.min(size, this.bytes.length);
    const sectors = this.chain(
      start,
      this.fat,
      Math.min(this.sectorCount, Math.ceil(wanted / this.sectorSize)),
    );
    const length = Math.min(wanted, sectors.length * this.sectorSize);
    // Writers lay most streams out in consecutive sectors: those are a view of the file.
    const first = sectors[0]!;
    if (sectors.length > 0 && sectors.every((s, i) => s === first + i)) {
      const at = (first + 1) * this.sectorSize;
      return this.bytes.subarray(at, Math.min(at + length, this.bytes.length));
    }
    const out = new Uint8Array(length);
    let p = 0;
    for (const s of sectors) {
      if (p >= out.length || s >= this.sectorCount) break;
      const at = (s + 1) * this.sectorSize;
      const n = Math.min(this.sectorSize, out.length - p, this.bytes.length - at);
      out.set(this.bytes.subarray(at, at + n), p);
      p += n;
    }
    return p < out.length ? out.subarray(0, p) : out;
  }

  private readDirectory(first: number): DirectoryEntry[] {
    const data = this.readChain(first);
    if (data.length < DIRECTORY_ENTRY) throw new Damaged('no directory');
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const entries: DirectoryEntry[] = [];
    for (let at = 0; at + DIRECTORY_ENTRY <= data.length; at += DIRECTORY_ENTRY) {
      const nameBytes = Math.min(64, view.getUint16(at + 0x40, true));
      let name = '';
      for (let i = 0; i + 1 < nameBytes; i += 2) {
        const ch = view.getUint16(at + i, true);
        if (ch === 0) break;
        name += String.fromCharCode(ch);
      }
      entries.push({
        name,
        type: view.getUint8(at + 0x42),
        left: view.getUint32(at + 0x44, true),
        right: view.getUint32(at + 0x48, true),
        child: view.getUint32(at + 0x4c, true),
        start: view.getUint32(at + 0x74, true),
        // Version 3 files may leave garbage in the high half; no stream here passes 4 GiB.
        size: view.getUint32(at + 0x78, true),
      });
    }
    if (entries[0]?.type !== ROOT) throw new Damaged('no root entry');
    return entries;
  }

  /** A child of a storage (its children are a red-black tree of siblings), by name. */
  private childEntry(storage: DirectoryEntry, name: string): DirectoryEntry | undefined {
    const wanted = name.toUpperCase();
    const stack = [storage.child];
    let visited = 0;
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (id === NO_STREAM) continue;
      const entry = this.entries[id];
      if (!entry || ++visited > this.entries.length) return undefined;
      if (entry.name.toUpperCase() === wanted) return entry;
      stack.push(entry.left, entry.right);
    }
    return undefined;
  }

  /** An entry by its path from the root (`Storage/Stream`), names compared case-insensitively. */
  private entry(path: string): DirectoryEntry | undefined {
    let entry: DirectoryEntry | undefined = this.entries[0]!;
    for (const name of path.split('/')) {
      entry = entry && this.childEntry(entry, name);
    }
    return entry;
  }

  stream(path: string): Uint8Array | undefined {
    const entry = this.entry(path);
    if (!entry || entry.type !== STREAM) return undefined;
    if (entry.size === 0) return new Uint8Array(0);
    if (entry.size >= this.miniCutoff) return this.readChain(entry.start, entry.size);
    return this.readMini(entry.start, entry.size);
  }

  private readMini(start: number, size: number): Uint8Array {
    if (!this.miniFat || !this.miniStream) {
      const table = this.firstMiniFat < END_OF_CHAIN ? this.readChain(this.firstMiniFat) : new Uint8Array(0);
      const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
      this.miniFat = new Uint32Array(Math.floor(table.length / 4));
      for (let i = 0; i < this.miniFat.length; i++) this.miniFat[i] = view.getUint32(i * 4, true);
      const root = this.entries[0]!;
      this.miniStream = root.start < END_OF_CHAIN ? this.readChain(root.start, root.size) : new Uint8Array(0);
    }
    const mini = this.miniStream;
    // A stream in the mini stream is no longer than the mini stream: a bigger claim (with a
    // cutoff a hostile header raised and a looping mini FAT) would repeat its sectors to gigabytes.
    const length = Math.min(size, mini.length);
    const sectors = this.chain(start, this.miniFat, Math.ceil(length / this.miniSectorSize));
    const out = new Uint8Array(length);
    let p = 0;
    for (const s of sectors) {
      const at = s * this.miniSectorSize;
      if (p >= length || at >= mini.length) break;
      const n = Math.min(this.miniSectorSize, length - p, mini.length - at);
      out.set(mini.subarray(at, at + n), p);
      p += n;
    }
    return p < length ? out.subarray(0, p) : out;
  }
}

/** Opens the container; `label` names the expected format in error messages. */
export function openOleContainer(bytes: Uint8Array, label: string): OleContainer {
  if (!OLE_SIGNATURE.every((b, i) => bytes[i] === b)) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The file is not a ${label} (no OLE compound file header).`,
    );
  }
  const damaged = (): ConversionError =>
    new ConversionError('UNPARSABLE_DOCUMENT', `The ${label}'s OLE container is damaged or truncated.`);
  let file: CompoundFile;
  try {
    file = new CompoundFile(bytes);
  } catch (err) {
    if (err instanceof Damaged || err instanceof RangeError) throw damaged();
    throw err;
  }
  const ole: OleContainer = {
    stream(name) {
      try {
        return file.stream(name);
      } catch (err) {
        if (err instanceof Damaged || err instanceof RangeError) throw damaged();
        throw err;
      }
    },
  };
  if (ole.stream('EncryptionInfo') && ole.stream('EncryptedPackage')) {
    throw new ConversionError(
      'ENCRYPTED_DOCUMENT',
      'The document is password-protected (an encrypted Office package); remove the password and upload it again.',
    );
  }
  return ole;
}
