import zlib from 'node:zlib';
import { limits } from '../../limits.ts';

/**
 * Rebuilding a PDF whose structure pdf.js cannot use: a cross-reference table or trailer
 * that points nowhere, a catalog or page tree that is missing, cut short or garbled. Its
 * objects are found by scanning the bytes for `N G obj` (and inside object streams), the
 * pages are taken from the page tree as far as it can be followed, or else every object that
 * is a page, in file order; then a new page tree, catalog and cross-reference stream are
 * appended, as an incremental update would. The objects themselves are left as they are.
 */

/** Where an object's latest version lives: at an offset, or at an index in an object stream. */
type Location = { offset: number } | { stream: number; index: number };

interface Found {
  num: number;
  gen: number;
  at: Location;
  /** Its text up to its stream data (the dictionary), for telling what it is. */
  dict: string;
  /** Position in the file of this version, so that the latest one wins. */
  order: number;
  /** Whether it ends where it should (`endobj` or its stream) before the next object starts. */
  closed: boolean;
}

export interface RebuiltPdf {
  bytes: Uint8Array;
  pages: number;
  /** Whether the pages came from scanning rather than from the page tree. */
  scanned: boolean;
}

/** The longest dictionary text kept per object: page and catalog dictionaries are far shorter. */
const DICT_CHARS = 64 * 1024;

/** The highest object number the PDF format allows (ISO 32000-1, annex C). */
const MAX_OBJECT = 8_388_607;

const HEADER = /(?<![0-9])(\d{1,10})[\0\t\n\f\r ]+(\d{1,5})[\0\t\n\f\r ]+obj(?![A-Za-z])/g;
const REF = /(\d+)\s+(\d+)\s+R(?![A-Za-z])/g;

export function rebuildPdf(bytes: Uint8Array): RebuiltPdf | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  const objects = scanObjects(text, bytes);
  if (objects.size === 0) return undefined;
  const trailer = trailerKeys(text, objects);
  let pages = fromTree(objects, trailer.roots);
  const scanned = pages.length === 0;
  if (scanned) pages = [...objects.values()].filter((o) => isPage(o.dict)).sort((a, b) => a.order - b.order);
  if (pages.length === 0) return undefined;
  // pdf.js counts offsets from the header, which may follow junk (within its first 1 KB).
  const header = Math.max(0, text.slice(0, 1024).indexOf('%PDF-'));
  return { bytes: appendUpdate(bytes, objects, pages, trailer, header), pages: pages.length, scanned };
}

function scanObjects(text: string, bytes: Uint8Array): Map<number, Found> {
  const objects = new Map<number, Found>();
  const keep = (found: Found) => {
    const old = objects.get(found.num);
    if (!old || old.order <= found.order) objects.set(found.num, found);
  };
  const headers: { num: number; gen: number; start: number; end: number }[] = [];
  for (const m of text.matchAll(HEADER)) {
    if (headers.length >= limits.pdfRepairObjects) break;
    // Numbers past the format's own limits are noise, not objects.
    if (Number(m[1]) > MAX_OBJECT || Number(m[2]) > 65535) continue;
    headers.push({ num: Number(m[1]), gen: Number(m[2]), start: m.index, end: m.index + m[0].length });
  }
  // Objects inside object streams count against the same limit as those in the file.
  let room = limits.pdfRepairObjects - headers.length;
  let inflateBudget = limits.pdfRepairInflateBytes;
  for (const [k, h] of headers.entries()) {
    const next = headers[k + 1]?.start ?? text.length;
    const body = text.slice(h.end, Math.min(next, h.end + DICT_CHARS));
    const cut = /\bstream(?:\r\n|\n|\r)|\bendobj\b/.exec(body);
    const dict = cut ? body.slice(0, cut.index) : body;
    keep({ num: h.num, gen: h.gen, at: { offset: h.start }, dict, order: h.start, closed: cut !== null });
    if (cut?.[0].startsWith('stream') && /\/Type\s*\/ObjStm\b/.test(dict) && room > 0) {
      const data = streamData(text, bytes, h.end + cut.index + cut[0].length, dict, next);
      const inflated = inflate(data, inflateBudget);
      if (!inflated) continue;
      inflateBudget -= inflated.length;
      const inner = objectStream(inflated, dict, h.num, room);
      room -= inner.length;
      for (const o of inner) keep({ ...o, order: h.start, closed: true });
    }
  }
  return objects;
}

/** A stream's raw bytes: its /Length when that is a number and fits, else up to `endstream`. */
function streamData(text: string, bytes: Uint8Array, start: number, dict: string, limit: number): Uint8Array {
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
  let end = length ? start + Number(length[1]) : -1;
  if (end < start || end > limit) {
    // Searched up to the next object only: a file of streams without an end is not read again per stream.
    const found = text.slice(start, limit).indexOf('endstream');
    end = found < 0 ? limit : start + found;
  }
  return bytes.subarray(start, end);
}

function inflate(data: Uint8Array, budget: number): Buffer | undefined {
  if (budget <= 0) return undefined;
  try {
    // A cut-off stream still gives what it holds up to the cut.
    return zlib.inflateSync(data, { maxOutputLength: budget, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch {
    return undefined;
  }
}

/**
 * The objects an object stream holds, `max` at most: its header lists `number offset` pairs
 * before /First, offsets increasing. An entry that starts inside the one before it is skipped,
 * so no byte is read as two objects' dictionaries.
 */
function objectStream(
  data: Buffer,
  dict: string,
  streamNum: number,
  max: number,
): Omit<Found, 'order' | 'closed'>[] {
  const n = Math.min(max, Number(/\/N\s+(\d+)/.exec(dict)?.[1] ?? 0));
  const first = Number(/\/First\s+(\d+)/.exec(dict)?.[1] ?? 0);
  if (!(n > 0) || !(first > 0) || first > data.length) return [];
  const text = data.toString('latin1');
  // The pairs of the first n entries and the next entry's offset, where the last one ends.
  const pairs: number[] = [];
  const head = text.slice(0, first);
  const token = /\S+/g;
  for (let m = token.exec(head); m && pairs.length < 2 * n + 2; m = token.exec(head))
    pairs.push(Number(m[0]));
  const out: Omit<Found, 'order' | 'closed'>[] = [];
  let floor = first;
  for (let i = 0; i < n && 2 * i + 1 < pairs.length; i++) {
    const num = pairs[2 * i]!;
    const start = first + pairs[2 * i + 1]!;
    const end = 2 * i + 3 < pairs.length ? first + pairs[2 * i + 3]! : text.length;
    if (!Number.isInteger(num) || num < 0 || num > MAX_OBJECT || !(start >= floor) || start > text.length)
      continue;
    floor = Math.min(Math.max(end, start), start + DICT_CHARS);
    out.push({ num, gen: 0, at: { stream: streamNum, index: i }, dict: text.slice(start, floor) });
  }
  return out;
}

interface TrailerKeys {
  /** Catalogs to try, best first: those trailers name, then objects typed as catalogs. */
  roots: number[];
  info?: string;
  encrypt?: string;
  id?: string;
}

/** Root, Info, Encrypt and ID from the trailers and cross-reference streams, latest first. */
function trailerKeys(text: string, objects: Map<number, Found>): TrailerKeys {
  const dicts: { order: number; dict: string }[] = [];
  // Each trailer is read up to the next one, so a file of trailers is read once, not 4 KB per trailer.
  const trailers = Array.from(text.matchAll(/trailer\s*<</g), (m) => m.index);
  for (const [k, at] of trailers.entries())
    dicts.push({ order: at, dict: text.slice(at, Math.min(at + 4096, trailers[k + 1] ?? text.length)) });
  for (const o of objects.values()) if (/\/Type\s*\/XRef\b/.test(o.dict)) dicts.push(o);
  dicts.sort((a, b) => b.order - a.order);
  const keys: TrailerKeys = { roots: [] };
  // Only objects the scan found can be catalogs; a set keeps each once, in the order found.
  const roots = new Set<number>();
  const ref = (dict: string, key: string) => new RegExp(`/${key}\\s+(\\d+)\\s+(\\d+)\\s+R`).exec(dict);
  for (const { dict } of dicts) {
    const root = ref(dict, 'Root');
    if (root && objects.has(Number(root[1]))) roots.add(Number(root[1]));
    const info = ref(dict, 'Info');
    if (!keys.info && info && objects.has(Number(info[1]))) keys.info = `${info[1]} ${info[2]} R`;
    const encrypt = ref(dict, 'Encrypt');
    if (!keys.encrypt && encrypt) keys.encrypt = `${encrypt[1]} ${encrypt[2]} R`;
    const id = /\/ID\s*(\[\s*<[0-9A-Fa-f\s]*>\s*<[0-9A-Fa-f\s]*>\s*\])/.exec(dict);
    if (!keys.id && id) keys.id = id[1];
  }
  const catalogs = [...objects.values()]
    .filter((o) => /\/Type\s*\/Catalog\b/.test(o.dict))
    .sort((a, b) => b.order - a.order);
  for (const c of catalogs) roots.add(c.num);
  keys.roots = [...roots];
  return keys;
}

/** A page dictionary: typed /Page, or untyped with page contents (pdf.js reads those too). */
function isPage(dict: string): boolean {
  if (/\/Type\s*\/Page(?![A-Za-z])/.test(dict)) return true;
  if (/\/Type\s*\//.test(dict) || /\/Kids\b/.test(dict)) return false;
  return /\/Contents\s*(\d+\s+\d+\s+R|\[)/.test(dict) && /\/(MediaBox|Parent|Resources)\b/.test(dict);
}

/**
 * Pages reachable from the first catalog whose tree leads to any, in tree order; cycles cut.
 * A node is visited once over all catalogs: one that led to no page under a catalog tried
 * before leads to none now, and many catalogs sharing a big tree must not walk it each.
 */
function fromTree(objects: Map<number, Found>, roots: readonly number[]): Found[] {
  const seen = new Set<number>();
  for (const root of roots) {
    const catalog = objects.get(root);
    const pagesRef = catalog && /\/Pages\s+(\d+)\s+\d+\s+R/.exec(catalog.dict);
    if (!pagesRef) continue;
    const pages: Found[] = [];
    const visit = (num: number, depth: number) => {
      const node = objects.get(num);
      if (!node || seen.has(num) || depth > 64 || pages.length >= limits.pdfRepairObjects) return;
      seen.add(num);
      const kids = /\/Kids\s*\[([^\]]*)\]/.exec(node.dict);
      if (kids && !/\/Type\s*\/Page(?![A-Za-z])/.test(node.dict))
        for (const m of kids[1]!.matchAll(REF)) visit(Number(m[1]), depth + 1);
      else if (isPage(node.dict)) pages.push(node);
    };
    visit(Number(pagesRef[1]), 0);
    if (pages.length > 0) return pages;
  }
  return [];
}

/**
 * The bytes with a new page tree, catalog and cross-reference stream after them. The stream
 * lists every object found (compressed ones by their object stream), so pdf.js reads the new
 * update first and never the damaged table. Offsets count from the `%PDF-` header, as pdf.js
 * counts them when junk comes before it.
 */
function appendUpdate(
  bytes: Uint8Array,
  objects: Map<number, Found>,
  pages: readonly Found[],
  trailer: TrailerKeys,
  header: number,
): Uint8Array {
  let size = 0;
  for (const num of objects.keys()) size = Math.max(size, num + 1);
  const [treeNum, catalogNum, xrefNum] = [size, size + 1, size + 2];
  let body = '\n';
  // Page dictionaries pdf.js could not parse come first, as new versions of their objects.
  const moved = new Map<number, number>();
  for (const page of pages) {
    if (page.closed && wellFormed(page.dict)) continue;
    moved.set(page.num, bytes.length - header + body.length);
    body += `${page.num} ${page.gen} obj\n${salvagePage(page.dict)}\nendobj\n`;
  }
  const kids = pages.map((p) => `${p.num} ${p.gen} R`).join(' ');
  const treeAt = bytes.length - header + body.length;
  body += `${treeNum} 0 obj\n<</Type/Pages/Kids[${kids}]/Count ${pages.length}>>\nendobj\n`;
  const catalogAt = bytes.length - header + body.length;
  body += `${catalogNum} 0 obj\n<</Type/Catalog/Pages ${treeNum} 0 R>>\nendobj\n`;
  const xrefAt = bytes.length - header + body.length;
  const rows: [num: number, type: number, a: number, b: number][] = [];
  for (const o of objects.values()) {
    const at = moved.get(o.num);
    if (at !== undefined) rows.push([o.num, 1, at, o.gen]);
    else if (!('offset' in o.at)) rows.push([o.num, 2, o.at.stream, o.at.index]);
    else if (o.at.offset >= header) rows.push([o.num, 1, o.at.offset - header, o.gen]);
  }
  rows.push([treeNum, 1, treeAt, 0], [catalogNum, 1, catalogAt, 0], [xrefNum, 1, xrefAt, 0]);
  rows.sort((a, b) => a[0] - b[0]);
  // Entries of 1 + 4 + 4 bytes (type, offset or object stream, generation or index: an object
  // stream may hold more than 65,535 objects), in runs of consecutive numbers (/Index), so
  // sparse numbering costs nothing.
  const entries = Buffer.alloc(rows.length * 9);
  const index: number[] = [];
  for (const [k, [num, type, a, b]] of rows.entries()) {
    if (k === 0 || num !== rows[k - 1]![0] + 1) index.push(num, 0);
    index[index.length - 1]!++;
    entries.writeUInt8(type, k * 9);
    entries.writeUInt32BE(a, k * 9 + 1);
    entries.writeUInt32BE(b, k * 9 + 5);
  }
  const keys = [
    `/Root ${catalogNum} 0 R`,
    trailer.info ? `/Info ${trailer.info}` : '',
    trailer.encrypt ? `/Encrypt ${trailer.encrypt}` : '',
    trailer.id ? `/ID ${trailer.id}` : '',
  ].join('');
  body += `${xrefNum} 0 obj\n<</Type/XRef/Size ${xrefNum + 1}/Index[${index.join(' ')}]/W[1 4 4]${keys}/Length ${entries.length}>>\nstream\n`;
  const tail = `\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([bytes, Buffer.from(body, 'latin1'), entries, Buffer.from(tail, 'latin1')]);
}

/**
 * Where the dictionary opening at `start` closes (the index after its `>>`), skipping
 * literal and hex strings and nested arrays and dictionaries; -1 when it never closes or a
 * delimiter is out of place.
 */
function dictEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    const pair = c === text[i + 1];
    if (c === '(') {
      let nest = 1;
      for (i++; i < text.length && nest > 0; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '(') nest++;
        else if (text[i] === ')') nest--;
      }
      if (nest > 0) return -1;
      i--;
    } else if (c === ')') {
      return -1;
    } else if (c === '<' && pair) {
      depth++;
      i++;
    } else if (c === '>' && pair) {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    } else if (c === '<') {
      const end = text.indexOf('>', i);
      if (end < 0 || !/^[0-9A-Fa-f\s]*$/.test(text.slice(i + 1, end))) return -1;
      i = end;
    } else if (c === '[') {
      depth++;
    } else if (c === ']') {
      depth--;
    }
    if (depth < 0 || (depth === 0 && !/\s/.test(c!))) return -1;
  }
  return -1;
}

/** Whether an object's text is one whole, balanced dictionary. */
function wellFormed(dict: string): boolean {
  const start = dict.search(/\S/);
  return start >= 0 && dictEnd(dict, start) >= dict.trimEnd().length;
}

/** Page keys worth keeping from a damaged page dictionary, and the plain values they take. */
const PAGE_KEYS = ['Parent', 'Resources', 'MediaBox', 'CropBox', 'Rotate', 'Contents', 'Annots'];
const PLAIN_VALUE = /^\s*(\d+\s+\d+\s+R|\[[-+\d.\sR]*\]|-?\d+(?:\.\d+)?)/;

/**
 * A page dictionary rebuilt from the keys of a damaged one whose values can still be read
 * (references, number arrays, a balanced resource dictionary): the page is then read with
 * what survives instead of not at all.
 */
function salvagePage(dict: string): string {
  let out = '<</Type/Page';
  for (const key of PAGE_KEYS) {
    const at = new RegExp(`/${key}(?![A-Za-z])\\s*`).exec(dict);
    if (!at) continue;
    const from = at.index + at[0].length;
    const plain = PLAIN_VALUE.exec(dict.slice(from));
    const end = !plain && key === 'Resources' && dict.startsWith('<<', from) ? dictEnd(dict, from) : -1;
    if (plain) out += `/${key} ${plain[1]}`;
    else if (end > 0) out += `/${key}${dict.slice(from, end)}`;
  }
  return `${out}>>`;
}
