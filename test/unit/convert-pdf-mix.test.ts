import '../helpers/pdf-threads.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { convert } from '../helpers/convert.ts';
import { buildPdf, stream } from '../helpers/pdf.ts';

/**
 * A document made of unrelated parts, as a concatenation of PDFs is: each part has fonts of
 * its own, and some pages are scans with no text layer.
 */
interface MixPage {
  /**
   * A text page: its heading (in the part's bold font at 20 pt), then a bold line and a regular
   * line of the same size, the first of which only the font's real name makes a heading.
   */
  text?: { part: number; heading: string; line: string; bold: string };
  /** A scanned page: a JPEG of these lines, drawn over the whole page, and no text. */
  scan?: Uint8Array;
  /** Over the scan, its OCR layer: these lines, invisible, in Courier (as OCR tools write it). */
  layer?: readonly string[];
}

/** The standard fonts each part sets its pages in: a part's fonts are its own objects. */
const FAMILIES = [
  ['Helvetica', 'Helvetica-Bold'],
  ['Times-Roman', 'Times-Bold'],
];

function mixedPdf(pages: readonly MixPage[], parts: number): Uint8Array {
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const add = (body: string) => objects.push(body);
  // Per part, its regular and bold font objects (object numbers are 1-based).
  const fonts = Array.from({ length: parts }, (_, part) => {
    const [regular, bold] = FAMILIES[part % FAMILIES.length]!;
    add(`<< /Type /Font /Subtype /Type1 /BaseFont /${regular} >>`);
    add(`<< /Type /Font /Subtype /Type1 /BaseFont /${bold} >>`);
    return [objects.length - 1, objects.length];
  });
  const kids: number[] = [];
  for (const page of pages) {
    let content: string;
    let resources: string;
    if (page.text) {
      const [regularFont, boldFont] = fonts[page.text.part]!;
      resources = `<< /Font << /R ${regularFont} 0 R /B ${boldFont} 0 R >> >>`;
      const { heading, line, bold } = page.text;
      content =
        `BT /B 20 Tf 72 700 Td (${heading}) Tj ET BT /B 11 Tf 72 660 Td (${bold}) Tj ET ` +
        `BT /R 11 Tf 72 640 Td (${line}) Tj ET`;
    } else {
      const jpeg = Buffer.from(page.scan!).toString('latin1');
      add(
        stream(
          '/Type /XObject /Subtype /Image /Width 1275 /Height 1650 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode',
          jpeg,
        ),
      );
      resources = `<< /XObject << /Scan ${objects.length} 0 R >> >>`;
      content = 'q 612 0 0 792 0 0 cm /Scan Do Q';
      if (page.layer) {
        add('<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>');
        resources = `<< /XObject << /Scan ${objects.length - 1} 0 R >> /Font << /C ${objects.length} 0 R >> >>`;
        for (const [i, line] of page.layer.entries())
          content += ` BT 3 Tr /C 19 Tf 72 ${672 - i * 23} Td (${line}) Tj ET`;
      }
    }
    add(stream('', content));
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length} 0 R /Resources ${resources} >>`,
    );
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return buildPdf(objects);
}

/** A letter-size page at 150 dpi with these lines in large black print, as a scanner would give it. */
function scannedPage(lines: readonly string[]): Uint8Array {
  const canvas = createCanvas(1275, 1650);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, 1275, 1650);
  ctx.fillStyle = 'black';
  ctx.font = '40px "Liberation Serif"';
  for (const [i, line] of lines.entries()) ctx.fillText(line, 150, 250 + i * 70);
  return canvas.encodeSync('jpeg', 90);
}

const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/** Pages of `parts` parts in turn, `perPart` pages each; a part's pages name it and their number. */
function textPages(parts: number, perPart: number): MixPage[] {
  return Array.from({ length: parts * perPart }, (_, i) => {
    const part = Math.floor(i / perPart);
    return {
      text: {
        part,
        heading: `Part ${part + 1} page ${i + 1}`,
        line: `The ${words[i % words.length]} paragraph of page ${i + 1} belongs to part ${part + 1}.`,
        bold: `Section ${i + 1} in bold`,
      },
    };
  });
}

/** The PDF converter in the test's process, on a document of unrelated parts. */
describe('PDF made of unrelated documents', () => {
  function call(bytes: Uint8Array, options: Record<string, unknown>) {
    return convert({ bytes, filename: 'mix.pdf' }, options);
  }

  it('reads a long mix in fast mode whole and in order, each part with its own fonts resolved', async () => {
    // 72 pages: past the two-thread threshold, so the second thread reads the last parts.
    const pages = textPages(6, 12);
    const data = await call(mixedPdf(pages, 6), { parsers: [{ type: 'pdf', mode: 'fast' }] });
    assert.equal(data.metadata.numPages, 72);
    assert.equal(data.warning, undefined);
    const md = data.markdown!;
    let at = -1;
    for (const [i, page] of pages.entries()) {
      const { heading, line, bold } = page.text!;
      const headingAt = md.indexOf(`## ${heading}\n`);
      // Read on either thread, the page's fonts are known by name: its bold line is a heading.
      const boldAt = md.search(new RegExp(`^#{2,4} ${bold}\n`, 'm'));
      const lineAt = md.indexOf(line);
      assert.ok(headingAt > at && boldAt > headingAt && lineAt > boldAt, `page ${i + 1}: in order, headings`);
      at = lineAt;
    }
  });

  it('OCRs only the scanned pages of a mix in auto mode, and says so per page', async () => {
    const scan = scannedPage([
      'Quarterly inventory of the',
      'northern warehouse was',
      'counted by hand in March.',
    ]);
    const pages: MixPage[] = [...textPages(2, 2).slice(0, 2), { scan }, ...textPages(2, 2).slice(2)];
    const bytes = mixedPdf(pages, 2);
    const data = await call(bytes, { parsers: [{ type: 'pdf', mode: 'auto', blocks: true }] });
    assert.equal(data.metadata.numPages, 5);
    assert.deepEqual(data.usage, { pages: 5, ocrPages: 1 });
    const md = data.markdown!;
    assert.match(md, /northern warehouse/i);
    for (const page of pages) if (page.text) assert.ok(md.includes(page.text.line), page.text.line);
    const sources = data.blocks!.map((p) => [
      p.pageNumber,
      [...new Set(p.items.map((item) => item.source))].join(),
    ]);
    assert.deepEqual(sources, [
      [1, 'text-layer'],
      [2, 'text-layer'],
      [3, 'ocr'],
      [4, 'text-layer'],
      [5, 'text-layer'],
    ]);
    // Fast mode reads the same text pages and leaves the scan alone.
    const fast = await call(bytes, { parsers: [{ type: 'pdf', mode: 'fast' }] });
    assert.doesNotMatch(fast.markdown!, /warehouse/i);
    assert.deepEqual(fast.usage, { pages: 5, ocrPages: 0 });
    for (const page of pages) if (page.text) assert.ok(fast.markdown!.includes(page.text.line));
  });

  it("reads a scan's text layer as prose in every mode, not as code for its Courier", async () => {
    const lines = [
      'Quarterly inventory of the',
      'northern warehouse was',
      'counted by hand in March.',
      'Totals follow on the next page.',
    ];
    const bytes = mixedPdf([{ scan: scannedPage(lines), layer: lines }], 1);
    for (const mode of ['fast', 'auto']) {
      const data = await call(bytes, { parsers: [{ type: 'pdf', mode }] });
      // The page's image is where it is drawn, without being decoded: fast mode sees the
      // scan under the Courier too.
      assert.doesNotMatch(data.markdown!, /```|^ {4}/m, mode);
      assert.match(data.markdown!, /northern warehouse was counted by hand/, mode);
      assert.equal(data.metadata.numPages, 1);
    }
  });
});
