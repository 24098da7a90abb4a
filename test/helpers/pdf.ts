/**
 * A small PDF written from its objects' bodies (object n is `objects[n - 1]`), with a
 * correct cross-reference table: for tests that need a file no corpus holds (a huge image,
 * a font that does not load, a cycle). `stream(dict, data)` writes a stream body.
 */
export function buildPdf(objects: readonly string[], trailer = '/Root 1 0 R'): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

export function stream(dict: string, data: string): string {
  return `<< ${dict} /Length ${Buffer.byteLength(data, 'latin1')} >>\nstream\n${data}\nendstream`;
}

/** A one-page document: the page's content stream, its resources, and any more objects (4 onwards). */
export function onePage(content: string, resources: string, more: readonly string[] = []): Uint8Array {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + more.length} 0 R /Resources ${resources} >>`,
    ...more,
    stream('', content),
  ]);
}

/** A document of one page per content stream, all sharing `resources`. */
export function pagesOf(contents: readonly string[], resources: string): Uint8Array {
  const kids = contents.map((_, i) => `${4 + 2 * i} 0 R`).join(' ');
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${contents.length} >>`,
    resources,
    ...contents.flatMap((content, i) => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${5 + 2 * i} 0 R /Resources 3 0 R >>`,
      stream('', content),
    ]),
  ]);
}

/**
 * `pages` pages of one line of text each, sharing one content stream. In the pdf parser's
 * `ocr` mode every page is rendered and run through Tesseract, one after another: a thousand
 * pages are many minutes of work on any machine, so such a conversion ends by its request's
 * `timeout` and nothing else, and holds its worker and its team's slot until then.
 */
export function pagesToRecognise(pages: number): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ');
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources 4 0 R >>';
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    stream('', 'BT /F1 24 Tf 72 700 Td (A line for the recogniser to read) Tj ET'),
    '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>',
    ...Array.from({ length: pages }, () => page),
  ]);
}

/** The options that have a PDF read by OCR, page after page, within `timeout` ms. */
export const ocrWithin = (timeout: number) => ({ timeout, parsers: [{ type: 'pdf', mode: 'ocr' }] });

/**
 * An LZW stream (PDF LZWDecode, early change) that decodes to `cycles` × ~8 MB of spaces: each
 * cycle fills the code table with ever longer runs of spaces, so ~4 KB of codes give 8 MB.
 * pdf.js decodes LZW itself, with no size cap, which makes this a memory bomb.
 */
export function lzwSpaceBomb(cycles: number): string {
  const bytes: number[] = [];
  let bits = 0;
  let nbits = 0;
  const emit = (code: number, width: number) => {
    bits = (bits << width) | code;
    nbits += width;
    while (nbits >= 8) {
      nbits -= 8;
      bytes.push((bits >> nbits) & 0xff);
    }
    bits &= (1 << nbits) - 1;
  };
  let width = 9;
  for (let cycle = 0; cycle < cycles; cycle++) {
    emit(256, width); // clear: the table starts again at 258 entries, nine-bit codes
    width = 9;
    emit(32, width);
    // Code 258 + k stands for k + 2 spaces, each entry the one before plus a space.
    for (let next = 259, code = 258; ; next++, code++) {
      if (next >= 1 << width && width < 12) width++;
      if (next >= 4000) break;
      emit(code, width);
    }
  }
  emit(257, width); // end of data
  if (nbits > 0) bytes.push((bits << (8 - nbits)) & 0xff);
  return Buffer.from(bytes).toString('latin1');
}
