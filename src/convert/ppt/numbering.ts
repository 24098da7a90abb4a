import { type PptRecord, type RecordReader, RT } from './records.ts';

/**
 * Numbered paragraphs ([MS-PPT] StyleTextProp9Atom, PowerPoint 2000 and later): a
 * shape's ClientData carries a "___PPT9" program tag whose data holds a StyleTextProp9Atom,
 * an array of TextPFException9 / TextCFException9 / TextSIException triples. A paragraph
 * whose first character run names an entry (fontStyle.pp9rt) with fBulletHasAutoNumber set is
 * numbered, from the entry's start number (1 when absent).
 */
export interface Numbering {
  numbered: boolean;
  start: number;
}

const PPT9_TAG = '___PPT9';
/** PFMasks: bulletBlip (23), bulletScheme (24: scheme + start), bulletHasScheme (25: fBulletHasAutoNumber). */
const PF9_BLIP = 1 << 23;
const PF9_SCHEME = 1 << 24;
const PF9_HAS_SCHEME = 1 << 25;
/** CFMasks.pp10ext: a 4-byte pp10runid field follows. */
const CF9_PP10 = 1 << 20;
/** SIMasks fields in order: spellInfo, lid, altLid (2 bytes each), bidi (2), pp10 (4), smart tags. */
const SI_FIELDS: [mask: number, size: number][] = [
  [0x1, 2],
  [0x2, 2],
  [0x4, 2],
  [0x40, 2],
  [0x20, 4],
];
const SI_SMART_TAG = 0x200;
const utf16 = new TextDecoder('utf-16le');

function readEntries(reader: RecordReader, atom: PptRecord): Numbering[] {
  const r = reader.r;
  const out: Numbering[] = [];
  let p = atom.body;
  try {
    while (p + 12 <= atom.end) {
      const pf = r.u32(p);
      p += 4;
      if (pf & PF9_BLIP) p += 2;
      let numbered = false;
      if (pf & PF9_HAS_SCHEME) {
        numbered = r.u16(p) === 1;
        p += 2;
      }
      let start = 1;
      if (pf & PF9_SCHEME) {
        start = r.i16(p + 2) || 1;
        p += 4;
      }
      const cf = r.u32(p);
      p += 4 + (cf & CF9_PP10 ? 4 : 0);
      const si = r.u32(p);
      p += 4;
      for (const [mask, size] of SI_FIELDS) if (si & mask) p += size;
      if (si & SI_SMART_TAG) p += 4 + r.u32(p) * 4;
      out.push({ numbered, start });
    }
  } catch {
    // A damaged atom keeps the entries read so far; they only decide list numbering.
  }
  return out;
}

/** The numbering entries of a shape, from its ClientData; [] when it has none. */
export function readShapeNumbering(reader: RecordReader, clientData: PptRecord): Numbering[] {
  const tags = reader.child(clientData, RT.progTags);
  if (!tags) return [];
  for (const tag of reader.children(tags)) {
    if (tag.type !== RT.progBinaryTag) continue;
    const parts = reader.children(tag);
    const name = parts.find((c) => c.type === RT.cString);
    const blob = parts.find((c) => c.type === RT.binaryTagDataBlob);
    if (!name || !blob || utf16.decode(reader.bytes(name)) !== PPT9_TAG) continue;
    // The blob is an atom whose bytes are themselves records.
    for (let at = blob.body; at + 8 <= blob.end; ) {
      const rec = reader.at(at, blob.end);
      if (!rec) break;
      if (rec.type === RT.styleTextProp9Atom) return readEntries(reader, rec);
      at = rec.end;
    }
  }
  return [];
}
