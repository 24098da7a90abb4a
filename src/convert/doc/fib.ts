import { ConversionError } from '../converter.ts';
import type { ByteReader } from './byte-reader.ts';

/** The File Information Block ([MS-DOC] 2.5.1): where everything in a Word 97+ file lives. */
export interface Fib {
  nFib: number;
  /** Language of the document's text (an LCID). */
  lid: number;
  /** Which table stream holds the structures: `0Table` or `1Table`. */
  tableStream: '0Table' | '1Table';
  /** Character counts of the document parts, in their order in the CP space. */
  ccpText: number;
  ccpFtn: number;
  ccpHdd: number;
  ccpAtn: number;
  ccpEdn: number;
  ccpTxbx: number;
  /** (offset, size) pairs into the table stream, by FibRgFcLcb97 index. */
  fcLcb: (index: number) => { fc: number; lcb: number };
}

/** Indices into FibRgFcLcb97 ([MS-DOC] 2.5.6). */
export const FC = {
  stshf: 1,
  plcffndRef: 2,
  plcffndTxt: 3,
  plcfBteChpx: 12,
  plcfBtePapx: 13,
  clx: 33,
  plcSpaMom: 40,
  plcfendRef: 46,
  plcfendTxt: 47,
  dggInfo: 50,
  plcftxbxTxt: 56,
  plfLst: 73,
  plfLfo: 74,
} as const;

const W_IDENT = 0xa5ec;
/** Word 6 and Word 95 files (nFib 101-105) use another layout; Word 97 and later write 193 and up. */
const NFIB_WORD6 = 101;
const NFIB_WORD97_MIN = 106;

export function readFib(r: ByteReader): Fib {
  if (!r.has(0, 34) || r.u16(0) !== W_IDENT) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The WordDocument stream does not start with a Word file header.',
    );
  }
  const nFib = r.u16(2);
  const flags = r.u16(10);
  if (flags & 0x0100 || flags & 0x8000) {
    throw new ConversionError(
      'ENCRYPTED_DOCUMENT',
      'The document is password-protected (an encrypted Word 97-2003 file); remove the password and upload it again.',
    );
  }
  if (nFib >= NFIB_WORD6 && nFib < NFIB_WORD97_MIN) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The file is a Word 6/95 document (format version ${nFib}); only Word 97-2003 .doc files are supported.`,
    );
  }
  const csw = r.u16(32);
  const lwAt = 34 + csw * 2;
  const cslw = r.u16(lwAt);
  const lw = (i: number): number => (i < cslw ? r.i32(lwAt + 2 + i * 4) : 0);
  const fcAt = lwAt + 2 + cslw * 4;
  const cbRgFcLcb = r.u16(fcAt);
  const fcLcb = (index: number): { fc: number; lcb: number } =>
    index < cbRgFcLcb && r.has(fcAt + 2 + index * 8, 8)
      ? { fc: r.u32(fcAt + 2 + index * 8), lcb: r.u32(fcAt + 6 + index * 8) }
      : { fc: 0, lcb: 0 };
  const count = (i: number): number => Math.max(0, lw(i));
  return {
    nFib,
    lid: r.u16(6),
    tableStream: flags & 0x0200 ? '1Table' : '0Table',
    ccpText: count(3),
    ccpFtn: count(4),
    ccpHdd: count(5),
    ccpAtn: count(7),
    ccpEdn: count(8),
    ccpTxbx: count(9),
    fcLcb,
  };
}
