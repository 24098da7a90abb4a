/** One recognized word, in pixels of the image Tesseract read. */
export interface OcrWord {
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
  confidence: number;
}

/** One text line as Tesseract segmented it, with its size estimates. */
export interface OcrLine {
  /** Ordinal of the block (column, caption ...) and paragraph the line belongs to. */
  block: number;
  paragraph: number;
  /** Tesseract's row height estimate: x-height plus ascenders plus descenders, in pixels. */
  size: number;
  ascenders: number;
  descenders: number;
  words: OcrWord[];
}

/** Tesseract's x-height estimate for the line, in whole pixels (its row size less ascenders and descenders). */
export function xHeightOf(line: OcrLine): number {
  return line.size - line.ascenders - line.descenders;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
    const code =
      name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

function number(title: string, key: string): number {
  const match = new RegExp(`(?:^|;)\\s*${key} (-?[0-9.]+)`).exec(title);
  return match ? Number(match[1]) : 0;
}

const BBOX = /bbox (-?\d+) (-?\d+) (-?\d+) (-?\d+)/;
/** Tesseract prints one element per line; attributes are quoted with ' or ". */
const ELEMENT = /<(div|p|span) class='(ocr[a-z_]*)'[^>]*? title=(?:'([^']*)'|"([^"]*)")[^>]*>(.*)$/;

/**
 * Reads Tesseract's hOCR output (its only format carrying the line size estimates) line by
 * line: every element opens on its own line and a word's text closes on the same line.
 */
export function parseHocr(hocr: string): OcrLine[] {
  const lines: OcrLine[] = [];
  let block = 0;
  let paragraph = 0;
  let line: OcrLine | undefined;
  for (const raw of hocr.split('\n')) {
    const match = ELEMENT.exec(raw);
    if (!match) continue;
    const kind = match[2] ?? '';
    const title = match[3] ?? match[4] ?? '';
    if (kind === 'ocr_carea') block++;
    else if (kind === 'ocr_par') paragraph++;
    else if (kind === 'ocrx_word') {
      const box = BBOX.exec(title);
      const text = decodeEntities((match[5] ?? '').replace(/<[^>]*>/g, '')).trim();
      if (!box || !text || !line) continue;
      line.words.push({
        text,
        left: Number(box[1]),
        top: Number(box[2]),
        right: Number(box[3]),
        bottom: Number(box[4]),
        confidence: number(title, 'x_wconf'),
      });
    } else if (title.includes('x_size')) {
      // ocr_line, ocr_header, ocr_caption, ocr_textfloat: all are text lines.
      line = {
        block,
        paragraph,
        size: number(title, 'x_size'),
        ascenders: number(title, 'x_ascenders'),
        descenders: number(title, 'x_descenders'),
        words: [],
      };
      lines.push(line);
    }
  }
  return lines.filter((entry) => entry.words.length > 0);
}
