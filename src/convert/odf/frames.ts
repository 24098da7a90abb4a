import type { Element, ElementContent } from 'hast';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { mathmlToLatex } from '../math/mathml-to-latex.ts';
import { child, descendant, parseXml, textOf, type XmlBudget, type XmlElement } from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';

/**
 * `draw:frame` contents shared by the ODF converters: pictures (package parts become data: URIs
 * so their bytes reach the `images` format) and embedded objects (charts' data, formulas).
 */

/** Image types a browser shows, by their leading bytes; the rest (WMF, EMF, SVM, PDF) are not. */
function sniffImage(bytes: Uint8Array): string | undefined {
  const b = bytes;
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return 'image/gif';
  if (b[0] === 0x42 && b[1] === 0x4d) return 'image/bmp';
  if (b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45) {
    return 'image/webp';
  }
  const head = new TextDecoder().decode(b.subarray(0, 512)).trimStart();
  if (/^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head))
    return 'image/svg+xml';
  return undefined;
}

/** A package path from an xlink:href (`./Pictures/a.png`, `Pictures/a%20b.png`). */
export function packagePath(href: string): string {
  const path = href.replace(/^\.\//, '');
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function isExternal(href: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(href);
}

/** The frame's description: svg:title, else svg:desc, else its name. */
export function frameAlt(frame: XmlElement): string {
  for (const name of ['svg:title', 'svg:desc']) {
    const el = child(frame, name);
    const text = el ? textOf(el).trim() : '';
    if (text) return text;
  }
  return frame.attrs['draw:name']?.trim() ?? '';
}

function dataUri(bytes: Uint8Array): string | undefined {
  if (bytes.length > limits.embeddedImageBytes) return undefined;
  const mime = sniffImage(bytes);
  return (
    mime &&
    `data:${mime};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`
  );
}

export type EmbeddedObject =
  | {
      kind: 'chart';
      title: string;
      /** The chart's local data table. */
      table: XmlElement;
    }
  | { kind: 'formula'; latex: string };

function withoutPrefix(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** MathML as a hast tree for the shared MathML → LaTeX converter (names without prefixes). */
function mathToHast(node: XmlElement): Element {
  const properties: Element['properties'] = {};
  for (const [name, value] of Object.entries(node.attrs)) properties[withoutPrefix(name)] = value;
  const children: ElementContent[] = node.children.map((c) =>
    typeof c === 'string' ? { type: 'text', value: c } : mathToHast(c),
  );
  return { type: 'element', tagName: withoutPrefix(node.name), properties, children };
}

/**
 * The pictures and embedded objects of one document. Each package part is read once: a logo
 * repeated on every page must not inflate (and count against the inflate budget) every time.
 */
export class FrameContent {
  private readonly zip: ZipPackage | undefined;
  private readonly budget: XmlBudget;
  private readonly warnings: string[];
  private readonly pictures = new Map<string, string | undefined>();
  private readonly objects = new Map<string, EmbeddedObject | undefined>();

  constructor(zip: ZipPackage | undefined, budget: XmlBudget, warnings: string[]) {
    this.zip = zip;
    this.budget = budget;
    this.warnings = warnings;
  }

  /**
   * The frame's first picture a browser can show, as `<img>`: a package part, inline
   * `office:binary-data` (flat documents), or an external http(s) URL. Undefined when none.
   */
  picture(frame: XmlElement): Element | undefined {
    for (const image of frame.children) {
      if (typeof image === 'string' || image.name !== 'draw:image') continue;
      const href = image.attrs['xlink:href'] ?? '';
      let src: string | undefined;
      if (href && isExternal(href)) src = /^https?:/i.test(href) ? href : undefined;
      else if (href) src = this.packagePicture(packagePath(href));
      else {
        const binary = child(image, 'office:binary-data');
        if (binary) src = dataUri(Buffer.from(textOf(binary).replace(/\s+/g, ''), 'base64'));
      }
      if (src) {
        return { type: 'element', tagName: 'img', properties: { src, alt: frameAlt(frame) }, children: [] };
      }
    }
    return undefined;
  }

  private packagePicture(path: string): string | undefined {
    if (!this.zip) return undefined;
    if (!this.pictures.has(path)) {
      const bytes = this.zip.bytes(path);
      this.pictures.set(path, bytes && dataUri(bytes));
    }
    return this.pictures.get(path);
  }

  /**
   * An embedded object (`draw:object` → `Object 1/content.xml`) that carries content: a chart's
   * data table, or a formula as LaTeX. Undefined for anything else or a missing part.
   */
  object(object: XmlElement): EmbeddedObject | undefined {
    const href = object.attrs['xlink:href'];
    if (!this.zip || !href || isExternal(href)) return undefined;
    const part = `${packagePath(href).replace(/\/$/, '')}/content.xml`;
    if (!this.objects.has(part)) this.objects.set(part, this.readObject(part));
    return this.objects.get(part);
  }

  private readObject(part: string): EmbeddedObject | undefined {
    let root: XmlElement;
    try {
      const bytes = this.zip?.bytes(part);
      if (!bytes) return undefined;
      const parsed = parseXml(bytes, this.budget, { part, lenient: true });
      if (parsed.damage) this.warnings.push(parsed.damage);
      root = parsed.root;
    } catch (err) {
      // A broken object costs its own content only.
      if (err instanceof ConversionError && err.code === 'UNPARSABLE_DOCUMENT') {
        this.warnings.push(err.message);
        return undefined;
      }
      throw err;
    }
    if (root.name === 'math:math') {
      const latex = mathmlToLatex(mathToHast(root)).trim();
      return latex ? { kind: 'formula', latex } : undefined;
    }
    const body = child(root, 'office:body');
    const chart = body && child(body, 'office:chart');
    const table = chart && descendant(chart, 'table:table');
    if (!chart || !table) return undefined;
    const title = descendant(chart, 'chart:title');
    return { kind: 'chart', title: title ? textOf(title).trim() : '', table };
  }
}

/** Drawing shapes whose content is text paragraphs (text documents and presentations alike). */
export const SHAPES = new Set([
  'draw:custom-shape',
  'draw:rect',
  'draw:ellipse',
  'draw:circle',
  'draw:polygon',
  'draw:polyline',
  'draw:regular-polygon',
  'draw:path',
  'draw:line',
  'draw:connector',
  'draw:caption',
  'draw:measure',
]);
