import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import type { ByteReader } from '../doc/byte-reader.ts';

/**
 * The record layer of the "PowerPoint Document" stream ([MS-PPT], [MS-ODRAW]):
 * every structure is an 8-byte header (recVer:4, recInstance:12, recType:16, recLen:32)
 * followed by its body; a recVer of 0xF marks a container of further records. Lengths come
 * from the file, so children are clamped to their parent and a short parent is noted as damage.
 */
export interface PptRecord {
  type: number;
  instance: number;
  container: boolean;
  /** Offset of the body in the stream. */
  body: number;
  /** End of the body, clamped to the parent (or the stream). */
  end: number;
}

export const RT = {
  document: 0x03e8,
  slide: 0x03ee,
  slideAtom: 0x03ef,
  notes: 0x03f0,
  slidePersistAtom: 0x03f3,
  slideShowSlideInfoAtom: 0x03f9,
  exObjList: 0x0409,
  ppDrawingGroup: 0x040b,
  ppDrawing: 0x040c,
  oePlaceholderAtom: 0x0bc3,
  exHyperlinkAtom: 0x0fd3,
  exHyperlink: 0x0fd7,
  cString: 0x0fba,
  outlineTextRefAtom: 0x0f9e,
  textHeaderAtom: 0x0f9f,
  textCharsAtom: 0x0fa0,
  styleTextPropAtom: 0x0fa1,
  textBytesAtom: 0x0fa8,
  textInteractiveInfoAtom: 0x0fdf,
  interactiveInfo: 0x0ff2,
  interactiveInfoAtom: 0x0ff3,
  slideListWithText: 0x0ff0,
  userEditAtom: 0x0ff5,
  currentUserAtom: 0x0ff6,
  persistDirectoryAtom: 0x1772,
  progTags: 0x1388,
  progBinaryTag: 0x138a,
  binaryTagDataBlob: 0x138b,
  styleTextProp9Atom: 0x0fac,
  cryptSession10Container: 0x2f14,
  dggContainer: 0xf000,
  bStoreContainer: 0xf001,
  dgContainer: 0xf002,
  spgrContainer: 0xf003,
  spContainer: 0xf004,
  fbse: 0xf007,
  fsp: 0xf00a,
  fopt: 0xf00b,
  clientTextbox: 0xf00d,
  childAnchor: 0xf00f,
  clientAnchor: 0xf010,
  clientData: 0xf011,
  tertiaryFopt: 0xf122,
} as const;

export const HEADER_SIZE = 8;

/**
 * Reads records of one stream within a shared budget: the persist directory can point many
 * slides at the same bytes, so every record visited counts, and running out is an error
 * rather than a slow death.
 */
export class RecordReader {
  readonly r: ByteReader;
  /** Set when a record claimed more bytes than its parent (or the stream) holds. */
  damaged = false;
  private budget: number = limits.pptRecords;

  constructor(r: ByteReader) {
    this.r = r;
  }

  /** The record at `at`, its body clamped to `limit`; undefined when no header fits. */
  at(at: number, limit = this.r.length): PptRecord | undefined {
    if (!this.r.has(at, HEADER_SIZE) || at + HEADER_SIZE > limit) return undefined;
    if (--this.budget < 0) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The presentation has more than ${limits.pptRecords} records to read (limits.pptRecords).`,
      );
    }
    const verInst = this.r.u16(at);
    const body = at + HEADER_SIZE;
    const length = this.r.u32(at + 4);
    if (body + length > limit) this.damaged = true;
    return {
      type: this.r.u16(at + 2),
      instance: verInst >> 4,
      container: (verInst & 0xf) === 0xf,
      body,
      end: Math.min(body + length, limit),
    };
  }

  /** The records directly inside a container, in order. */
  children(parent: PptRecord): PptRecord[] {
    const out: PptRecord[] = [];
    if (!parent.container) return out;
    let at = parent.body;
    while (at + HEADER_SIZE <= parent.end) {
      const rec = this.at(at, parent.end);
      if (!rec) break;
      out.push(rec);
      at = rec.body + this.r.u32(at + 4);
    }
    return out;
  }

  /** The first direct child of `type` (the children after it are not read). */
  child(parent: PptRecord, type: number): PptRecord | undefined {
    if (!parent.container) return undefined;
    let at = parent.body;
    while (at + HEADER_SIZE <= parent.end) {
      const rec = this.at(at, parent.end);
      if (!rec) return undefined;
      if (rec.type === type) return rec;
      at = rec.body + this.r.u32(at + 4);
    }
    return undefined;
  }

  /** Bytes of a record's body. */
  bytes(rec: PptRecord): Uint8Array {
    return this.r.slice(rec.body, rec.end - rec.body);
  }
}
