import path from 'node:path';
import type { PdfTool } from './pdf.ts';

// Apart from ./pdf.ts so that a process timing pdf.js alone (bench/convert-file.ts) loads
// nothing else: no native anydoc binding in its start-up.

/** pdf.js's own text layer, lines as it marks them: what a plain pdf.js extraction gives. */
export const pdfjsText: PdfTool = {
  id: 'pdfjs',
  label: 'pdf.js text',
  how: 'in-process pdfjs-dist `getTextContent` per page, items joined at their end-of-line marks',
  runsIn: 'this process',
  maxPages: true,
  async convert(_file, bytes, opts) {
    const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const root = path.resolve(import.meta.dirname, '../../node_modules/pdfjs-dist');
    const task = getDocument({
      data: new Uint8Array(bytes),
      cMapUrl: `${root}/cmaps/`,
      cMapPacked: true,
      standardFontDataUrl: `${root}/standard_fonts/`,
      wasmUrl: `${root}/wasm/`,
      disableFontFace: true,
      verbosity: 0,
    });
    const doc = await task.promise;
    try {
      const pages: string[] = [];
      const last = Math.min(doc.numPages, opts.maxPages ?? doc.numPages);
      for (let i = 1; i <= last; i++) {
        const page = await doc.getPage(i);
        const content = await page.getTextContent();
        let text = '';
        for (const item of content.items) {
          if (!('str' in item)) continue;
          text += item.str + (item.hasEOL ? '\n' : '');
        }
        pages.push(text);
        page.cleanup();
      }
      return pages.join('\n\n');
    } finally {
      await task.destroy();
    }
  },
};
