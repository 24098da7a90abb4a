import { listMarker } from './lists.ts';
import type { TextLine } from './types.ts';

/** Kinds a run of lines can turn into once the document's body size is known. */
export interface Paragraph {
  lines: TextLine[];
  page: number;
  /** Set when the first line starts with a list marker. */
  list?: { ordered: boolean; value?: number; markerLength: number };
  code: boolean;
  fontSize: number;
  bold: boolean;
  italic: boolean;
}

const SENTENCE_END = /[.!?:;。！？」』)"”]$/;

/**
 * Splits one block's lines into paragraphs: at list markers, at a first-line indent, after a
 * short line that ends a sentence, and where the font size or weight changes.
 */
export function splitParagraphs(lines: readonly TextLine[], page: number): Paragraph[] {
  const out: Paragraph[] = [];
  if (lines.length === 0) return out;
  const left = Math.min(...lines.map((l) => l.x));
  const right = Math.max(...lines.map((l) => l.right));
  const allMono =
    lines.filter((l) => l.mono).length >= lines.length * 0.8 &&
    lines.some((l) => /[\p{L}\p{N}]/u.test(l.text));
  if (allMono)
    return [
      { lines: [...lines], page, code: true, fontSize: lines[0]!.fontSize, bold: false, italic: false },
    ];
  let current: Paragraph | undefined;
  let textStart = left;
  for (const [i, line] of lines.entries()) {
    const prev = lines[i - 1];
    const marker = listMarker(line.text.trimStart());
    const em = line.fontSize;
    let split = !current || !prev;
    if (current && prev) {
      const indent = line.x - left;
      const continuesItem = current.list && line.x >= textStart - em * 0.5 && !marker;
      split =
        Boolean(marker && line.x < textStart + em) ||
        (!continuesItem &&
          indent > em * 0.8 &&
          prev.x - left < em * 0.4 &&
          SENTENCE_END.test(prev.text.trim())) ||
        (right - prev.right > Math.max(em * 4, (right - left) * 0.2) &&
          SENTENCE_END.test(prev.text.trim()) &&
          !continuesItem) ||
        Math.abs(line.fontSize - prev.fontSize) > Math.min(line.fontSize, prev.fontSize) * 0.15 ||
        (emphasis(prev) && !emphasis(line) && (prev.right < right - em * 4 || lines.length < 3));
    }
    if (split || !current) {
      current = {
        lines: [line],
        page,
        code: false,
        fontSize: line.fontSize,
        bold: line.bold,
        italic: line.italic,
      };
      if (marker) {
        current.list = { ordered: marker.ordered, value: marker.value, markerLength: marker.length };
        // Continuation lines of the item hang at the text after the marker.
        textStart = line.x + (marker.length / Math.max(line.text.length, 1)) * (line.right - line.x);
      } else textStart = left;
      out.push(current);
    } else {
      current.lines.push(line);
      current.bold &&= line.bold;
      current.italic &&= line.italic;
    }
  }
  for (const p of out)
    p.fontSize =
      p.lines.reduce((s, l) => s + l.fontSize * l.text.length, 0) /
      Math.max(
        1,
        p.lines.reduce((s, l) => s + l.text.length, 0),
      );
  return out;
}

function emphasis(line: TextLine): boolean {
  return line.bold || line.italic;
}
