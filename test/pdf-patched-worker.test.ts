import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { readGraphics } from '../src/convert/pdf/graphics.ts';
import { loadPdfJs, openAs, type PdfJs } from '../src/convert/pdf/load-document.ts';
import { patchedWorkerSource, patchedWorkerUrl } from '../src/convert/pdf/patched-worker.ts';
import { isPdfjsStray } from '../src/convert/pdf/pdfjs-rejections.ts';
import { firstPassOnly } from './helpers/mode.ts';
import { onePage } from './helpers/pdf.ts';
import { corpusDir } from './helpers/server.ts';

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

/** Text content with font ids that differ only in their document's number made the same. */
function sameFontIds(content: TextContent) {
  const id = (name: string) => name.replace(/^g_d\d+_/, 'g_d_');
  return {
    ...content,
    items: content.items.map((item) =>
      'fontName' in item ? { ...item, fontName: id(item.fontName) } : item,
    ),
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
