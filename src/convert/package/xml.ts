import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';

/**
 * A small, plain XML tree for the office-format walkers. Element and attribute names are
 * `prefix:local` with the prefix made canonical from the namespace URI (`w:p` is WordprocessingML
 * whatever prefix the file declared), so walkers can match names as strings.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

export interface XmlDocument {
  root: XmlElement;
  /** Set when the part was damaged (truncated or malformed) and only what preceded the damage was kept. */
  damage?: string;
}

/** Canonical prefixes of the namespaces the converters read. */
const CANONICAL: Record<string, string> = {
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main': 'w',
  'http://purl.oclc.org/ooxml/wordprocessingml/main': 'w',
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships': 'r',
  'http://purl.oclc.org/ooxml/officeDocument/relationships': 'r',
  'http://schemas.openxmlformats.org/package/2006/relationships': 'rel',
  'http://schemas.openxmlformats.org/package/2006/content-types': 'ct',
  'http://schemas.openxmlformats.org/officeDocument/2006/math': 'm',
  'http://purl.oclc.org/ooxml/officeDocument/math': 'm',
  'http://schemas.openxmlformats.org/drawingml/2006/main': 'a',
  'http://purl.oclc.org/ooxml/drawingml/main': 'a',
  'http://schemas.openxmlformats.org/drawingml/2006/picture': 'pic',
  'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing': 'wp',
  'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing': 'xdr',
  'http://schemas.openxmlformats.org/drawingml/2006/chart': 'c',
  'http://schemas.openxmlformats.org/presentationml/2006/main': 'p',
  'http://schemas.openxmlformats.org/spreadsheetml/2006/main': 'x',
  'http://schemas.openxmlformats.org/markup-compatibility/2006': 'mc',
  'http://schemas.microsoft.com/office/word/2010/wordml': 'w14',
  'http://schemas.microsoft.com/office/word/2010/wordprocessingShape': 'wps',
  'http://schemas.microsoft.com/office/word/2010/wordprocessingGroup': 'wpg',
  'http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas': 'wpc',
  'urn:schemas-microsoft-com:vml': 'v',
  'urn:schemas-microsoft-com:office:office': 'o',
  'urn:schemas-microsoft-com:office:word': 'w10',
  'http://schemas.openxmlformats.org/package/2006/metadata/core-properties': 'cp',
  'http://schemas.openxmlformats.org/officeDocument/2006/extended-properties': 'ep',
  'http://purl.org/dc/elements/1.1/': 'dc',
  'http://purl.org/dc/terms/': 'dcterms',
  'http://www.w3.org/2001/XMLSchema-instance': 'xsi',
  'http://www.w3.org/XML/1998/namespace': 'xml',
  'http://www.w3.org/1999/xlink': 'xlink',
  'http://www.w3.org/1999/xhtml': 'xhtml',
  'http://www.idpf.org/2007/opf': 'opf',
  'http://www.idpf.org/2007/ops': 'epub',
  'urn:oasis:names:tc:opendocument:xmlns:container': 'container',
  'http://www.daisy.org/z3986/2005/ncx/': 'ncx',
  'urn:oasis:names:tc:opendocument:xmlns:office:1.0': 'office',
  'urn:oasis:names:tc:opendocument:xmlns:text:1.0': 'text',
  'urn:oasis:names:tc:opendocument:xmlns:table:1.0': 'table',
  'urn:oasis:names:tc:opendocument:xmlns:style:1.0': 'style',
  'urn:oasis:names:tc:opendocument:xmlns:drawing:1.0': 'draw',
  'urn:oasis:names:tc:opendocument:xmlns:presentation:1.0': 'presentation',
  'urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0': 'fo',
  'urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0': 'svg',
  'urn:oasis:names:tc:opendocument:xmlns:meta:1.0': 'meta',
  'urn:oasis:names:tc:opendocument:xmlns:manifest:1.0': 'manifest',
  'http://www.w3.org/1998/Math/MathML': 'math',
};

const UNBOUND = 'urn:quire:unbound:';

/**
 * One budget of nodes shared by all parts of a document, so a package cannot multiply the
 * per-part limit by its number of parts.
 */
export class XmlBudget {
  nodes = 0;
  take(count: number): void {
    this.nodes += count;
    if (this.nodes > limits.xmlNodes) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The document has more than ${limits.xmlNodes} XML nodes; it was not converted.`,
      );
    }
  }
}

function qualify(uri: string, prefix: string, local: string): string {
  const canonical = CANONICAL[uri];
  if (canonical !== undefined) return `${canonical}:${local}`;
  if (uri.startsWith(UNBOUND)) return `${uri.slice(UNBOUND.length)}:${local}`;
  return prefix ? `${prefix}:${local}` : local;
}

/** UTF-8 unless a BOM says UTF-16, which the XML specification also allows. */
function xmlDecoder(bytes: Uint8Array): TextDecoder {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be');
  return new TextDecoder('utf-8');
}

/**
 * Bytes are decoded and fed to the parser a slice at a time: a 300 MB part never becomes one
 * string (V8 caps strings near 512 MiB, and the copy would double the peak).
 */
const FEED_BYTES = 4 * 1024 * 1024;

function* chunksOf(source: string | Uint8Array): Generator<string> {
  if (typeof source === 'string') {
    yield source;
    return;
  }
  const decoder = xmlDecoder(source);
  for (let at = 0; at < source.length; at += FEED_BYTES) {
    const end = Math.min(source.length, at + FEED_BYTES);
    yield decoder.decode(source.subarray(at, end), { stream: end < source.length });
  }
}

/**
 * Parses one XML part into a tree. Entity declarations are refused outright (office formats
 * never use them; they are how entity-expansion and external-entity attacks start), elements
 * nested past the depth limit are refused, and every node counts against `budget`.
 *
 * Malformed XML throws UNPARSABLE_DOCUMENT unless `lenient`, in which case the tree built
 * before the damage is returned with `damage` set (a truncated file still yields its text).
 */
export function parseXml(
  source: string | Uint8Array,
  budget: XmlBudget,
  opts: { part: string; lenient?: boolean },
): XmlDocument {
  const parser = new SaxesParser({
    xmlns: true,
    position: false,
    resolvePrefix: (prefix: string) => `${UNBOUND}${prefix}`,
  });
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  let pending = 0;

  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) {
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        `${opts.part} declares XML entities, which are never expanded; the document was refused.`,
      );
    }
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (stack.length > limits.xmlDepth) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `${opts.part} nests elements deeper than ${limits.xmlDepth} levels.`,
      );
    }
    const attrs: Record<string, string> = {};
    for (const attr of Object.values(tag.attributes)) {
      if (attr.prefix === 'xmlns' || attr.name === 'xmlns') continue;
      attrs[attr.uri ? qualify(attr.uri, attr.prefix, attr.local) : attr.local] = attr.value;
    }
    const el: XmlElement = { name: qualify(tag.uri, tag.prefix, tag.local), attrs, children: [] };
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
    if (++pending === 4096) {
      budget.take(pending);
      pending = 0;
    }
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const addText = (value: string): void => {
    const parent = stack[stack.length - 1]!;
    if (parent === root) return;
    const last = parent.children[parent.children.length - 1];
    if (typeof last === 'string') parent.children[parent.children.length - 1] = last + value;
    else {
      parent.children.push(value);
      if (++pending === 4096) {
        budget.take(pending);
        pending = 0;
      }
    }
  };
  parser.on('text', addText);
  parser.on('cdata', addText);

  let damage: string | undefined;
  try {
    for (const chunk of chunksOf(source)) parser.write(chunk);
    parser.close();
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    const why = err instanceof Error ? err.message.replace(/^undefined:/, '').trim() : String(err);
    if (!opts.lenient || root.children.length === 0) {
      throw new ConversionError('UNPARSABLE_DOCUMENT', `${opts.part} is not well-formed XML (${why}).`);
    }
    damage = `${opts.part} is damaged (${why}); the content before the damage was kept.`;
  }
  budget.take(pending);
  const top = root.children.find((c): c is XmlElement => typeof c !== 'string');
  if (!top) throw new ConversionError('UNPARSABLE_DOCUMENT', `${opts.part} has no root element.`);
  return damage === undefined ? { root: top } : { root: top, damage };
}

// ------------------------------------------------------------------ small tree helpers

export function isElement(node: XmlNode | undefined): node is XmlElement {
  return typeof node === 'object';
}

/** Direct children with the given name. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string' && c.name === name);
}

/** The first direct child with the given name. */
export function child(el: XmlElement, name: string): XmlElement | undefined {
  for (const c of el.children) if (typeof c !== 'string' && c.name === name) return c;
  return undefined;
}

/** The first descendant with the given name, depth first. */
export function descendant(el: XmlElement, name: string): XmlElement | undefined {
  const stack: XmlElement[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (let i = node.children.length - 1; i >= 0; i--) {
      const c = node.children[i]!;
      if (typeof c === 'string') continue;
      if (c.name === name) return c;
      stack.push(c);
    }
  }
  return undefined;
}

/** All text below an element, in document order. */
export function textOf(el: XmlElement): string {
  let out = '';
  const stack: XmlNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') out += node;
    else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}
