import { deflateSync } from 'node:zlib';
import { buildPdf, lzwSpaceBomb, onePage, pagesToRecognise, stream } from '../../test/helpers/pdf.ts';
import { type HostileCase, latin1, nested, truncated } from './case.ts';
import { deflatedFill } from './zip.ts';

// Hostile PDFs, written object by object with the test helpers' writer.

const ADLER = 65521n;

/** Adler-32 of `head`, `count` bytes of `fill`, then `tail`, without the filler in memory. */
function adler32(head: Uint8Array, fill: number, count: number, tail: Uint8Array): number {
  let a = 1n;
  let b = 0n;
  const add = (bytes: Uint8Array) => {
    for (const byte of bytes) {
      a = (a + BigInt(byte)) % ADLER;
      b = (b + a) % ADLER;
    }
  };
  add(head);
  // n equal bytes v: b gains n·a + v·n(n+1)/2 (each step adds the running a), a gains n·v.
  const n = BigInt(count);
  const v = BigInt(fill);
  b = (b + n * a + (v * n * (n + 1n)) / 2n) % ADLER;
  a = (a + n * v) % ADLER;
  add(tail);
  return Number((b << 16n) | a);
}

/** A FlateDecode (zlib) stream body of `mib` MiB of spaces around `head` and `tail`, as latin1 text. */
function flateSpaces(head: string, mib: number, tail: string): string {
  const raw = deflatedFill(head, 0x20, mib, tail).raw;
  const check = Buffer.alloc(4);
  check.writeUInt32BE(adler32(Buffer.from(head), 0x20, mib * 1024 * 1024, Buffer.from(tail)) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), raw, check]).toString('latin1');
}

const font = '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>';
const line = (t: string) => `BT /F1 12 Tf 72 700 Td (${t}) Tj ET`;

/** A PDF file with `/Prev` in its trailer pointing at its own cross-reference table. */
function selfPrev(): Uint8Array {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'];
  const page = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${font} >>`;
  const all = [...objects, page, stream('', line('prev loop'))];
  const first = Buffer.from(buildPdf(all)).toString('latin1');
  const xref = /startxref\n(\d+)/.exec(first)![1]!;
  return buildPdf(all, `/Root 1 0 R /Prev ${xref}`);
}

/** A PDF whose cross-reference offset is wrong, so that readers rebuild it from its objects. */
function withBrokenXref(file: Uint8Array): Uint8Array {
  return latin1(
    Buffer.from(file)
      .toString('latin1')
      .replace(/startxref\n\d+/, 'startxref\n999999999'),
  );
}

export const pdfCases: HostileCase[] = [
  {
    name: 'pdf-page-tree-cycle',
    filename: 'page-tree-cycle.pdf',
    attack: 'a page tree whose node lists its parent and itself as kids, claiming a million pages',
    build: () =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 1000000 >>',
        '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R 4 0 R] /Count 1000000 >>',
        `<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources ${font} >>`,
        stream('', line('one real page')),
      ]),
  },
  {
    name: 'pdf-xref-loop',
    filename: 'xref-loop.pdf',
    attack: 'a trailer whose /Prev is its own table',
    build: selfPrev,
  },
  {
    name: 'pdf-flate-bomb',
    filename: 'flate-bomb.pdf',
    attack: 'a page content stream inflating to 600 MiB of spaces',
    build: () => bombPage(flateSpaces(line('before'), 600, line('after'))),
  },
  {
    name: 'pdf-lzw-bomb',
    filename: 'lzw-bomb.pdf',
    attack: 'an LZW content stream decoding to ~3.2 GB of spaces',
    build: () =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${font} >>`,
        stream('/Filter /LZWDecode', lzwSpaceBomb(400)),
      ]),
  },
  {
    name: 'pdf-huge-image',
    filename: 'huge-image.pdf',
    attack: 'an image XObject declaring 100000 x 100000 pixels, on a page read by OCR',
    build: () =>
      onePage('q 612 0 0 792 0 0 cm /Im1 Do Q', '<< /XObject << /Im1 4 0 R >> >>', [
        stream(
          '/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode',
          deflateSync(Buffer.alloc(100_000)).toString('latin1'),
        ),
      ]),
    options: { parsers: [{ type: 'pdf', mode: 'ocr' }] },
    cut: true,
  },
  {
    name: 'pdf-huge-mediabox',
    filename: 'huge-mediabox.pdf',
    attack: 'a page of 1e9 x 1e9 points, read by OCR',
    build: () =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1000000000 1000000000] /Contents 4 0 R /Resources ${font} >>`,
        stream('', line('tiny text on a huge page')),
      ]),
    options: { parsers: [{ type: 'pdf', mode: 'ocr' }] },
  },
  {
    name: 'pdf-deep-arrays',
    filename: 'deep-arrays.pdf',
    attack: 'arrays nested 500,000 deep in the page dictionary and its content',
    build: () =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${font} /Deep ${nested('[', ']', 500_000)} >>`,
        stream('', `${nested('[', ']', 500_000)} pop ${line('after the arrays')}`),
      ]),
  },
  {
    name: 'pdf-many-pages',
    filename: 'many-pages.pdf',
    attack: '10,000 pages sharing one content stream',
    build: () =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        `<< /Type /Pages /Kids [${Array.from({ length: 10_000 }, (_, i) => `${i + 4} 0 R`).join(' ')}] /Count 10000 >>`,
        stream('', line('the same line on every page')),
        ...Array.from(
          { length: 10_000 },
          () => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources ${font} >>`,
        ),
      ]),
    options: { parsers: [{ type: 'pdf', mode: 'fast' }] },
  },
  {
    name: 'pdf-objstm-claims',
    filename: 'objstm-claims.pdf',
    attack: 'a damaged file whose object stream claims 100 million objects',
    build: () =>
      withBrokenXref(
        onePage(line('text beside the object stream'), font, [
          stream('/Type /ObjStm /N 100000000 /First 8', `${'1 0 '.repeat(2)}<< >>`),
        ]),
      ),
  },
  {
    name: 'pdf-form-recursion',
    filename: 'form-recursion.pdf',
    attack: 'a form XObject that draws itself, drawn 1,000 times',
    build: () =>
      onePage(
        '/Fm1 Do '.repeat(1000) + line('text'),
        '<< /XObject << /Fm1 4 0 R >> /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>',
        [
          stream(
            '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /Fm1 4 0 R >> >>',
            '/Fm1 Do /Fm1 Do',
          ),
        ],
      ),
  },
  {
    name: 'pdf-many-segments',
    filename: 'many-segments.pdf',
    attack: 'a page of a million ruled line segments (table detection)',
    build: () =>
      bombPage(deflateSync(`${line('grid')} ${'0 0 m 100 100 l S '.repeat(1_000_000)}`).toString('latin1')),
  },
  {
    name: 'pdf-encrypted',
    filename: 'encrypted.pdf',
    attack: 'a standard security handler the file cannot be read without',
    build: () =>
      buildPdf(
        [
          '<< /Type /Catalog /Pages 2 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${font} >>`,
          stream('', line('secret')),
          `<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -4 >>`,
        ],
        `/Root 1 0 R /Encrypt 5 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`,
      ),
  },
  {
    name: 'pdf-ocr-flood',
    filename: 'ocr-flood.pdf',
    attack: '1,000 pages to OCR: no machine reads them within the timeout',
    build: () => pagesToRecognise(1000),
    options: { parsers: [{ type: 'pdf', mode: 'ocr' }] },
  },
  {
    name: 'pdf-truncated',
    filename: 'truncated.pdf',
    attack: 'the first half of a 200-page file',
    build: () => truncated(pagesToRecognise(200)),
    options: { parsers: [{ type: 'pdf', mode: 'fast' }] },
  },
];

/** One page whose content stream is the given FlateDecode body. */
function bombPage(flate: string): Uint8Array {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${font} >>`,
    stream('/Filter /FlateDecode', flate),
  ]);
}
