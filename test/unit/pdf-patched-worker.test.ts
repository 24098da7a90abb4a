import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { graphicsFromText, readGraphics } from '../../src/convert/pdf/graphics.ts';
import { loadPdfJs, openAs, type PdfJs } from '../../src/convert/pdf/load-document.ts';
import { patchedWorkerSource, patchedWorkerUrl } from '../../src/convert/pdf/patched-worker.ts';
import { isPdfjsStray } from '../../src/convert/pdf/pdfjs-rejections.ts';
import { readTextLayer } from '../../src/convert/pdf/read-text.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { onePage, stream } from '../helpers/pdf.ts';
import { corpusDir } from '../helpers/server.ts';

/**
 * Pages are read with a copy of pdf.js's worker half that places images without decoding
 * them (src/convert/pdf/patched-worker.ts); pages drawn for OCR use a copy that decodes them.
 * Both must see the same images in the same places, and the reading copy must decode none.
 */

type Matrix = [number, number, number, number, number, number];

/** Every page's image areas, and the ids of the images its operator list paints. */
async function imagesOf(pdfjs: PdfJs, doc: PDFDocumentProxy) {
  const pages = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const viewport = page.getViewport({ scale: 1 });
    const area = viewport.width * viewport.height;
    const { images } = await readGraphics(pdfjs, page, viewport.transform as Matrix, area, false);
    const list = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
    const ids = list.fnArray.flatMap((fn, i) =>
      fn === pdfjs.OPS.paintImageXObject ? [String((list.argsArray[i] as unknown[])[0])] : [],
    );
    pages.push({ page, images, ids });
  }
  return pages;
}

type TextContent = Awaited<ReturnType<PDFPageProxy['getTextContent']>>;

const TEXT_STATES = `BT /F1 12 Tf 72 700 Td (Plain words here) Tj ET
q 1 0 0 1 10 20 cm
BT /F1 10 Tf 5 Ts 150 Tz 2 Tc 3 Tw 72 650 Td (Raised and stretched words) Tj ET
q 0.7071 0.7071 -0.7071 0.7071 300 300 cm
BT /F1 11 Tf 14 TL 0 0 Td (Rotated line one) Tj T* (Rotated line two) Tj ET
Q
BT /F1 9 Tf 0.9 0.1 -0.1 0.9 100 500 Tm [(Kern) -250 (ed) 400 (text)] TJ -3 Ts (low) Tj ET
Q`;

/**
 * Rules in every way pdf.js builds them (a stroke under a scaled matrix, a filled rectangle,
 * a thin bar, a path closed by its paint, a form used twice, a curve that is no rule) and
 * images (an XObject painted twice, an inline image, a one-pixel mask pdf.js paints as a fill).
 */
const RULES_AND_IMAGES = `q 2 w 0.5 0 0 0.5 0 0 cm 144 1400 m 1080 1400 l S 144 1300 m 1080 1300 l S Q
100 600 200 100 re f
100 560 300 2 re f
q 3 w 100 400 m 500 400 l 500 300 l 100 300 l s Q
q 1 0 0 1 0 -100 cm /Fm1 Do Q
/Fm1 Do
100 200 m 150 250 200 200 250 150 c S
q 50 0 0 40 300 100 cm /Im1 Do Q
q 60 0 0 30 400 100 cm /Im1 Do Q
q 20 0 0 20 50 50 cm BI /W 2 /H 2 /BPC 8 /CS /G ID abcd
EI Q
q 10 0 0 10 500 50 cm /Mask1 Do Q
BT /F1 12 Tf 72 740 Td (Words beside the rules) Tj ET`;
const RULES_RESOURCES =
  '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> /XObject << /Fm1 4 0 R /Im1 5 0 R /Mask1 6 0 R >> >>';
const RULES_OBJECTS = [
  stream(
    '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Matrix [1 0 0 1 10 0]',
    '0.5 w 72 500 m 540 500 l S 72 480 m 540 480 l S',
  ),
  stream(
    '/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceGray',
    'wxyz',
  ),
  stream('/Type /XObject /Subtype /Image /Width 1 /Height 1 /ImageMask true /BitsPerComponent 1', '\x00'),
];

/**
 * Text content with font ids that differ only in their document's number made the same, less
 * the rules and images the reading copy hands over with it (compared in a test of their own).
 */
function sameFontIds(content: TextContent) {
  const id = (name: string) => name.replace(/^g_d\d+_/, 'g_d_');
  return {
    ...content,
    items: content.items
      .filter((item) => !('type' in item && (item.type as string) === 'quireGraphics'))
      .map((item) => ('fontName' in item ? { ...item, fontName: id(item.fontName) } : item)),
    styles: Object.fromEntries(Object.entries(content.styles).map(([name, style]) => [id(name), style])),
  };
}

const firstPass = firstPassOnly("pdf.js in the test's process, no server");
describe('PDF pages read with images placed, not decoded', firstPass, () => {
  it('see the images a drawing pdf.js sees, where it sees them, and decode none', async () => {
    const pdfjs = await loadPdfJs();
    const file = path.join(corpusDir, 'pdf/multicolumn/pjs-tracemonkey.pdf');
    const bytes = new Uint8Array(fs.readFileSync(file));
    const read = await openAs(pdfjs, bytes, 'read');
    const drawn = await openAs(pdfjs, bytes, 'draw');
    try {
      const [reading, drawing] = [await imagesOf(pdfjs, read.doc), await imagesOf(pdfjs, drawn.doc)];
      assert.deepEqual(
        reading.map((p) => p.images),
        drawing.map((p) => p.images),
      );
      assert.ok(reading.filter((p) => p.images.length > 0).length >= 3, 'images on several pages');
      // What the drawing copy decoded reaches the page's objects; nothing read reaches them.
      await new Promise((resolve) => setImmediate(resolve));
      const decoded = (pages: typeof reading) =>
        pages.flatMap(({ page, ids }) => ids.filter((id) => page.objs.has(id) || page.commonObjs.has(id)));
      assert.ok(decoded(drawing).length > 0, 'the drawing copy decodes the images it paints');
      assert.deepEqual(decoded(reading), []);
    } finally {
      await read.close();
      await drawn.close();
    }
  });

  it('reads the same text, positions and font metrics as pdf.js as shipped, building no font file', async () => {
    // Fonts of every kind pdf.js rebuilds: Type1, Type1C, CID-keyed CFF, TrueType, CID-keyed
    // TrueType (Arabic, vertical Japanese), and fonts not embedded at all.
    const files = [
      'text/doc-code_and_formula.pdf',
      'text/doc-redp5110_sampled.pdf',
      'text/olm-hf-ff3d6e05.pdf',
      'multicolumn/doc-amt_handbook_sample.pdf',
      'multicolumn/pjs-tracemonkey.pdf',
      'cjk/pjs-vertical-ja.pdf',
      'cjk/pjs-90ms_rksj_h_sample-ja.pdf',
      'cjk/pjs-issue3521-zh.pdf',
      'cjk/pyp-habibi-ar.pdf',
      'tables/icdar-eu-027.pdf',
      'tables/icdar-us-022.pdf',
      // Read again, with the CJK CMaps the first reading parsed kept by this thread.
      'cjk/pjs-vertical-ja.pdf',
      'cjk/pjs-issue3521-zh.pdf',
    ];
    const pdfjs = await loadPdfJs();
    let fontsRead = 0;
    const documents = [
      ...files.map((file) => ({
        file,
        bytes: new Uint8Array(fs.readFileSync(path.join(corpusDir, 'pdf', file))),
      })),
      // What those pages seldom do: raised, stretched, spaced, rotated and kerned text, in
      // nested graphics states.
      {
        file: 'a generated page',
        bytes: onePage(
          TEXT_STATES,
          '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>',
        ),
      },
    ];
    for (const { file, bytes } of documents) {
      const read = await openAs(pdfjs, bytes, 'read');
      const drawn = await openAs(pdfjs, bytes, 'draw');
      try {
        for (let n = 1; n <= Math.min(read.doc.numPages, 3); n++) {
          const [reading, drawing] = [await read.doc.getPage(n), await drawn.doc.getPage(n)];
          const [ours, shipped] = [await reading.getTextContent(), await drawing.getTextContent()];
          // Every item's string, width, height and transform, bit for bit, and each font's
          // ascent, descent and family.
          assert.deepEqual(sameFontIds(ours), sameFontIds(shipped), `${file} page ${n}`);
          await new Promise((resolve) => setImmediate(resolve));
          for (const id of Object.keys(ours.styles)) {
            if (!reading.commonObjs.has(id)) continue;
            fontsRead++;
            const font = reading.commonObjs.get(id) as { data?: unknown; name?: unknown };
            assert.equal(font.data, undefined, `${file}: ${String(font.name)} was built for drawing`);
          }
        }
      } finally {
        await read.close();
        await drawn.close();
      }
    }
    assert.ok(fontsRead > 30, `fonts read: ${fontsRead}`);
  });

  it('meets, while reading the text, the rules and images an operator list has', async () => {
    const pdfjs = await loadPdfJs();
    const documents = [
      ...[
        'tables/icdar-eu-027.pdf',
        'tables/tab-twotables.pdf',
        'tables/olm-discoverworld_crazy_table4.pdf',
        'multicolumn/pjs-tracemonkey.pdf',
        'multicolumn/doc-amt_handbook_sample.pdf',
      ].map((file) => ({ file, bytes: new Uint8Array(fs.readFileSync(path.join(corpusDir, 'pdf', file))) })),
      { file: 'a generated page', bytes: onePage(RULES_AND_IMAGES, RULES_RESOURCES, RULES_OBJECTS) },
    ];
    let pages = 0;
    let masked = 0;
    for (const { file, bytes } of documents) {
      const { doc, close } = await openAs(pdfjs, bytes, 'read');
      try {
        for (let n = 1; n <= doc.numPages; n++) {
          const page = await doc.getPage(n);
          const viewport = page.getViewport({ scale: 1 });
          const [m, area] = [viewport.transform as Matrix, viewport.width * viewport.height];
          const { graphics } = await readTextLayer(page);
          assert.ok(graphics, `${file} page ${n}: nothing handed over`);
          // An image in a soft mask's group is the operator list's to place (readPage reads it).
          if (graphics.some((g) => g.softMask)) {
            masked++;
            continue;
          }
          const listed = await readGraphics(pdfjs, page, m, area, false);
          const met = graphicsFromText(pdfjs, graphics, m, area);
          // The same points, but for the last bits of matrix products taken in another order.
          assert.equal(met.segments.length, listed.segments.length, `${file} page ${n}: rules`);
          assert.equal(met.images.length, listed.images.length, `${file} page ${n}: images`);
          const [ours, theirs] = [
            [...met.segments, ...met.images],
            [...listed.segments, ...listed.images],
          ];
          for (const [k, item] of ours.entries())
            for (const [key, value] of Object.entries(item))
              assert.ok(
                Math.abs(value - (theirs[k] as unknown as Record<string, number>)[key]!) < 1e-9,
                `${file} page ${n}: ${key} of ${JSON.stringify(item)} against ${JSON.stringify(theirs[k])}`,
              );
          if (file === 'a generated page') {
            // Two rules of the page, four edges and a bar, the closed path's four sides, the
            // form's two rules twice; the image twice and the inline one, not the one-pixel mask.
            assert.equal(met.segments.length, 2 + 5 + 4 + 4, JSON.stringify(met.segments));
            assert.equal(met.images.length, 3);
          }
          pages++;
        }
      } finally {
        await close();
      }
    }
    assert.ok(pages > 20, `pages compared: ${pages}`);
    assert.ok(masked > 0, 'a page with a soft mask');
  });

  it('fails loudly on a pdf.js that paints images elsewhere than Quire patches', () => {
    for (const purpose of ['read', 'draw'] as const)
      assert.throws(
        () => patchedWorkerSource('export const nothing = 1;\n', purpose),
        /not where Quire patches it/,
      );
  });

  it("is kept in this user's private temporary folder when node_modules cannot be written, never in another's", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
    const before = process.env.TMPDIR;
    try {
      // An install whose node_modules/.cache cannot be made (a file stands in its way).
      const root = path.join(tmp, 'node_modules');
      fs.mkdirSync(root);
      fs.symlinkSync(
        path.dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json'))),
        path.join(root, 'pdfjs-dist'),
      );
      fs.writeFileSync(path.join(root, '.cache'), '');
      process.env.TMPDIR = tmp;
      const url = patchedWorkerUrl(path.join(root, 'pdfjs-dist'), 'legacy/build/pdf.worker.mjs', 'read');
      const dir = path.join(tmp, `quire-pdfjs-${process.getuid?.()}`);
      assert.ok(url?.startsWith(pathToFileURL(dir).href), url);
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
      // A folder of that name others may write to is not used: pdf.js as shipped is.
      fs.chmodSync(dir, 0o755);
      assert.equal(
        patchedWorkerUrl(path.join(root, 'pdfjs-dist'), 'legacy/build/pdf.worker.mjs', 'read'),
        undefined,
      );
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("drops rejections pdf.js's own code raised and left unawaited, and no other", () => {
    // A fuzzed PDF's circular reference made pdf.js stringify a Symbol in a read it never
    // awaited; the TypeError ended the conversion process (npm run fuzz, seed 31337).
    const inPdfjs = new TypeError('Cannot convert a Symbol value to a string');
    inPdfjs.stack = `TypeError: Cannot convert a Symbol value to a string
    at XRef.fetch (file:///srv/quire/node_modules/.cache/quire/pdfjs-read-worker-5720fef870e07cb9.mjs:65295:110)
    at XRef.fetchAsync (file:///srv/quire/node_modules/.cache/quire/pdfjs-read-worker-5720fef870e07cb9.mjs:65414:19)`;
    assert.equal(isPdfjsStray(inPdfjs), true);
    const shipped = new TypeError('x');
    shipped.stack =
      'TypeError: x\n    at f (file:///srv/quire/node_modules/pdfjs-dist/legacy/build/pdf.worker.mjs:1:1)';
    assert.equal(isPdfjsStray(shipped), true);
    // Raised here, or called from pdf.js but raised in Quire's code: a bug to surface.
    assert.equal(isPdfjsStray(new TypeError('raised by Quire')), false);
    const ours = new TypeError('y');
    ours.stack = `TypeError: y
    at toRun (file:///srv/quire/src/convert/pdf/read-text.ts:125:3)
    at f (file:///srv/quire/node_modules/pdfjs-dist/legacy/build/pdf.mjs:1:1)`;
    assert.equal(isPdfjsStray(ours), false);
    assert.equal(isPdfjsStray('not an error'), false);
  });
});
