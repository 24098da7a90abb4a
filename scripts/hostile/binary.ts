import * as XLSX from '@e965/xlsx';
import CFB from 'cfb';
import { openZip } from '../../src/convert/package/zip.ts';
import { type HostileCase, truncated } from './case.ts';
import { deflatedFill, type PackageEntry, writeZip } from './zip.ts';

// Hostile binary Office files: Word and PowerPoint 97-2003 (built record by record), and XLS and
// XLSB (written by SheetJS, then damaged where its records say what follows).

/** An OLE compound file holding the given streams. */
function ole(streams: Record<string, Uint8Array>): Buffer {
  const container = CFB.utils.cfb_new();
  for (const [name, bytes] of Object.entries(streams))
    CFB.utils.cfb_add(container, `/${name}`, Buffer.from(bytes));
  return CFB.write(container, { type: 'buffer' }) as Buffer;
}

const u16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(v & 0xffff);
  return b;
};
const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
};

/**
 * An OLE file whose `stream` chain loops: its first sector's FAT entry points back at itself,
 * and its directory entry claims 4 GB. Streams of 4 KB and more live in regular sectors.
 */
function loopedChain(file: Buffer, stream: string): Buffer {
  const out = Buffer.from(file);
  const sectorAt = (sector: number) => (sector + 1) * 512;
  const directory = sectorAt(out.readUInt32LE(0x30));
  for (let entry = directory; entry < directory + 32 * 128; entry += 128) {
    if (out.toString('utf16le', entry, entry + stream.length * 2) !== stream) continue;
    const start = out.readUInt32LE(entry + 0x74);
    out.writeUInt32LE(0xfffffff0, entry + 0x78);
    const fatSector = out.readUInt32LE(0x4c);
    out.writeUInt32LE(start, sectorAt(fatSector) + start * 4);
    return out;
  }
  throw new Error(`no ${stream} stream in the directory's first sector`);
}

// ------------------------------------------------------------------ DOC

/** Where the text starts in the WordDocument stream, after the FIB. */
const TEXT_AT = 1024;
/** FibRgFcLcb97 index of the Clx (the piece table). */
const CLX = 33;

/** A Word 97 FIB (1Table, 8-bit text) declaring `ccpText` characters and the Clx in the table stream. */
function fib(ccpText: number, clxSize: number): Buffer {
  const out = Buffer.alloc(TEXT_AT);
  out.writeUInt16LE(0xa5ec, 0); // wIdent
  out.writeUInt16LE(0xc1, 2); // nFib: Word 97
  out.writeUInt16LE(0x0200, 10); // fWhichTblStm: 1Table
  out.writeUInt16LE(14, 32); // csw
  const lw = 34 + 14 * 2;
  out.writeUInt16LE(22, lw); // cslw
  out.writeInt32LE(ccpText, lw + 2 + 3 * 4);
  const fcLcb = lw + 2 + 22 * 4;
  out.writeUInt16LE(93, fcLcb); // cbRgFcLcb
  out.writeUInt32LE(0, fcLcb + 2 + CLX * 8);
  out.writeUInt32LE(clxSize, fcLcb + 6 + CLX * 8);
  return out;
}

/** A piece table of `pieces` pieces of `length` characters, each starting at stream byte `at`. */
function clx(pieces: number, length: number, at = TEXT_AT): Buffer {
  const cps = Array.from({ length: pieces + 1 }, (_, i) => u32(i * length));
  // Each PCD: 2 bytes of flags, the fc with bit 30 set (8-bit text, at fc / 2), 2 bytes of prm.
  const pcd = Buffer.concat([u16(0), u32(((at * 2) | 0x40000000) >>> 0), u16(0)]);
  const plc = Buffer.concat([...cps, ...Array.from({ length: pieces }, () => pcd)]);
  return Buffer.concat([Buffer.from([0x02]), u32(plc.length), plc]);
}

function doc(text: string, pieces = 1, pieceLength = text.length, ccpText = text.length): Buffer {
  const table = clx(pieces, pieceLength);
  return ole({
    WordDocument: Buffer.concat([fib(ccpText, table.length), Buffer.from(text, 'latin1')]),
    '1Table': table,
  });
}

const docCases: HostileCase[] = [
  {
    name: 'doc-paragraph-flood',
    filename: 'paragraphs.doc',
    attack: '3 million paragraph marks (past limits.docParagraphs)',
    build: () => doc(`start${'\r'.repeat(3_000_000)}end`),
  },
  {
    name: 'doc-overlapping-pieces',
    filename: 'overlapping-pieces.doc',
    attack: '200,000 pieces that all map to the same 4 KB of text',
    build: () => doc(`${'overlap '.repeat(512)}\r`, 200_000, 4097, 200_000 * 4097),
    cut: true,
  },
  {
    name: 'doc-huge-text-claim',
    filename: 'huge-claim.doc',
    attack: 'a piece and a character count claiming 2 billion characters of a 20-byte text',
    build: () => doc('only twenty bytes.\r\r', 1, 0x7fff_fff0, 0x7fff_fff0),
    cut: true,
  },
  {
    name: 'doc-fat-loop',
    filename: 'fat-loop.doc',
    attack: 'the WordDocument sector chain loops back on itself, its size claiming 4 GB',
    build: () => loopedChain(doc(`${'looping text '.repeat(1000)}\r`), 'WordDocument'),
  },
  {
    name: 'doc-truncated',
    filename: 'truncated.doc',
    attack: 'the first half of a Word 97 file',
    build: () => truncated(doc(`${'a paragraph of text\r'.repeat(2000)}`)),
  },
];

// ------------------------------------------------------------------ PPT

/** A PowerPoint record: header (version/instance, type, length) and body; containers have recVer 0xF. */
function rec(type: number, body: Uint8Array | readonly Uint8Array[], instance = 0): Buffer {
  const container = Array.isArray(body);
  const data = container ? Buffer.concat(body as readonly Uint8Array[]) : Buffer.from(body as Uint8Array);
  return Buffer.concat([u16((instance << 4) | (container ? 0xf : 0)), u16(type), u32(data.length), data]);
}

const RT = {
  document: 0x03e8,
  slide: 0x03ee,
  slidePersistAtom: 0x03f3,
  ppDrawing: 0x040c,
  textHeaderAtom: 0x0f9f,
  textCharsAtom: 0x0fa0,
  slideListWithText: 0x0ff0,
  userEditAtom: 0x0ff5,
  currentUserAtom: 0x0ff6,
  persistDirectoryAtom: 0x1772,
  dgContainer: 0xf002,
  spgrContainer: 0xf003,
} as const;

interface DeckSpec {
  /** Slide list entries (SlidePersistAtoms), all naming slide persist id 2. */
  listEntries: number;
  /** The one slide container's drawing children. */
  drawing: readonly Uint8Array[];
  /** Point the edit's "previous edit" at itself. */
  editLoop?: boolean;
}

/**
 * A deck: the DocumentContainer (persist id 1) with a slide list, one slide (persist id 2), the
 * persist directory, and the UserEditAtom the Current User stream names.
 */
function ppt(spec: DeckSpec): Buffer {
  const text = Buffer.from('Slide text', 'utf16le');
  const entry = Buffer.concat([
    rec(RT.slidePersistAtom, Buffer.concat([u32(2), u32(0), u32(1), u32(256), u32(0)])),
    rec(RT.textHeaderAtom, u32(0)),
    rec(RT.textCharsAtom, text),
  ]);
  const document = rec(RT.document, [
    rec(
      RT.slideListWithText,
      Array.from({ length: spec.listEntries }, () => entry),
    ),
  ]);
  const slide = rec(RT.slide, [rec(RT.ppDrawing, [rec(RT.dgContainer, [...spec.drawing])])]);
  const slideAt = document.length;
  const directoryAt = slideAt + slide.length;
  const directory = rec(RT.persistDirectoryAtom, Buffer.concat([u32((2 << 20) | 1), u32(0), u32(slideAt)]));
  const editAt = directoryAt + directory.length;
  const edit = rec(
    RT.userEditAtom,
    Buffer.concat([
      u32(256),
      u16(0),
      Buffer.from([0, 3]),
      u32(spec.editLoop ? editAt : 0),
      u32(directoryAt),
      u32(1),
      u32(3),
      u16(1),
      u16(0),
    ]),
  );
  const currentUser = rec(
    RT.currentUserAtom,
    Buffer.concat([u32(0x14), u32(0xe391c05f), u32(editAt), Buffer.alloc(8)]),
  );
  return ole({
    'PowerPoint Document': Buffer.concat([document, slide, directory, edit]),
    'Current User': currentUser,
  });
}

/** `depth` shape groups, each inside the one before: headers only, each one's body the rest. */
function deepGroups(depth: number): Buffer {
  const out = Buffer.alloc(depth * 8);
  for (let i = 0; i < depth; i++) {
    out.writeUInt16LE(0xf, i * 8);
    out.writeUInt16LE(RT.spgrContainer, i * 8 + 2);
    out.writeUInt32LE((depth - i - 1) * 8, i * 8 + 4);
  }
  return out;
}

const pptCases: HostileCase[] = [
  {
    name: 'ppt-edit-loop',
    filename: 'edit-loop.ppt',
    attack: 'an edit history whose previous edit is itself, and 100,000 slide list entries naming one slide',
    build: () => ppt({ listEntries: 100_000, drawing: [], editLoop: true }),
  },
  {
    name: 'ppt-deep-groups',
    filename: 'deep-groups.ppt',
    attack: 'shape groups nested 100,000 deep in a slide drawing',
    build: () => ppt({ listEntries: 1, drawing: [deepGroups(100_000)] }),
  },
  {
    name: 'ppt-truncated',
    filename: 'truncated.ppt',
    attack: 'the first half of a deck',
    build: () => truncated(ppt({ listEntries: 2000, drawing: [] })),
  },
];

// ------------------------------------------------------------------ XLS and XLSB

function sheetjs(bookType: 'biff8' | 'xlsb', rows: number): Buffer {
  const wb = XLSX.utils.book_new();
  const data = Array.from({ length: rows }, (_, i) => [`row ${i}`, i, i * 1.5]);
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(data), 'S');
  return Buffer.from(XLSX.write(wb, { type: 'buffer', bookType }) as Uint8Array);
}

/** An XLS whose records claiming sizes (DIMENSIONS, SST counts) claim the most they can. */
function xlsClaims(): Buffer {
  const file = CFB.read(sheetjs('biff8', 200), { type: 'buffer' });
  const workbook = Buffer.from(CFB.find(file, 'Workbook')!.content as Uint8Array);
  for (let at = 0; at + 4 <= workbook.length; ) {
    const type = workbook.readUInt16LE(at);
    const length = workbook.readUInt16LE(at + 2);
    const body = at + 4;
    if (type === 0x0200 && length >= 14) {
      // DIMENSIONS: first row, last row + 1 (32-bit), first column, last column + 1.
      workbook.writeUInt32LE(0xffffffff, body + 4);
      workbook.writeUInt16LE(0xffff, body + 10);
    }
    if (type === 0x00fc && length >= 8) {
      // SST: total and unique string counts.
      workbook.writeUInt32LE(0x7fffffff, body);
      workbook.writeUInt32LE(0x7fffffff, body + 4);
    }
    at = body + length;
  }
  CFB.utils.cfb_del(file, '/Workbook');
  CFB.utils.cfb_add(file, '/Workbook', workbook);
  return CFB.write(file, { type: 'buffer' }) as Buffer;
}

/** A SheetJS XLSB with its sheet part replaced by 600 MiB of zero bytes. */
function xlsbBomb(): Buffer {
  const pkg = openZip(sheetjs('xlsb', 10));
  const entries: PackageEntry[] = pkg.names.map((name) =>
    name.endsWith('sheet1.bin')
      ? { name, deflated: deflatedFill('', 0, 600, '') }
      : { name, data: pkg.bytes(name)! },
  );
  return writeZip(entries);
}

const spreadsheetCases: HostileCase[] = [
  {
    name: 'xls-record-claims',
    filename: 'claims.xls',
    attack: 'DIMENSIONS claiming 4 billion rows and SST claiming 2 billion strings',
    build: xlsClaims,
  },
  {
    name: 'xls-fat-loop',
    filename: 'fat-loop.xls',
    attack: 'the Workbook sector chain loops back on itself, its size claiming 4 GB',
    build: () => loopedChain(sheetjs('biff8', 300), 'Workbook'),
  },
  {
    name: 'xls-truncated',
    filename: 'truncated.xls',
    attack: 'the first 60% of a workbook',
    build: () => truncated(sheetjs('biff8', 2000), 0.6),
  },
  {
    name: 'xlsb-zip-bomb',
    filename: 'zip-bomb.xlsb',
    attack: 'a sheet part inflating to 600 MiB of zero bytes',
    build: xlsbBomb,
  },
  {
    name: 'xlsb-truncated',
    filename: 'truncated.xlsb',
    attack: 'the first 60% of a binary workbook',
    build: () => truncated(sheetjs('xlsb', 2000), 0.6),
  },
];

export const binaryOfficeCases: HostileCase[] = [...docCases, ...pptCases, ...spreadsheetCases];
