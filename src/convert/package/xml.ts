import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
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
  'http://schemas.openxmlformats.org/drawingml/2006/diagram': 'dgm',
  'http://schemas.microsoft.com/office/drawing/2010/main': 'a14',
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

/**
 * Namespace declarations in scope, and the canonical spelling of every raw name seen under
 * them. Namespaces are resolved here rather than by saxes (its `xmlns` mode costs ~2x in
 * parse time): office files declare their namespaces once on the root, so nearly every name
 * is one cache hit, and the resulting strings are shared by all elements that use them.
 */
class Scope {
  private readonly elementNames = new Map<string, string>();
  private readonly attributeNames = new Map<string, string>();
  private readonly children = new Map<string, Scope>();
  private readonly uris: ReadonlyMap<string, string>;
  constructor(uris: ReadonlyMap<string, string>) {
    this.uris = uris;
  }

  /**
   * A child scope when the element declares namespaces, else this one. Child scopes are kept
   * by their declarations: PowerPoint repeats the same `xmlns:a16` on every shape, and one
   * scope (with its name caches) then serves them all.
   */
  enter(attributes: Record<string, string>): Scope {
    let declarations = '';
    for (const key in attributes) {
      if (key === 'xmlns' || key.startsWith('xmlns:')) declarations += `${key}=${attributes[key]}\n`;
    }
    if (declarations === '') return this;
    let child = this.children.get(declarations);
    if (child === undefined) {
      const uris = new Map(this.uris);
      for (const key in attributes) {
        if (key === 'xmlns' || key.startsWith('xmlns:'))
          uris.set(key === 'xmlns' ? '' : key.slice(6), attributes[key]!);
      }
      child = new Scope(uris);
      this.children.set(declarations, child);
    }
    return child;
  }

  element(raw: string): string {
    let name = this.elementNames.get(raw);
    if (name === undefined) {
      name = this.spell(raw, true);
      this.elementNames.set(raw, name);
    }
    return name;
  }

  attribute(raw: string): string {
    let name = this.attributeNames.get(raw);
    if (name === undefined) {
      name = this.spell(raw, false);
      this.attributeNames.set(raw, name);
    }
    return name;
  }

  /** Unprefixed attributes are in no namespace; an unbound prefix keeps its own spelling. */
  private spell(raw: string, isElement: boolean): string {
    const colon = raw.indexOf(':');
    const prefix = colon < 0 ? '' : raw.slice(0, colon);
    const local = colon < 0 ? raw : raw.slice(colon + 1);
    if (prefix === '' && !isElement) return local;
    if (prefix === 'xml') return raw;
    const uri = this.uris.get(prefix);
    const canonical = uri === undefined ? undefined : CANONICAL[uri];
    if (canonical !== undefined) return `${canonical}:${local}`;
    return raw;
  }
}

/** Shared by every element without attributes or children; frozen so that no walker can write into them. */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_CHILDREN: XmlNode[] = Object.freeze([]) as unknown as XmlNode[];

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
  const parser = new SaxesParser({ position: false, xmlns: false });
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const scopes: Scope[] = [new Scope(new Map())];
  // Open elements, and the children collected so far for all of them in one array: each
  // element gets an exactly sized array when it closes (a growing array would keep up to
  // 17 slots per element, most of a big tree's memory).
  const open: XmlElement[] = [root];
  const starts: number[] = [0];
  const collected: XmlNode[] = [];
  let pending = 0;
  const count = (): void => {
    if (++pending === 4096) {
      budget.take(pending);
      pending = 0;
    }
  };
  const close = (): void => {
    scopes.pop();
    const el = open.pop()!;
    const start = starts.pop()!;
    if (collected.length > start) {
      el.children = collected.slice(start);
      collected.length = start;
    }
  };

  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) {
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        `${opts.part} declares XML entities, which are never expanded; the document was refused.`,
      );
    }
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const attributes = tag.attributes as Record<string, string>;
    if (open.length > limits.xmlDepth) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `${opts.part} nests elements deeper than ${limits.xmlDepth} levels.`,
      );
    }
    const scope = scopes[scopes.length - 1]!.enter(attributes);
    scopes.push(scope);
    let attrs = NO_ATTRIBUTES;
    for (const key in attributes) {
      if (key === 'xmlns' || key.startsWith('xmlns:')) continue;
      if (attrs === NO_ATTRIBUTES) attrs = {};
      attrs[scope.attribute(key)] = attributes[key]!;
    }
    const el: XmlElement = { name: scope.element(tag.name), attrs, children: NO_CHILDREN };
    collected.push(el);
    open.push(el);
    starts.push(collected.length);
    count();
  });
  parser.on('closetag', close);
  const addText = (value: string): void => {
    if (open.length === 1) return;
    const last = collected.length > starts[starts.length - 1]! ? collected[collected.length - 1] : undefined;
    if (typeof last === 'string') collected[collected.length - 1] = last + value;
    else {
      collected.push(value);
      count();
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
    if (!opts.lenient || collected.length === 0) {
      throw new ConversionError('UNPARSABLE_DOCUMENT', `${opts.part} is not well-formed XML (${why}).`);
    }
    damage = `${opts.part} is damaged (${why}); the content before the damage was kept.`;
  }
  while (open.length > 0) close();
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
