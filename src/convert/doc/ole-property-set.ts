import type { DocumentMetadata } from '../../document/model.ts';
import { ByteReader } from './byte-reader.ts';

/**
 * Reader for OLE property set streams ([MS-OLEPS]), the `\x05SummaryInformation` and
 * `\x05DocumentSummaryInformation` streams every binary Office file (DOC, XLS, PPT) carries.
 * Damaged streams yield what could be read: metadata is never worth failing a document for.
 */

export type PropertyValue = string | number | boolean | Date;

export interface PropertySection {
  /** The section's format id, as a GUID string. */
  fmtid: string;
  /** Property id → value, for the value types metadata uses (strings, integers, dates). */
  properties: Map<number, PropertyValue>;
}

const VT_I2 = 2;
const VT_I4 = 3;
const VT_BOOL = 11;
const VT_UI4 = 19;
const VT_LPSTR = 30;
const VT_LPWSTR = 31;
const VT_FILETIME = 64;
const PID_CODEPAGE = 1;
const CP_UTF16 = 1200;
const utf16 = new TextDecoder('utf-16le');

/** Milliseconds between the FILETIME epoch (1601-01-01) and the Unix epoch. */
const FILETIME_EPOCH_MS = 11_644_473_600_000;

type Decode = (bytes: Uint8Array) => string;

const CODE_PAGE_LABELS: Record<number, string> = {
  65001: 'utf-8',
  [CP_UTF16]: 'utf-16le',
  874: 'windows-874',
  932: 'shift_jis',
  936: 'gbk',
  949: 'euc-kr',
  950: 'big5',
  866: 'ibm866',
  10000: 'macintosh',
  20866: 'koi8-r',
  28591: 'iso-8859-1',
};

/** Decoders by code page, made once: a TextDecoder costs more to make than a summary to read. */
const decoders = new Map<number, Decode>();

/** A decoder for a Windows code page; ANSI Latin (1252) when unknown. */
function decoderFor(codePage: number): Decode {
  let decode = decoders.get(codePage);
  if (decode) return decode;
  const label =
    CODE_PAGE_LABELS[codePage] ??
    (codePage >= 1250 && codePage <= 1258 ? `windows-${codePage}` : 'windows-1252');
  let decoder: { decode: Decode };
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('windows-1252');
  }
  decode = (bytes) => decoder.decode(bytes);
  // Code pages come from the file: only the labelled ones are worth keeping.
  if (decoders.size < 64) decoders.set(codePage, decode);
  return decode;
}

function guid(r: ByteReader, o: number): string {
  const hex = (from: number, to: number, reverse: boolean): string => {
    const bytes = Array.from(r.slice(o + from, to - from));
    return (reverse ? bytes.reverse() : bytes).map((b) => b.toString(16).padStart(2, '0')).join('');
  };
  return `${hex(0, 4, true)}-${hex(4, 6, true)}-${hex(6, 8, true)}-${hex(8, 10, false)}-${hex(10, 16, false)}`;
}

function fileTime(low: number, high: number): Date | undefined {
  if (low === 0 && high === 0) return undefined;
  const ms = (high * 2 ** 32 + low) / 10_000 - FILETIME_EPOCH_MS;
  const date = new Date(ms);
  // Durations (edit time) and junk land far outside real document dates.
  const year = date.getUTCFullYear();
  return Number.isNaN(ms) || year < 1970 || year > 9999 ? undefined : date;
}

function stripNuls(s: string): string {
  const end = s.indexOf('\0');
  return end < 0 ? s : s.slice(0, end);
}

function readValue(r: ByteReader, o: number, decode: Decode): PropertyValue | undefined {
  const type = r.u16(o);
  const v = o + 4;
  switch (type) {
    case VT_I2:
      return r.i16(v);
    case VT_I4:
      return r.i32(v);
    case VT_UI4:
      return r.u32(v);
    case VT_BOOL:
      return r.u16(v) !== 0;
    case VT_LPSTR: {
      const size = r.u32(v);
      const bytes = r.slice(v + 4, Math.min(size, r.length - v - 4));
      // Under code page 1200 these strings are UTF-16 too, which `decode` already reads.
      return stripNuls(decode(bytes));
    }
    case VT_LPWSTR: {
      const chars = r.u32(v);
      return stripNuls(utf16.decode(r.slice(v + 4, Math.min(chars * 2, r.length - v - 4))));
    }
    case VT_FILETIME:
      return fileTime(r.u32(v), r.u32(v + 4));
    default:
      return undefined;
  }
}

function readSection(r: ByteReader, fmtid: string): PropertySection {
  const properties = new Map<number, PropertyValue>();
  const count = Math.min(r.u32(4), Math.floor((r.length - 8) / 8));
  const offsets: [number, number][] = [];
  for (let i = 0; i < count; i++) offsets.push([r.u32(8 + i * 8), r.u32(12 + i * 8)]);
  // The code page decides how every 8-bit string is read, so it is read first.
  let codePage = 1252;
  for (const [id, offset] of offsets) {
    if (id === PID_CODEPAGE && r.has(offset, 6) && r.u16(offset) === VT_I2) codePage = r.u16(offset + 4);
  }
  const decoder = decoderFor(codePage);
  for (const [id, offset] of offsets) {
    if (id === PID_CODEPAGE || id === 0 || !r.has(offset, 8)) continue;
    try {
      const value = readValue(r, offset, decoder);
      if (value !== undefined) properties.set(id, value);
    } catch {
      // One damaged property does not hide the others.
    }
  }
  return { fmtid, properties };
}

/** The sections of a property set stream; [] when it is not one. */
export function readPropertySet(bytes: Uint8Array): PropertySection[] {
  const r = new ByteReader(bytes, 'property set');
  if (!r.has(0, 28) || r.u16(0) !== 0xfffe) return [];
  const sections: PropertySection[] = [];
  const count = Math.min(r.u32(24), 2);
  for (let i = 0; i < count; i++) {
    const at = 28 + i * 20;
    if (!r.has(at, 20)) break;
    const offset = r.u32(at + 16);
    if (!r.has(offset, 8)) continue;
    const size = Math.min(r.u32(offset), r.length - offset);
    try {
      sections.push(readSection(r.sub(offset, size), guid(r, at)));
    } catch {
      // A damaged section is skipped; the stream's other section may still be fine.
    }
  }
  return sections;
}

/** Summary information property ids ([MS-OLEPS] 2.25.1). */
const SUMMARY_FIELDS: [number, string][] = [
  [2, 'title'],
  [3, 'subject'],
  [4, 'author'],
  [5, 'keywords'],
  [6, 'description'],
  [8, 'lastModifiedBy'],
  [12, 'created'],
  [13, 'modified'],
];

/** Document metadata from a `\x05SummaryInformation` stream. */
export function summaryMetadata(bytes: Uint8Array | undefined): DocumentMetadata {
  const metadata: DocumentMetadata = {};
  const section = bytes ? readPropertySet(bytes)[0] : undefined;
  if (!section) return metadata;
  for (const [id, key] of SUMMARY_FIELDS) {
    const value = section.properties.get(id);
    if (value instanceof Date) metadata[key] = value.toISOString();
    else if (typeof value === 'string' && value.trim()) metadata[key] = value.trim();
  }
  return metadata;
}
