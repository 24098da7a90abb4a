import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { CLOSE, decodeXmlText, END, OPEN, scanXml, validReferences, XmlScanner } from './xml-scanner.ts';

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
  /** This scope's own declarations; the rest are the parent's (a copy each would cost depth x declarations). */
  private readonly uris: ReadonlyMap<string, string>;
  private readonly parent: Scope | undefined;
  constructor(uris: ReadonlyMap<string, string>, parent?: Scope) {
    this.uris = uris;
    this.parent = parent;
  }

  /**
   * A child scope when the element declares namespaces, else this one. Child scopes are kept
   * by their declarations: PowerPoint repeats the same `xmlns:a16` on every shape, and one
   * scope (with its name caches) then serves them all.
   */
  enter(names: readonly string[], values: readonly string[], count: number): Scope {
    let declarations = '';
    for (let i = 0; i < count; i++) {
      const key = names[i]!;
      if (key === 'xmlns' || key.startsWith('xmlns:')) declarations += `${key}=${values[i]}\n`;
    }
    if (declarations === '') return this;
    let child = this.children.get(declarations);
    if (child === undefined) {
      const uris = new Map<string, string>();
      for (let i = 0; i < count; i++) {
        const key = names[i]!;
        if (key === 'xmlns' || key.startsWith('xmlns:'))
          uris.set(key === 'xmlns' ? '' : key.slice(6), values[i]!);
      }
      child = new Scope(uris, this);
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
    let uri: string | undefined;
    for (let scope: Scope | undefined = this; uri === undefined && scope; scope = scope.parent)
      uri = scope.uris.get(prefix);
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
 * The tree being built from one part's events, with canonical names, merged texts, the depth
 * limit and the node budget; both tokenizers below feed it.
 */
class TreeBuilder {
  readonly root: XmlElement = { name: '#document', attrs: {}, children: [] };
  private readonly scopes: Scope[] = [new Scope(new Map())];
  // Open elements, and the children collected so far for all of them in one array: each
  // element gets an exactly sized array when it closes (a growing array would keep up to
  // 17 slots per element, most of a big tree's memory).
  private readonly open: XmlElement[] = [this.root];
  private readonly starts: number[] = [0];
  readonly collected: XmlNode[] = [];
  private pending = 0;
  private readonly budget: XmlBudget;
  private readonly part: string;

  constructor(budget: XmlBudget, part: string) {
    this.budget = budget;
    this.part = part;
  }

  /** Elements open, the document node included. */
  get depth(): number {
    return this.open.length;
  }

  private count(): void {
    if (++this.pending === 4096) {
      this.budget.take(this.pending);
      this.pending = 0;
    }
  }

  /** An element with its attributes as written: `count` names and values. */
  openElement(name: string, names: readonly string[], values: readonly string[], count: number): void {
    if (this.open.length > limits.xmlDepth) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `${this.part} nests elements deeper than ${limits.xmlDepth} levels.`,
      );
    }
    const scope = this.scopes[this.scopes.length - 1]!.enter(names, values, count);
    this.scopes.push(scope);
    let attrs = NO_ATTRIBUTES;
    for (let i = 0; i < count; i++) {
      const key = names[i]!;
      if (key === 'xmlns' || key.startsWith('xmlns:')) continue;
      if (attrs === NO_ATTRIBUTES) attrs = {};
      attrs[scope.attribute(key)] = values[i]!;
    }
    const el: XmlElement = { name: scope.element(name), attrs, children: NO_CHILDREN };
    this.collected.push(el);
    this.open.push(el);
    this.starts.push(this.collected.length);
    this.count();
  }

  closeElement(): void {
    this.scopes.pop();
    const el = this.open.pop()!;
    const start = this.starts.pop()!;
    if (this.collected.length > start) {
      el.children = this.collected.slice(start);
      this.collected.length = start;
    }
  }

  text(value: string): void {
    if (this.open.length === 1) return;
    const collected = this.collected;
    const last =
      collected.length > this.starts[this.starts.length - 1]! ? collected[collected.length - 1] : undefined;
    if (typeof last === 'string') collected[collected.length - 1] = last + value;
    else {
      collected.push(value);
      this.count();
    }
  }

  /** The document: malformed XML (`why`) throws unless `lenient` and something was read. */
  finish(why: string | undefined, lenient: boolean | undefined): XmlDocument {
    let damage: string | undefined;
    if (why !== undefined) {
      if (!lenient || this.collected.length === 0) {
        throw new ConversionError('UNPARSABLE_DOCUMENT', `${this.part} is not well-formed XML (${why}).`);
      }
      damage = `${this.part} is damaged (${why}); the content before the damage was kept.`;
    }
    while (this.open.length > 0) this.closeElement();
    this.budget.take(this.pending);
    const top = this.root.children.find((c): c is XmlElement => typeof c !== 'string');
    if (!top) throw new ConversionError('UNPARSABLE_DOCUMENT', `${this.part} has no root element.`);
    return damage === undefined ? { root: top } : { root: top, damage };
  }
}

function refuseEntities(part: string): ConversionError {
  return new ConversionError(
    'UNPARSABLE_DOCUMENT',
    `${part} declares XML entities, which are never expanded; the document was refused.`,
  );
}

/**
 * Parts up to this size are decoded whole and read with the pull scanner, several times
 * faster than saxes; larger ones are fed to saxes a slice at a time (see FEED_BYTES).
 */
const SCAN_BYTES = 32 * 1024 * 1024;

/** Attributes of one element compared one by one for duplicates; more go into a set. */
const SET_AFTER = 16;

/** The scanner's tokens into the tree, stopping at the first thing saxes would call malformed. */
function buildScanned(source: string | Uint8Array, tree: TreeBuilder, part: string): string | undefined {
  const x = typeof source === 'string' ? new XmlScanner(source, part) : scanXml(source, part);
  const open: string[] = [];
  // One element's attributes at a time, in arrays reused for every element.
  const names: string[] = [];
  const values: string[] = [];
  let rootSeen = false;
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind === OPEN) {
      if (tree.depth === 1 && rootSeen) return 'documents may contain only one root';
      rootSeen = true;
      let count = 0;
      let seen: Set<string> | undefined;
      const wellFormed = x.attributes((name, value) => {
        // A name given twice: saxes calls that malformed, and so does this. Past a few
        // attributes a set does the looking, or a tag of thousands would take quadratic time.
        if (count < SET_AFTER) {
          for (let i = 0; i < count; i++) if (names[i] === name) return false;
        } else {
          seen ??= new Set(names.slice(0, count));
          if (seen.has(name)) return false;
          seen.add(name);
        }
        names[count] = name;
        values[count++] = value;
        return true;
      });
      if (!wellFormed) return 'malformed attribute';
      tree.openElement(x.qname, names, values, count);
      if (x.empty) tree.closeElement();
      else open.push(x.qname);
    } else if (kind === CLOSE) {
      if (open.length === 0 || open[open.length - 1] !== x.qname) return 'unexpected close tag';
      open.pop();
      tree.closeElement();
    } else {
      const raw = x.rawText;
      if (raw === undefined) {
        if (tree.depth === 1) return 'text data outside of root node';
        tree.text(x.text);
        continue;
      }
      if (!validReferences(raw)) return 'undefined entity';
      if (tree.depth === 1) {
        if (/\S/.test(raw)) return 'text data outside of root node';
        continue;
      }
      tree.text(decodeXmlText(raw));
    }
  }
  if (x.truncated) return open.length > 0 ? `unclosed tag: ${open[open.length - 1]}` : 'unexpected end';
  if (open.length > 0) return `unclosed tag: ${open[open.length - 1]}`;
  return undefined;
}

/** The same with saxes, a slice at a time, for parts too big to decode whole. */
function buildStreamed(source: string | Uint8Array, tree: TreeBuilder, part: string): string | undefined {
  const parser = new SaxesParser({ position: false, xmlns: false });
  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) throw refuseEntities(part);
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const attributes = tag.attributes as Record<string, string>;
    const names = Object.keys(attributes);
    tree.openElement(
      tag.name,
      names,
      names.map((n) => attributes[n]!),
      names.length,
    );
  });
  parser.on('closetag', () => tree.closeElement());
  parser.on('text', (value) => tree.text(value));
  parser.on('cdata', (value) => tree.text(value));
  try {
    for (const chunk of chunksOf(source)) parser.write(chunk);
    parser.close();
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    return err instanceof Error ? err.message.replace(/^undefined:/, '').trim() : String(err);
  }
  return undefined;
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
  const tree = new TreeBuilder(budget, opts.part);
  const why =
    source.length <= SCAN_BYTES
      ? buildScanned(source, tree, opts.part)
      : buildStreamed(source, tree, opts.part);
  return tree.finish(why, opts.lenient);
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
