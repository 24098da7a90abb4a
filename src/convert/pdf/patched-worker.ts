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
 * A pdf.js function that only builds what drawing needs: in the reading copy it returns `value`
 * at once, after `header` (its first lines, which must stay as they are).
 */
function drawingOnly(what: string, header: string, value: string): Patch {
  return { what, find: header, replace: `${header}  return ${value};\n`, for: 'read' };
}

/**
 * pdf.js reads and draws with one evaluator, and drawing costs what reading never needs, so
 * pages are read with a copy of pdf.js's worker half changed where it works for a canvas or
 * where V8 runs it slowly, and drawn (OCR) with a copy that only has its safety limit changed.
 * pdf.js has an option for none of these. test/unit/pdf-patched-worker.test.ts checks that the
 * reading copy's text content equals pdf.js's own.
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
  // pdf.js rebuilds every embedded font as an OpenType file a canvas can draw with: it compiles
  // CFF, checks every TrueType outline and hinting program, and writes cmap, OS/2 and name
  // tables. Text needs none of it: the encoding, widths and metrics it reads come from parsing
  // the font, which stays. On a mix of real documents the rebuilding was a tenth of fast mode.
  // With no file built, nothing is sent to the reading side to draw with, and pdf.js skips the
  // glyph outlines it would otherwise make for text painted with a pattern.
  drawingOnly('CFF compilation', '  compile() {\n    const cff = this.cff;\n', 'new Uint8Array(0)'),
  drawingOnly('OpenType file building', '  toArray() {\n    let sfnt = this.sfnt;\n', 'undefined'),
  drawingOnly(
    'cmap table building',
    'function createCmapTable(charCodeToGlyphId, toUnicodeExtraMap, numGlyphs) {\n',
    'new Uint8Array(0)',
  ),
  drawingOnly(
    'OS/2 table building',
    'function createOS2Table(properties, charCodeToGlyphId, override) {\n',
    'new Uint8Array(0)',
  ),
  drawingOnly('name table building', 'function createNameTable(name, proto) {\n', 'new Uint8Array(0)'),
  drawingOnly(
    'TrueType outline checks',
    '    function sanitizeGlyphLocations(loca, glyf, numGlyphs, isGlyphLocationsLong, hintsValid, dupFirstEntry, maxSizeOfInstructions) {\n',
    // No glyph is missing: the mapping it would narrow decides only what a canvas draws.
    '{ missingGlyphs: new Uint8Array(numGlyphs), maxSizeOfInstructions }',
  ),
  drawingOnly(
    'TrueType hinting checks',
    '    function sanitizeTTPrograms(fpgm, prep, cvt, maxFunctionDefs) {\n',
    // Unchecked hints are dropped from the file, which is never built.
    'false',
  ),
  {
    // Each CFF glyph program is run to find its width, accents and faults, for the drawn font
    // file (whose widths reading never uses: they come from the PDF's own /Widths).
    what: 'CFF glyph program checks',
    find: '      valid &&= this.parseCharString(state, charstring, localSubrToUse, globalSubrIndex);\n',
    replace: '',
    for: 'read',
  },
  // Which code draws which glyph (private-use codes for the canvas) is unused in reading.
  drawingOnly(
    'glyph mapping for drawing',
    'function adjustMapping(charCodeToGlyphId, hasGlyph, newGlyphZeroId, toUnicode) {\n',
    '{ toFontChar: new Map(), charCodeToGlyphId: new Map(), toUnicodeExtraMap: new Map(), nextAvailableFontCharCode: PRIVATE_USE_AREAS[0][0] }',
  ),
  {
    // The same mapping, for a CID-keyed TrueType font: its CMap's every code (65,536 for the
    // common Identity CMap) was put in a table only drawing reads. The check before it stays.
    what: 'CID glyph mapping for drawing',
    find:
      '        if (glyphId >= 0 && glyphId < numGlyphs && hasGlyph(glyphId)) {\n' +
      '          charCodeToGlyphId.set(charCode, glyphId);\n' +
      '        }\n' +
      '      });\n',
    replace: '      });\n',
    for: 'read',
  },
  {
    // The same mapping for a simple TrueType font, from its cmap table and glyph names: for
    // each of 256 codes a search of every cmap entry, for drawing only.
    what: 'TrueType glyph mapping for drawing',
    find:
      '    } else {\n' +
      '      const cmapTable = readCmapTable(tables.cmap, font, this.isSymbolicFont, properties.hasEncoding, numGlyphs);\n',
    replace:
      '    } else if (false) {\n' +
      '      const cmapTable = readCmapTable(tables.cmap, font, this.isSymbolicFont, properties.hasEncoding, numGlyphs);\n',
    for: 'read',
  },
  {
    // And for a Type1 or CFF font, from its encoding and glyph names.
    what: 'Type1 and CFF glyph mapping for drawing',
    find: '    const mapping = font.getGlyphMapping(properties);\n',
    replace: '    const mapping = new Map();\n',
    for: 'read',
  },
  {
    // Each text state pdf.js saves (on `q`, and where a text run changes font) was made with
    // the state before as its prototype, so states in one content stream rarely share a shape
    // and every read of one went through V8's slowest property lookup. A copy with the class's
    // own prototype holds the same own fields, so reads see the same values.
    what: 'text state copies',
    find: '  clone() {\n    const clone = Object.assign(Object.create(this), this);\n    clone.textMatrix = this.textMatrix.slice();\n',
    replace:
      '  clone() {\n    const clone = Object.assign(Object.create(TextState.prototype), this);\n    clone.textMatrix = this.textMatrix.slice();\n',
    for: 'read',
  },
  {
    // Text extraction places every glyph twice (where it starts, where it ends) with pdf.js's
    // shared matrix product, three new arrays a time. All of pdf.js calls that product with
    // arrays of every kind, so V8 read its arguments the slowest way: an eighth of text
    // extraction's time. Here the same arithmetic, in the same order (so every position is
    // bit-for-bit the same), reads the matrices once and makes one array.
    what: 'text positions',
    find: '      return Util.transform(textState.ctm, Util.transform(textState.textMatrix, tsm));\n',
    replace:
      '      const t = textState.textMatrix;\n' +
      '      const i0 = t[0] * tsm[0] + t[2] * 0, i1 = t[1] * tsm[0] + t[3] * 0;\n' +
      '      const i2 = t[0] * 0 + t[2] * tsm[3], i3 = t[1] * 0 + t[3] * tsm[3];\n' +
      '      const i4 = t[0] * 0 + t[2] * tsm[5] + t[4], i5 = t[1] * 0 + t[3] * tsm[5] + t[5];\n' +
      '      const c = textState.ctm;\n' +
      '      return [c[0] * i0 + c[2] * i1, c[1] * i0 + c[3] * i1, c[0] * i2 + c[2] * i3, c[1] * i2 + c[3] * i3, c[0] * i4 + c[2] * i5 + c[4], c[1] * i4 + c[3] * i5 + c[5]];\n',
    for: 'read',
  },
  // A page whose text may hold a table needs its rules and image placements, which pdf.js gives
  // only in an operator list: a second pass over the page that lexes its content streams
  // again and loads its fonts and forms again, on half the pages of a mix of real documents.
  // Text extraction already walks every operator, with the transformation matrix, so the
  // reading copy also keeps each painted path (built by pdf.js's own path builder, as the
  // operator list has it), the line width and each image's placement, and hands them over
  // with the text items as one `quireGraphics` item per content stream (readTextLayer).
  {
    what: 'text state line width',
    find: 'class TextState {\n',
    replace: 'class TextState {\n  lineWidth = 1;\n',
    for: 'read',
  },
  {
    what: 'paths and images read with text',
    find: 'class StateManager {\n',
    replace:
      'function quireGraphics() {\n' +
      '  return { type: "quireGraphics", paths: [], images: [], softMask: false };\n' +
      '}\n' +
      'function quireDrew(graphics) {\n' +
      '  return graphics.paths.length > 0 || graphics.images.length > 0 || graphics.softMask;\n' +
      '}\n' +
      // As the operator list's constructPath: a closing paint closes the path first; a path
      // ended unpainted is dropped. A page past the limit is a drawing, not a table.
      'function quirePaint(fn, path, state, graphics, task) {\n' +
      '  const buffer = path.pathBuffer;\n' +
      '  if (fn === OPS.closeStroke || fn === OPS.closeFillStroke || fn === OPS.closeEOFillStroke) buffer.push(DrawOPS.closePath);\n' +
      `  if (buffer.length > 0 && fn !== OPS.endPath && (task.quirePaths = (task.quirePaths || 0) + 1) <= ${limits.pdfPageSegments})\n` +
      '    graphics.paths.push({ op: fn, lineWidth: state.lineWidth, ctm: state.ctm, path: new Float32Array(buffer) });\n' +
      '  buffer.length = 0;\n' +
      '  path.pathMinMax.set(BBOX_INIT, 0);\n' +
      '}\n' +
      // Whether the operator list paints the image: sized, within the size limit, not a one-pixel
      // mask. A dictionary that cannot be read places no image, and must not end the text's reading.
      'function quireDrawsImage(dict, maxImageSize) {\n' +
      '  try {\n' +
      '    const w = dict.get("W", "Width");\n' +
      '    const h = dict.get("H", "Height");\n' +
      '    if (!(w && typeof w === "number") || !(h && typeof h === "number")) return false;\n' +
      '    return !((maxImageSize !== -1 && w * h > maxImageSize) || ((dict.get("IM", "ImageMask") || false) && w * h === 1));\n' +
      '  } catch {\n' +
      '    return false;\n' +
      '  }\n' +
      '}\n' +
      'class StateManager {\n',
    for: 'read',
  },
  {
    what: 'graphics of one content stream',
    find: '    stateManager ||= new StateManager(new TextState());\n',
    replace:
      // The page's own stream always hands its item over, so the reading side knows it has them.
      '    const quireTop = !stateManager;\n' +
      '    stateManager ||= new StateManager(new TextState());\n' +
      '    let quireDrawn = quireGraphics();\n' +
      // Whether each image XObject met so far is painted, by name: a name painted again is placed
      // again without fetching and reading its dictionary once more.
      '    const quireImages = new Map();\n' +
      '    const quirePath = { pathBuffer: [], pathMinMax: new Float32Array(BBOX_INIT), currentPointX: 0, currentPointY: 0 };\n',
    for: 'read',
  },
  {
    what: 'paths read with text',
    find:
      '          case OPS.beginMarkedContent:\n' +
      '            flushTextContentItem();\n' +
      '            if (includeMarkedContent) {\n',
    replace:
      '          case OPS.setLineWidth:\n' +
      '            if (typeof args[0] === "number") textState.lineWidth = args[0];\n' +
      '            break;\n' +
      '          case OPS.moveTo:\n' +
      '          case OPS.lineTo:\n' +
      '          case OPS.curveTo:\n' +
      '          case OPS.curveTo2:\n' +
      '          case OPS.curveTo3:\n' +
      '          case OPS.closePath:\n' +
      '          case OPS.rectangle:\n' +
      '            self.buildPath(fn, args, quirePath);\n' +
      '            break;\n' +
      '          case OPS.stroke:\n' +
      '          case OPS.closeStroke:\n' +
      '          case OPS.fill:\n' +
      '          case OPS.eoFill:\n' +
      '          case OPS.fillStroke:\n' +
      '          case OPS.eoFillStroke:\n' +
      '          case OPS.closeFillStroke:\n' +
      '          case OPS.closeEOFillStroke:\n' +
      '          case OPS.endPath:\n' +
      '            quirePaint(fn, quirePath, textState, quireDrawn, task);\n' +
      '            break;\n' +
      '          case OPS.endInlineImage:\n' +
      '            if (args[0]?.dict && quireDrawsImage(args[0].dict, self.options.maxImageSize)) quireDrawn.images.push(textState.ctm);\n' +
      '            break;\n' +
      '          case OPS.beginMarkedContent:\n' +
      '            flushTextContentItem();\n' +
      '            if (includeMarkedContent) {\n',
    for: 'read',
  },
  {
    // An image XObject is placed each time it is painted, so it is not cached as textless.
    what: 'image XObjects read with text',
    find:
      '              if (type.name !== "Form") {\n' +
      '                emptyXObjectCache.set(name, dict.objId, true);\n',
    replace:
      '              if (type.name !== "Form") {\n' +
      '                if (type.name === "Image") {\n' +
      '                  const drawn = quireDrawsImage(dict, self.options.maxImageSize);\n' +
      '                  quireImages.set(name, drawn);\n' +
      '                  if (drawn) quireDrawn.images.push(stateManager.state.ctm);\n' +
      '                } else emptyXObjectCache.set(name, dict.objId, true);\n',
    for: 'read',
  },
  {
    what: 'image XObjects painted again',
    find: '            if (isValidName && emptyXObjectCache.getByName(name)) {\n              break;\n            }\n',
    replace:
      '            if (isValidName && emptyXObjectCache.getByName(name)) {\n              break;\n            }\n' +
      '            if (isValidName && quireImages.has(name)) {\n' +
      '              if (quireImages.get(name)) quireDrawn.images.push(stateManager.state.ctm);\n' +
      '              break;\n' +
      '            }\n',
    for: 'read',
  },
  {
    // What came before a form goes before the form's own, in drawing order.
    what: 'graphics before a form',
    find: '              const localResources = dict.get("Resources");\n              enqueueChunk();\n',
    replace:
      '              const localResources = dict.get("Resources");\n' +
      '              if (quireDrew(quireDrawn)) {\n' +
      '                textContent.items.push(quireDrawn);\n' +
      '                quireDrawn = quireGraphics();\n' +
      '              }\n' +
      '              enqueueChunk();\n',
    for: 'read',
  },
  {
    // A soft mask's group can paint an image (a picture shown through a filled rectangle),
    // which text extraction never opens: the reading side reads such a page's operator list.
    what: 'soft masks met with text',
    find: '              const gStateFont = gState.get("Font");\n',
    replace:
      '              if (gState.get("SMask") instanceof Dict) quireDrawn.softMask = true;\n' +
      '              const gStateFont = gState.get("Font");\n',
    for: 'read',
  },
  {
    // A form that draws rules is not cached as empty, so each use of it is read.
    what: 'graphics at the end of a content stream',
    find: '      flushTextContentItem();\n      closePendingMarkedContentItems();\n      enqueueChunk();\n      resolve();\n',
    replace:
      '      flushTextContentItem();\n' +
      '      closePendingMarkedContentItems();\n' +
      '      if (quireTop || quireDrew(quireDrawn)) textContent.items.push(quireDrawn);\n' +
      '      enqueueChunk();\n' +
      '      resolve();\n',
    for: 'read',
  },
  {
    // Each font that names one of Adobe's CJK CMaps (and each CID font's Unicode map) parsed
    // that CMap anew from its file, in every document. A parsed CMap is never changed after
    // it is made, so the last few are kept per thread. Only a finished one is kept: a CMap
    // still being read belongs to a document that may be cancelled.
    what: 'parsed CMaps kept',
    find: 'async function createBuiltInCMap(name, fetchBuiltInCMap) {\n',
    replace:
      'const quireCMaps = new Map();\n' +
      'async function createBuiltInCMap(name, fetchBuiltInCMap) {\n' +
      '  let cMap = quireCMaps.get(name);\n' +
      '  if (cMap) {\n' +
      '    quireCMaps.delete(name);\n' +
      '  } else {\n' +
      '    cMap = await quireParseBuiltInCMap(name, fetchBuiltInCMap);\n' +
      `    if (quireCMaps.size >= ${limits.pdfCachedCMaps}) quireCMaps.delete(quireCMaps.keys().next().value);\n` +
      '  }\n' +
      '  quireCMaps.set(name, cMap);\n' +
      '  return cMap;\n' +
      '}\n' +
      'async function quireParseBuiltInCMap(name, fetchBuiltInCMap) {\n',
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
 * be imported with its own URL in stack traces). It is kept in node_modules/.cache/quire beside
 * pdf.js, written by whoever installed the code, once per pdf.js build and change (the name
 * carries a hash of the shipped source and the changes), under a unique name then renamed, so
 * processes starting together never import a half-written file. Where that folder cannot be
 * written (a read-only install), this user's private folder in the temporary folder holds it,
 * reused by every process, so a restarted worker adds nothing; a folder of that name that is
 * not this user's alone (another user could have put code in it) is not used. Undefined when
 * neither will do: pdf.js as shipped then does the work, the same but slower (images decoded,
 * CMaps to its own limit).
 */
export function patchedWorkerUrl(
  pdfjsRoot: string,
  workerFile: string,
  purpose: Purpose,
): string | undefined {
  const shipped = fs.readFileSync(path.join(pdfjsRoot, workerFile));
  // Named by what it is made from, so that a thread starting finds its copy without making it
  // again (patching the 2.5 MB source took 0.4 s of CPU, at every start of a conversion thread).
  const hash = createHash('sha256')
    .update(shipped)
    .update(JSON.stringify(PATCHES.filter((p) => p.for === 'all' || purpose === 'read')))
    .digest('hex')
    .slice(0, 16);
  const name = `pdfjs-${purpose}-worker-${hash}.mjs`;
  const make = () => patchedWorkerSource(shipped.toString('utf8'), purpose);
  const cache = path.join(pdfjsRoot, '..', '.cache', 'quire');
  try {
    return pathToFileURL(writeOnce(path.join(cache, name), make)).href;
  } catch {
    try {
      return pathToFileURL(writeOnce(path.join(privateTempDir(), name), make)).href;
    } catch {
      return undefined;
    }
  }
}

function writeOnce(file: string, make: () => string): string {
  if (fs.existsSync(file)) return file;
  const source = make();
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
