import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { limits } from '../../limits.ts';
import type { Purpose } from './load-document.ts';

/** A change to pdf.js's worker half: the one occurrence of `find` becomes `replace`. */
interface Patch {
  what: string;
  find: string;
  replace: string;
  /** The documents it applies to: every one, or only those that are read. */
  for: 'all' | 'read';
}

/**
 * pdf.js reads and draws with one evaluator, and drawing costs what reading never needs, so
 * pages are read with a copy of pdf.js's worker half changed in a few places, and drawn (OCR)
 * with a copy that only has its safety limit changed. pdf.js has an option for none of these.
 */
const PATCHES: readonly Patch[] = [
  {
    // Where pdf.js paints an image, it decodes it first (JPEG in JavaScript, colour conversion,
    // resizing) for a canvas. Reading needs only where images sit (figures, and whether a page
    // is a scan): decoding was a fifth of auto mode's CPU on a mix of real documents, on pages
    // no one drew. The image is listed as pdf.js lists it (`paintImageXObject` with an id, its
    // width and height, inside its optional-content marks) and never decoded. Left as shipped:
    // Type3 glyphs drawn as image masks (they become outlines), and a one-pixel mask, which
    // pdf.js turns into a solid fill rather than an image.
    what: 'image painting',
    find: '    const imageMask = dict.get("IM", "ImageMask") || false;\n',
    replace:
      '    const imageMask = dict.get("IM", "ImageMask") || false;\n' +
      '    if (!this.parsingType3Font && !(imageMask && w * h === 1)) {\n' +
      '      operatorList.addImageOps(OPS.paintImageXObject, ["img_" + this.idFactory.createObjId(), w, h], optionalContent);\n' +
      '      return;\n' +
      '    }\n',
    for: 'read',
  },
  {
    // A font's real name (bold, italic, monospace) reaches the reading side only when an
    // operator list loads the font; text extraction loads the same font but keeps it. So every
    // page with a font not seen before was read twice, its operator list only to learn names.
    // Text extraction now sends the font it loaded, as the operator list does.
    what: "text extraction's font loading",
    find: '      const translated = await self.loadFont(fontName, fontRef, resources, task, null, null, seenRefs);\n',
    replace:
      '      const translated = await self.loadFont(fontName, fontRef, resources, task, null, null, seenRefs);\n' +
      '      translated.send(self.handler);\n',
    for: 'read',
  },
  {
    what: "CMaps' size limit",
    find: 'const MAX_MAP_RANGE = 2 ** 24 - 1;\n',
    replace: `const MAX_MAP_RANGE = ${limits.pdfCMapEntries - 1};\n`,
    for: 'all',
  },
];

/**
 * The changed source for documents opened for `purpose`: throws when pdf.js no longer reads as
 * Quire expects (see package.json's pin).
 */
export function patchedWorkerSource(shipped: string, purpose: Purpose): string {
  let source = shipped;
  for (const patch of PATCHES) {
    if (patch.for === 'read' && purpose !== 'read') continue;
    const at = source.indexOf(patch.find);
    if (at < 0 || source.indexOf(patch.find, at + 1) >= 0)
      throw new Error(
        `pdf.js ${patch.what} is not where Quire patches it (see src/convert/pdf/patched-worker.ts)`,
      );
    source = source.slice(0, at) + patch.replace + source.slice(at + patch.find.length);
  }
  return source;
}

/**
 * A file URL of the copy of pdf.js's `workerFile` for `purpose` (an ES module must be a file to
 * be imported with its own URL in stack traces). It is kept in node_modules/.cache/quire beside pdf.js,
 * written by whoever installed the code, once per pdf.js build and change (the name carries
 * a hash of the source), under a unique name then renamed, so processes starting together
 * never import a half-written file. Where that folder cannot be written (a read-only install),
 * this user's private folder in the temporary folder holds it, reused by every process, so a
 * restarted worker adds nothing; a folder of that name that is not this user's alone (another
 * user could have put code in it) is not used. Undefined when neither will do: pdf.js as
 * shipped then does the work, the same but slower (images decoded, CMaps to its own limit).
 */
export function patchedWorkerUrl(
  pdfjsRoot: string,
  workerFile: string,
  purpose: Purpose,
): string | undefined {
  const source = patchedWorkerSource(fs.readFileSync(path.join(pdfjsRoot, workerFile), 'utf8'), purpose);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const name = `pdfjs-${purpose}-worker-${hash}.mjs`;
  const cache = path.join(pdfjsRoot, '..', '.cache', 'quire');
  try {
    return pathToFileURL(writeOnce(path.join(cache, name), source)).href;
  } catch {
    try {
      return pathToFileURL(writeOnce(path.join(privateTempDir(), name), source)).href;
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

/** This user's own folder in the temporary folder: made mode 0700, and refused unless it is so. */
function privateTempDir(): string {
  const uid = process.getuid?.();
  const dir = path.join(os.tmpdir(), `quire-pdfjs-${uid ?? 'user'}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0)
    throw new Error(`${dir} is not this user's private folder`);
  return dir;
}
