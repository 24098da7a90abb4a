/**
 * RTF tokenizer over the raw bytes. Pull-based and allocation-light: `next()` returns a token
 * kind and leaves the token's details in public fields, so a 50 MB file costs no object per
 * token. Text tokens are byte ranges; the interpreter decodes them in the current code page.
 */

export const EOF = 0;
export const OPEN = 1;
export const CLOSE = 2;
/** A control word: `word`, and `param` when `hasParam`. */
export const WORD = 3;
/** `\'hh`: one byte of text in the current code page, in `byte`. */
export const HEX = 4;
/** Plain text bytes `start`..`end` (line breaks, which RTF ignores, end a text token). */
export const TEXT = 5;
/** `\binN`: raw bytes `start`..`end`, already stepped over. */
export const BIN = 6;
/** A control symbol such as `\~` or `\{`: its character in `byte`. */
export const SYMBOL = 7;

type TokenKind =
  | typeof EOF
  | typeof OPEN
  | typeof CLOSE
  | typeof WORD
  | typeof HEX
  | typeof TEXT
  | typeof BIN
  | typeof SYMBOL;

const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const CR = 0x0d;
const LF = 0x0a;

/** Spec: parameters are 16-bit; real files use more (`\cellx`, `\bin`), so cap far above. */
const MAX_PARAM = 2 ** 31 - 1;

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** Real documents use a few hundred words; junk with endless distinct names is not cached. */
const MAX_CACHED_WORDS = 4096;

/** The internalized copy of a string (property keys are internalized by the engine). */
function internalize(s: string): string {
  return Object.keys({ [s]: 0 })[0]!;
}

/** The value of a hex digit, or -1. */
export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

export class RtfTokenizer {
  readonly bytes: Uint8Array;
  private readonly latin1: Buffer;
  pos: number;
  word = '';
  param = 0;
  hasParam = false;
  byte = 0;
  start = 0;
  end = 0;

  constructor(bytes: Uint8Array, start: number) {
    this.bytes = bytes;
    this.latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    this.pos = start;
  }

  next(): TokenKind {
    const b = this.bytes;
    const n = b.length;
    let p = this.pos;
    while (p < n && (b[p] === CR || b[p] === LF)) p++;
    if (p >= n) {
      this.pos = p;
      return EOF;
    }
    const c = b[p]!;
    if (c === LBRACE) {
      this.pos = p + 1;
      return OPEN;
    }
    if (c === RBRACE) {
      this.pos = p + 1;
      return CLOSE;
    }
    if (c !== BACKSLASH) {
      const s = p;
      while (p < n) {
        const d = b[p]!;
        if (d === BACKSLASH || d === LBRACE || d === RBRACE || d === CR || d === LF) break;
        p++;
      }
      this.start = s;
      this.end = p;
      this.pos = p;
      return TEXT;
    }
    return this.control(p + 1);
  }

  /** After a backslash at `p - 1`. */
  private control(p: number): TokenKind {
    const b = this.bytes;
    const n = b.length;
    if (p >= n) {
      this.pos = p;
      return EOF;
    }
    const c = b[p]!;
    if (!isLetter(c)) {
      if (c === 0x27) {
        const hi = p + 1 < n ? hexValue(b[p + 1]!) : -1;
        const lo = p + 2 < n ? hexValue(b[p + 2]!) : -1;
        if (hi >= 0 && lo >= 0) {
          this.byte = (hi << 4) | lo;
          this.pos = p + 3;
          return HEX;
        }
        this.pos = p + 1;
        this.start = p;
        this.end = p + 1;
        return TEXT;
      }
      this.pos = p + 1;
      // A backslash before a line break is an old spelling of \par.
      if (c === CR || c === LF) {
        this.word = 'par';
        this.hasParam = false;
        return WORD;
      }
      this.byte = c;
      return SYMBOL;
    }
    const s = p;
    let hash = 0;
    while (p < n && isLetter(b[p]!)) {
      hash = (Math.imul(hash, 31) + b[p]!) | 0;
      p++;
    }
    this.word = this.cachedWord(hash, s, p);
    this.hasParam = false;
    this.param = 0;
    let negative = false;
    if (p < n && b[p] === 0x2d && p + 1 < n && b[p + 1]! >= 0x30 && b[p + 1]! <= 0x39) {
      negative = true;
      p++;
    }
    if (p < n && b[p]! >= 0x30 && b[p]! <= 0x39) {
      let v = 0;
      while (p < n && b[p]! >= 0x30 && b[p]! <= 0x39) {
        if (v < MAX_PARAM) v = Math.min(MAX_PARAM, v * 10 + (b[p]! - 0x30));
        p++;
      }
      this.hasParam = true;
      this.param = negative ? -v : v;
    }
    if (p < n && b[p] === 0x20) p++;
    if (this.word === 'bin') {
      // Raw bytes follow; never read past the end, whatever N claims.
      const count = this.hasParam && this.param > 0 ? this.param : 0;
      this.start = p;
      this.end = Math.min(n, p + count);
      this.pos = this.end;
      return BIN;
    }
    this.pos = p;
    return WORD;
  }

  /**
   * Control word names, interned: a document uses a few hundred distinct words millions of
   * times, so each is sliced once and later compared by identity in the interpreter's switches.
   */
  private readonly words = new Map<number, string>();

  private cachedWord(hash: number, start: number, end: number): string {
    const key = (hash ^ ((end - start) << 24)) | 0;
    const cached = this.words.get(key);
    if (cached !== undefined && cached.length === end - start) {
      let same = true;
      for (let i = 0; i < cached.length; i++) {
        if (cached.charCodeAt(i) !== this.bytes[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return cached;
    }
    const word = internalize(this.latin1.toString('latin1', start, end));
    if (this.words.size < MAX_CACHED_WORDS) this.words.set(key, word);
    return word;
  }

  /**
   * Steps over the rest of the current group, through its closing brace, without
   * interpreting it: only braces, escapes and `\bin` data matter. Returns false at the end
   * of the input (the group was never closed).
   */
  skipGroup(): boolean {
    const b = this.bytes;
    const n = b.length;
    let depth = 1;
    let p = this.pos;
    while (p < n) {
      const c = b[p]!;
      if (c === LBRACE) depth++;
      else if (c === RBRACE) {
        if (--depth === 0) {
          this.pos = p + 1;
          return true;
        }
      } else if (c === BACKSLASH) {
        if (p + 3 < n && b[p + 1] === 0x62 && b[p + 2] === 0x69 && b[p + 3] === 0x6e) {
          // Stepping over \binN data, whose bytes may contain braces.
          this.control(p + 1);
          p = this.pos;
          continue;
        }
        p += 2;
        continue;
      }
      p++;
    }
    this.pos = n;
    return false;
  }
}
