import { ConversionError } from '../converter.ts';

/**
 * A pull tokenizer for XML: what xml.ts builds its trees from, and what parts read for a few
 * facts or in bulk (relationships; spreadsheet sheets, shared strings, styles, comments) are
 * read with directly, where a tree would cost ten times the time and memory of what it holds:
 * a million-cell sheet is five million tags. It reads tags, text and CDATA, skips comments,
 * processing instructions and a DOCTYPE (refusing one that declares entities: never expanded),
 * and never throws on damage: a part that ends inside markup or with elements open ends the
 * token stream with `truncated` set, so that what precedes the damage is kept.
 *
 * `name` is the local name (the prefix dropped), which the direct readers match: the parts
 * they read use one namespace for the elements that matter, whatever prefix a writer chose.
 * `qname` is the name as written, for the tree builder's namespace resolution.
 */

export const END = 0;
export const OPEN = 1;
export const CLOSE = 2;
export const TEXT = 3;
type Kind = typeof END | typeof OPEN | typeof CLOSE | typeof TEXT;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const EQUALS = 0x3d;
const COLON = 0x3a;

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

/** What makes an attribute value more than its characters: references, `<`, tabs and line ends. */
const ATTRIBUTE_SPECIAL = /[&<\t\n\r]/;
const INVALID_REFERENCE = /&(?!(?:#[0-9]+|#x[0-9a-fA-F]+|lt|gt|amp|quot|apos);)/;

/** Whether every `&` in raw text starts a character reference or a predefined entity. */
export function validReferences(raw: string): boolean {
  return !raw.includes('&') || !INVALID_REFERENCE.test(raw);
}

/** attributeAt's results past the last attribute and for a malformed one. */
const NO_MORE = -1;
const MALFORMED = -2;

/** An attribute value as XML normalizes it: literal tabs and line ends as spaces, references resolved. */
function attributeValue(raw: string): string {
  return ATTRIBUTE_SPECIAL.test(raw) ? decodeXmlText(raw.replace(/\r\n|[\t\n\r]/g, ' ')) : raw;
}

/** Character references and the five predefined entities; anything else stays as written. */
export function decodeXmlText(raw: string): string {
  let s = raw;
  if (s.includes('\r')) s = s.replace(/\r\n?/g, '\n');
  if (!s.includes('&')) return s;
  return s.replace(REFERENCE, (match, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = dec ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : match;
  });
}

export class XmlScanner {
  private readonly s: string;
  private readonly part: string;
  private p = 0;
  /** Open elements around the current position. */
  depth = 0;
  kind: Kind = END;
  /** Local name of the current open or close tag. */
  name = '';
  /** Whether the current open tag closes itself (`<c/>`): no content and no CLOSE follows. */
  empty = false;
  /** Set once the part ended inside markup or with elements still open. */
  truncated = false;
  private from = 0;
  private to = 0;
  private nameStart = 0;
  private nameEnd = 0;
  /** The attribute attributeAt read last. */
  private attrNameStart = 0;
  private attrNameEnd = 0;
  private attrValueStart = 0;
  private attrValueEnd = 0;
  private cdata = false;

  constructor(text: string, part: string) {
    this.s = text;
    this.part = part;
  }

  /** Characters read so far: where a caller cutting the part at a budget stands. */
  get position(): number {
    return this.p;
  }

  /** The current text token, decoded (line ends normalized, references resolved). */
  get text(): string {
    const raw = this.s.slice(this.from, this.to);
    if (!this.cdata) return decodeXmlText(raw);
    return raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  }

  /** The current text token as written; undefined for CDATA, whose text is never decoded. */
  get rawText(): string | undefined {
    return this.cdata ? undefined : this.s.slice(this.from, this.to);
  }

  /** The current tag's name as written, prefix included. */
  get qname(): string {
    return this.s.slice(this.nameStart, this.nameEnd);
  }

  next(): Kind {
    const s = this.s;
    for (;;) {
      const start = this.p;
      if (start >= s.length) return this.finish();
      if (s.charCodeAt(start) !== LT) {
        const lt = s.indexOf('<', start);
        this.from = start;
        this.to = lt === -1 ? s.length : lt;
        this.p = this.to;
        this.cdata = false;
        return this.token(TEXT);
      }
      const c = s.charCodeAt(start + 1);
      if (c === 0x21 /* ! */) {
        if (s.startsWith('<![CDATA[', start)) {
          const end = s.indexOf(']]>', start + 9);
          if (end === -1) return this.finish(true);
          this.from = start + 9;
          this.to = end;
          this.p = end + 3;
          this.cdata = true;
          return this.token(TEXT);
        }
        if (!this.skipDeclaration(start)) return this.finish(true);
        continue;
      }
      if (c === 0x3f /* ? */) {
        const end = s.indexOf('?>', start + 2);
        if (end === -1) return this.finish(true);
        this.p = end + 2;
        continue;
      }
      if (c === SLASH) {
        const end = s.indexOf('>', start + 2);
        if (end === -1) return this.finish(true);
        let nameEnd = start + 2;
        while (nameEnd < end && !isSpace(s.charCodeAt(nameEnd))) nameEnd++;
        this.name = localName(s, start + 2, nameEnd);
        this.nameStart = start + 2;
        this.nameEnd = nameEnd;
        this.p = end + 1;
        if (this.depth > 0) this.depth--;
        return this.token(CLOSE);
      }
      return this.openTag(start);
    }
  }

  /**
   * Reads the attribute of the current open tag that starts at or after `i` into the fields
   * below; returns where the next one may start, NO_MORE past the last one, MALFORMED for a
   * name without a value or a value without quotes.
   */
  private attributeAt(i: number): number {
    const s = this.s;
    const end = this.to;
    let p = i;
    while (p < end && isSpace(s.charCodeAt(p))) p++;
    if (p >= end) return NO_MORE;
    this.attrNameStart = p;
    while (p < end && s.charCodeAt(p) !== EQUALS && !isSpace(s.charCodeAt(p))) p++;
    this.attrNameEnd = p;
    while (p < end && isSpace(s.charCodeAt(p))) p++;
    if (p >= end || s.charCodeAt(p) !== EQUALS || this.attrNameEnd === this.attrNameStart) return MALFORMED;
    p++;
    while (p < end && isSpace(s.charCodeAt(p))) p++;
    const quote = s.charCodeAt(p);
    if (quote !== QUOTE && quote !== APOSTROPHE) return MALFORMED;
    const close = s.indexOf(quote === QUOTE ? '"' : "'", p + 1);
    if (close === -1 || close > end) return MALFORMED;
    this.attrValueStart = p + 1;
    this.attrValueEnd = close;
    return close + 1;
  }

  /**
   * The value of an attribute of the current open tag, by local name, decoded; undefined when
   * absent (or unreadable).
   */
  attr(local: string): string | undefined {
    for (let i = this.attributeAt(this.from); i >= 0; i = this.attributeAt(i)) {
      if (localName(this.s, this.attrNameStart, this.attrNameEnd) === local) {
        return attributeValue(this.s.slice(this.attrValueStart, this.attrValueEnd));
      }
    }
    return undefined;
  }

  /**
   * Every attribute of the current open tag, as written (`w:val`) and with its value normalized
   * as XML requires (literal tabs and line ends become spaces, then references are resolved).
   * False, after the attributes read so far, when the tag is malformed: a value without quotes
   * or holding `<` or a stray `&`, a name without a value, or `visit` refusing one (a duplicate).
   */
  attributes(visit: (name: string, value: string) => boolean): boolean {
    let i = this.attributeAt(this.from);
    for (; i >= 0; i = this.attributeAt(i)) {
      const raw = this.s.slice(this.attrValueStart, this.attrValueEnd);
      if (ATTRIBUTE_SPECIAL.test(raw) && (raw.includes('<') || !validReferences(raw))) return false;
      if (!visit(this.s.slice(this.attrNameStart, this.attrNameEnd), attributeValue(raw))) return false;
    }
    return i === NO_MORE;
  }

  /** The text of the open element's content (all descendants), leaving the scanner past its end. */
  elementText(): string {
    if (this.empty) return '';
    const depth = this.depth - 1;
    let text = '';
    for (let kind = this.next(); kind !== END; kind = this.next()) {
      if (kind === TEXT) text += this.text;
      else if (kind === CLOSE && this.depth === depth) break;
    }
    return text;
  }

  /** Skips the open element's content, leaving the scanner past its end. */
  skipElement(): void {
    if (this.empty) return;
    const depth = this.depth - 1;
    for (let kind = this.next(); kind !== END; kind = this.next()) {
      if (kind === CLOSE && this.depth === depth) return;
    }
  }

  private openTag(start: number): Kind {
    const s = this.s;
    let i = start + 1;
    const nameStart = i;
    for (
      let c = s.charCodeAt(i);
      i < s.length && c !== GT && c !== SLASH && !isSpace(c);
      c = s.charCodeAt(++i)
    );
    const nameEnd = i;
    // Attribute values may hold `>`: the tag ends at the first one outside quotes.
    let quote = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === QUOTE || c === APOSTROPHE) quote = c;
      else if (c === GT) break;
    }
    if (i >= s.length) return this.finish(true);
    this.empty = s.charCodeAt(i - 1) === SLASH;
    this.name = localName(s, nameStart, nameEnd);
    this.nameStart = nameStart;
    this.nameEnd = nameEnd;
    this.from = nameEnd;
    this.to = this.empty ? i - 1 : i;
    this.p = i + 1;
    if (!this.empty) this.depth++;
    return this.token(OPEN);
  }

  /** Comments and DOCTYPE; false when the part ends inside one. */
  private skipDeclaration(start: number): boolean {
    const s = this.s;
    if (s.startsWith('<!--', start)) {
      const end = s.indexOf('-->', start + 4);
      if (end === -1) return false;
      this.p = end + 3;
      return true;
    }
    // <!DOCTYPE name [ internal subset ]>: the subset may hold `>` inside its declarations.
    // The `[` is looked for only up to the first `>`: searching the rest of the part for it
    // would make a part of many `<!x>` quadratic.
    const gt = s.indexOf('>', start);
    if (gt === -1) return false;
    const bracket = s.slice(start, gt).indexOf('[');
    let end = gt;
    if (bracket !== -1) {
      const close = s.indexOf(']', start + bracket);
      if (close === -1) return false;
      end = s.indexOf('>', close);
      if (end === -1) return false;
    }
    if (/<!ENTITY/i.test(s.slice(start, end))) {
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        `${this.part} declares XML entities, which are never expanded; the document was refused.`,
      );
    }
    this.p = end + 1;
    return true;
  }

  private token(kind: Kind): Kind {
    this.kind = kind;
    return kind;
  }

  private finish(damaged = false): Kind {
    this.p = this.s.length;
    if (damaged || this.depth > 0) this.truncated = true;
    return this.token(END);
  }
}

function localName(s: string, start: number, end: number): string {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) === COLON) return s.slice(i + 1, end);
  return s.slice(start, end);
}

/** A scanner over a part's bytes: UTF-8 unless a byte-order mark says UTF-16, which XML also allows. */
export function scanXml(bytes: Uint8Array, part: string): XmlScanner {
  let encoding = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = 'utf-16be';
  return new XmlScanner(new TextDecoder(encoding).decode(bytes), part);
}
