import type { Element } from 'hast';
import type { Box, TextRun } from '../page-content.ts';

/** Runs on one baseline with no wide gap between them, left to right. */
export interface Line extends Box {
  runs: TextRun[];
  fontSize: number;
  /** Right-to-left script dominates: the text reads from the right end. */
  rtl: boolean;
}

/** Lines stacked with regular spacing and overlapping horizontally: a column's paragraph(s). */
export interface Block extends Box {
  lines: Line[];
  /** A detected table standing in for its runs, placed by its box. */
  table?: Element;
}

/** A stretch of text with one style and link target. */
export interface Inline {
  text: string;
  href?: string;
  bold: boolean;
  italic: boolean;
  mono: boolean;
}

/** OCR confidence of some words: their sum (each 0-100) and how many there are. */
export interface OcrScore {
  sum: number;
  words: number;
}

/** A line reduced to what the document-level passes need (runs are dropped after each page). */
export interface TextLine {
  inlines: Inline[];
  text: string;
  x: number;
  y: number;
  right: number;
  bottom: number;
  fontSize: number;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  cjk: boolean;
  /** Set when the line's words come from OCR. */
  ocr?: OcrScore;
}

/** One block of a page in reading order, kept until the whole document is read. */
export type PageBlock =
  | { kind: 'text'; page: number; box: Box; lines: TextLine[] }
  | { kind: 'table'; page: number; box: Box; node: Element; ocr?: OcrScore };

export function right(b: Box): number {
  return b.x + b.width;
}

export function bottom(b: Box): number {
  return b.y + b.height;
}
