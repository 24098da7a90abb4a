import type { ByteReader } from './byte-reader.ts';
import { blip, FBSE, FBSE_HEADER, type Picture } from './picture.ts';

/**
 * Floating pictures ([MS-DOC] 2.9.172 OfficeArtContent, [MS-ODRAW]): a drawn-object anchor
 * (0x08) at a CP has an FSPA in PlcSpaMom naming a shape id; the shape's properties (FOPT)
 * name a BLIP store entry (pib), whose FBSE holds the image or points at it in the
 * WordDocument stream. A text box shape's text lies in the text box part, located by
 * PlcftxbxTxt, whose entries name their shape.
 */
export interface Drawings {
  /** The picture anchored at main-text `cp`, if it is a PNG/JPEG picture. */
  pictureAt(cp: number): Picture | undefined;
  /** The text box anchored at main-text `cp`: its [start, end) CPs in the text box part. */
  textBoxAt(cp: number): [number, number] | undefined;
  /** Every text box with text, in the text box part's order. */
  textBoxes: [number, number][];
}

const SP_CONTAINER = 0xf004;
const FSP = 0xf00a;
const FOPT = 0xf00b;
const PID_PIB = 0x0104;
const FSPA_SIZE = 26;
/** FTXBXS: fReusable at 8, lid (the shape id) at 14. */
const FTXBXS_SIZE = 22;
/** Records visited in one document's drawing data; real documents have a few thousand. */
const MAX_RECORDS = 200_000;
const MAX_DEPTH = 16;

interface Visit {
  type: number;
  instance: number;
  body: number;
  end: number;
}

/**
 * Walks OfficeArtContent: the drawing group container, then per drawing a 1-byte dgglbl
 * and a drawing container; containers are descended into, to a bounded depth.
 */
function walk(r: ByteReader, start: number, end: number, visit: (rec: Visit, depth: number) => void): void {
  let budget = MAX_RECORDS;
  /** Visits the record at `at` (and its children); returns where the next one starts. */
  const record = (at: number, to: number, depth: number): number => {
    const verInst = r.u16(at);
    const size = r.u32(at + 4);
    const body = at + 8;
    const recEnd = Math.min(body + size, to);
    visit({ type: r.u16(at + 2), instance: verInst >> 4, body, end: recEnd }, depth);
    if ((verInst & 0xf) === 0xf && depth < MAX_DEPTH) {
      for (let child = body; child + 8 <= recEnd && budget-- > 0; ) child = record(child, recEnd, depth + 1);
    }
    return body + size;
  };
  let at = record(start, end, 0);
  while (at + 9 <= end && budget-- > 0) at = record(at + 1, end, 0);
}

/** Shape id → picture store index (pib), and the store's FBSE offsets. */
function readShapes(
  table: ByteReader,
  dggInfo: { fc: number; lcb: number },
): { fbses: number[]; pibBySpid: Map<number, number> } {
  const fbses: number[] = [];
  const pibBySpid = new Map<number, number>();
  if (!dggInfo.lcb || !table.has(dggInfo.fc, dggInfo.lcb)) return { fbses, pibBySpid };
  let spid: number | undefined;
  walk(table, dggInfo.fc, dggInfo.fc + dggInfo.lcb, (rec, depth) => {
    if (rec.type === FBSE && depth === 2) fbses.push(rec.body);
    else if (rec.type === SP_CONTAINER) spid = undefined;
    else if (rec.type === FSP && rec.end - rec.body >= 4) spid = table.u32(rec.body);
    else if (rec.type === FOPT && spid !== undefined) {
      for (let i = 0; i < rec.instance && rec.body + i * 6 + 6 <= rec.end; i++) {
        const opid = table.u16(rec.body + i * 6);
        if ((opid & 0x3fff) === PID_PIB) pibBySpid.set(spid, table.u32(rec.body + i * 6 + 2));
      }
    }
  });
  return { fbses, pibBySpid };
}

/** A PLC of `n` entries of `size` bytes after n+1 CPs: [cp, entry offset] pairs. */
function plc(table: ByteReader, at: { fc: number; lcb: number }, size: number): [number, number, number][] {
  if (at.lcb < 4 + size + 4 || !table.has(at.fc, at.lcb)) return [];
  const n = Math.floor((at.lcb - 4) / (4 + size));
  const out: [number, number, number][] = [];
  for (let i = 0; i < n; i++)
    out.push([table.u32(at.fc + i * 4), table.u32(at.fc + i * 4 + 4), at.fc + (n + 1) * 4 + i * size]);
  return out;
}

export function readDrawings(
  table: ByteReader,
  word: ByteReader,
  at: {
    dggInfo: { fc: number; lcb: number };
    plcSpaMom: { fc: number; lcb: number };
    plcftxbxTxt: { fc: number; lcb: number };
  },
  textBoxPart: [number, number],
): Drawings {
  const { fbses, pibBySpid } = readShapes(table, at.dggInfo);
  const spidByCp = new Map<number, number>();
  for (const [cp, , entry] of plc(table, at.plcSpaMom, FSPA_SIZE)) spidByCp.set(cp, table.u32(entry));
  // PlcftxbxTxt: text box ranges in the text box part, with the shape (lid) showing each.
  const boxBySpid = new Map<number, [number, number]>();
  const [partStart, partEnd] = textBoxPart;
  for (const [cp, next, entry] of plc(table, at.plcftxbxTxt, FTXBXS_SIZE)) {
    const start = partStart + cp;
    const end = Math.min(partStart + next, partEnd);
    if (table.i16(entry + 8) === 0 && start < end) boxBySpid.set(table.u32(entry + 14), [start, end]);
  }
  return {
    textBoxes: [...boxBySpid.values()],
    textBoxAt(cp) {
      const shape = spidByCp.get(cp);
      return shape === undefined ? undefined : boxBySpid.get(shape);
    },
    pictureAt(cp) {
      const shape = spidByCp.get(cp);
      const pib = shape === undefined ? undefined : pibBySpid.get(shape);
      const fbse = pib === undefined ? undefined : fbses[pib - 1];
      if (fbse === undefined || !table.has(fbse, FBSE_HEADER)) return undefined;
      const nameSize = table.u8(fbse + 33);
      const embedded = fbse + FBSE_HEADER + nameSize;
      // An FBSE with room after its name holds the BLIP; otherwise it lies at foDelay in WordDocument.
      const size = table.u32(fbse - 4);
      if (embedded + 8 <= fbse + size) return blip(table, embedded, fbse + size);
      const delay = table.u32(fbse + 28);
      return word.has(delay, 8) ? blip(word, delay, word.length) : undefined;
    },
  };
}
