import type { ByteReader } from './byte-reader.ts';

/**
 * List definitions ([MS-DOC] 2.9.150 PlfLst, 2.9.151 PlfLfo): a paragraph's ilfo picks a
 * list override (LFO), which names a list (LSTF by lsid), whose levels (LVL) give each
 * level's number format (nfc) and start value.
 */
export interface ListLevel {
  /** Number format: 0 decimal, 1-4 roman/letters, 23 bullet, 255 none, ... */
  nfc: number;
  start: number;
}

export interface ListDefinitions {
  /** ilfo (1-based) → the list's lsid and levels. */
  lookup(ilfo: number): { lsid: number; levels: ListLevel[] } | undefined;
}

const LSTF_SIZE = 28;
const LVLF_SIZE = 28;
const LFO_SIZE = 16;
export const NFC_BULLET = 23;
export const NFC_NONE = 255;

function readLevels(r: ByteReader, at: number, count: number): { levels: ListLevel[]; next: number } {
  const levels: ListLevel[] = [];
  let o = at;
  for (let i = 0; i < count; i++) {
    const start = r.i32(o);
    const nfc = r.u8(o + 4);
    const cbChpx = r.u8(o + 24);
    const cbPapx = r.u8(o + 25);
    o += LVLF_SIZE + cbPapx + cbChpx;
    o += 2 + r.u16(o) * 2;
    levels.push({ nfc, start });
  }
  return { levels, next: o };
}

export function readLists(
  table: ByteReader,
  plfLst: { fc: number; lcb: number },
  plfLfo: { fc: number; lcb: number },
): ListDefinitions {
  const byLsid = new Map<number, ListLevel[]>();
  if (plfLst.lcb >= 2 && table.has(plfLst.fc, plfLst.lcb)) {
    const at = plfLst.fc;
    const count = Math.min(Math.max(0, table.i16(at)), Math.floor((plfLst.lcb - 2) / LSTF_SIZE));
    // The LVLs are not counted in lcbPlfLst: they follow it in the table stream.
    let lvlAt = at + 2 + count * LSTF_SIZE;
    try {
      for (let i = 0; i < count; i++) {
        const lstf = at + 2 + i * LSTF_SIZE;
        const simple = (table.u8(lstf + 26) & 1) !== 0;
        const { levels, next } = readLevels(table, lvlAt, simple ? 1 : 9);
        byLsid.set(table.i32(lstf), levels);
        lvlAt = next;
      }
    } catch {
      // Lists read so far are kept; later ones render as plain paragraphs.
    }
  }
  const lsids: number[] = [];
  if (plfLfo.lcb >= 4 && table.has(plfLfo.fc, plfLfo.lcb)) {
    const r = table.sub(plfLfo.fc, plfLfo.lcb);
    const count = Math.min(r.u32(0), Math.floor((r.length - 4) / LFO_SIZE));
    for (let i = 0; i < count; i++) lsids.push(r.i32(4 + i * LFO_SIZE));
  }
  return {
    lookup(ilfo) {
      const lsid = lsids[ilfo - 1];
      const levels = lsid === undefined ? undefined : byLsid.get(lsid);
      return lsid === undefined || !levels ? undefined : { lsid, levels };
    },
  };
}
