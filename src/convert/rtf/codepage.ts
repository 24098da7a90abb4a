/**
 * RTF text bytes (`\'hh` escapes and raw 8-bit text) are in the code page of the current
 * font's charset, else the document's `\ansicpgN`. Bytes are gathered until the formatting
 * changes and decoded together, so double-byte characters (a lead `\'hh` and its trail)
 * are combined.
 */

/** `\fcharsetN` → Windows code page (the charsets Word writes). */
const CHARSET_CODEPAGE: Record<number, number> = {
  77: 10000,
  128: 932,
  129: 949,
  134: 936,
  136: 950,
  161: 1253,
  162: 1254,
  163: 1258,
  177: 1255,
  178: 1256,
  186: 1257,
  204: 1251,
  222: 874,
  238: 1250,
};

export function charsetCodepage(charset: number): number | undefined {
  return CHARSET_CODEPAGE[charset];
}

/** Windows code page → WHATWG encoding label TextDecoder knows. */
function codepageLabel(codepage: number): string {
  if (codepage >= 1250 && codepage <= 1258) return `windows-${codepage}`;
  switch (codepage) {
    case 874:
      return 'windows-874';
    case 932:
      return 'shift_jis';
    case 936:
    case 54936:
      return 'gb18030';
    case 949:
      return 'euc-kr';
    case 950:
      return 'big5';
    case 866:
      return 'ibm866';
    case 10000:
      return 'macintosh';
    case 10007:
      return 'x-mac-cyrillic';
    case 20866:
      return 'koi8-r';
    case 21866:
      return 'koi8-u';
    case 65001:
      return 'utf-8';
    default:
      if (codepage >= 28591 && codepage <= 28605) return `iso-8859-${codepage - 28590}`;
      return 'windows-1252';
  }
}

type Decoder = InstanceType<typeof TextDecoder>;

const decoders = new Map<number, Decoder>();

function decoderFor(codepage: number): Decoder {
  let d = decoders.get(codepage);
  if (!d) {
    try {
      d = new TextDecoder(codepageLabel(codepage));
    } catch {
      d = new TextDecoder('windows-1252');
    }
    decoders.set(codepage, d);
  }
  return d;
}

const DOUBLE_BYTE = new Set([932, 936, 949, 950, 54936]);

/** Whether bytes with some above 0x7F are well-formed UTF-8 (lead and continuation bytes). */
function isUtf8(bytes: Uint8Array): boolean {
  const n = bytes.length;
  for (let i = 0; i < n; ) {
    const c = bytes[i]!;
    const length =
      c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > n) return false;
    for (let k = 1; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return false;
    i += length;
  }
  return true;
}

/** A growable byte buffer of pending text. */
export class PendingBytes {
  private buf = new Uint8Array(256);
  length = 0;
  private highBytes = false;

  push(byte: number): void {
    if (this.length === this.buf.length) this.grow(this.length + 1);
    this.buf[this.length++] = byte;
    if (byte >= 0x80) this.highBytes = true;
  }

  pushRange(src: Uint8Array, start: number, end: number): void {
    const count = end - start;
    if (this.length + count > this.buf.length) this.grow(this.length + count);
    for (let i = start; i < end; i++) {
      const c = src[i]!;
      if (c >= 0x80) this.highBytes = true;
      this.buf[this.length++] = c;
    }
  }

  /** The pending bytes as text, emptying the buffer. */
  take(codepage: number): string {
    const bytes = this.buf.subarray(0, this.length);
    let text: string;
    if (!this.highBytes) text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
    // Some writers put raw UTF-8 in RTF; in a single-byte code page, valid UTF-8 is no accident.
    else if (!DOUBLE_BYTE.has(codepage) && isUtf8(bytes)) text = decoderFor(65001).decode(bytes);
    else text = decoderFor(codepage).decode(bytes);
    this.length = 0;
    this.highBytes = false;
    return text;
  }

  base64(): string {
    return Buffer.from(this.buf.buffer, 0, this.length).toString('base64');
  }

  private grow(min: number): void {
    let size = this.buf.length * 2;
    while (size < min) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}
