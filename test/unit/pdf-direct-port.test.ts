import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { documentParams, loadPdfJs, openAs } from '../../src/convert/pdf/load-document.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { corpusDir } from '../helpers/server.ts';

/**
 * Quire opens PDFs with pdf.js's two halves joined by a DirectPort, which hands messages over
 * rather than deep-copying them as pdf.js's own fake worker does (src/convert/pdf/direct-port.ts).
 * What pdf.js gives back must be the same either way: every page's text content and operator
 * list, compared with pdf.js's own channel on corpus PDFs of several kinds (text, tables, CJK,
 * several columns). A chunk the sender reuses after sending would come back emptied or merged.
 */

const files = [
  'pdf/tables/doc-table_mislabeled_as_picture.pdf',
  'pdf/cjk/doc-normal_4pages-ko.pdf',
  ...fs
    .readdirSync(path.join(corpusDir, 'pdf/multicolumn'))
    .filter((f) => f.endsWith('.pdf'))
    .slice(0, 2)
    .map((f) => `pdf/multicolumn/${f}`),
];

/** Text content and operator list of every page, as plain data. */
async function pagesOf(doc: PDFDocumentProxy): Promise<string[]> {
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const text = await page.getTextContent({ disableNormalization: true });
    const ops = await page.getOperatorList();
    const data = JSON.stringify({
      items: text.items,
      styles: text.styles,
      fn: ops.fnArray,
      args: ops.argsArray,
    });
    // Font and object names carry the document's number, which differs between the two opens.
    pages.push(data.replace(/\b(g|img|pattern)_d\d+_/g, '$1_d_'));
  }
  return pages;
}

const firstPass = firstPassOnly("pdf.js in the test's process, no server");
describe("PDF pages through Quire's direct port and through pdf.js's copying channel", firstPass, () => {
  for (const file of files) {
    it(`are the same for ${path.basename(file)}`, async () => {
      const pdfjs = await loadPdfJs();
      const bytes = new Uint8Array(fs.readFileSync(path.join(corpusDir, file)));
      const direct = await openAs(pdfjs, bytes, 'draw');
      // Without a worker of its own, pdf.js joins its halves with its copying fake worker.
      const copying = pdfjs.getDocument(documentParams(bytes, 'draw'));
      try {
        const [ours, theirs] = [await pagesOf(direct.doc), await pagesOf(await copying.promise)];
        assert.ok(ours.length > 0);
        assert.ok(
          ours.some((p) => /"str":"[^"]+"/.test(p)),
          'some text was read',
        );
        assert.deepEqual(ours, theirs);
      } finally {
        await direct.close();
        await copying.destroy();
      }
    });
  }
});
