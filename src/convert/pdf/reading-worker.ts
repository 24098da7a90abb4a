import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where pdf.js paints an image, its evaluator decodes it first (JPEG in JavaScript, colour
 * conversion, resizing) so that a canvas can draw it. Reading a page needs only where its
 * images sit (figures, and whether a page is a scan), yet decoding was a fifth of auto mode's
 * CPU on a mix of real documents and a third of what auto cost beyond fast mode, on pages no
 * one drew. pdf.js has no option to list images without decoding them, so Quire reads pages
 * with a copy of pdf.js's worker half changed in one place: an image is placed
 * (`paintImageXObject` with its id, width and height, inside its optional-content marks, as
 * pdf.js itself lists it) and never decoded. Pages that are drawn (OCR) use pdf.js as shipped.
 *
 * Left as shipped: Type3 glyphs drawn as image masks (they become the glyph's outline), and a
 * one-pixel mask, which pdf.js turns into a solid fill rather than an image.
 */
const ANCHOR = '    const imageMask = dict.get("IM", "ImageMask") || false;\n';
const PLACE_ONLY =
  '    if (!this.parsingType3Font && !(imageMask && w * h === 1)) {\n' +
  '      operatorList.addImageOps(OPS.paintImageXObject, ["img_" + this.idFactory.createObjId(), w, h], optionalContent);\n' +
  '      return;\n' +
  '    }\n';

/** The changed source: throws when pdf.js no longer reads as Quire expects (see package.json's pin). */
export function readingWorkerSource(shipped: string): string {
  const at = shipped.indexOf(ANCHOR);
  if (at < 0 || shipped.indexOf(ANCHOR, at + 1) >= 0)
    throw new Error(
      'pdf.js image painting is not where Quire patches it (see src/convert/pdf/reading-worker.ts)',
    );
  const end = at + ANCHOR.length;
  return shipped.slice(0, end) + PLACE_ONLY + shipped.slice(end);
}

/**
 * A file URL of the reading copy of pdf.js's `workerFile` (an ES module must be a file to be imported
 * with its own URL in stack traces). It is kept in node_modules/.cache/quire beside pdf.js,
 * written by whoever installed the code, once per pdf.js build and change (the name carries
 * a hash of the source), under a unique name then renamed, so processes starting together
 * never import a half-written file. Where that folder cannot be written, a private temporary
 * folder of this process holds it: never a shared, predictable path another user could fill.
 * Undefined when neither can be written: pdf.js as shipped reads the same, decoding images.
 */
export function readingWorkerUrl(pdfjsRoot: string, workerFile: string): string | undefined {
  const source = readingWorkerSource(fs.readFileSync(path.join(pdfjsRoot, workerFile), 'utf8'));
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const name = `pdfjs-reading-worker-${hash}.mjs`;
  const cache = path.join(pdfjsRoot, '..', '.cache', 'quire');
  try {
    return pathToFileURL(writeOnce(path.join(cache, name), source)).href;
  } catch {
    try {
      const own = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdfjs-'));
      return pathToFileURL(writeOnce(path.join(own, name), source)).href;
    } catch {
      return undefined;
    }
  }
}

function writeOnce(file: string, source: string): string {
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(partial, source);
  fs.renameSync(partial, file);
  return file;
}
