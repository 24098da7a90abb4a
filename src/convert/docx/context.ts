import type { ElementContent } from 'hast';
import type { Relationship } from '../package/ooxml.ts';
import type { XmlBudget, XmlNode } from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';
import type { Numbering } from './numbering.ts';
import type { Styles } from './styles.ts';

/** The package part being walked (document, footnotes, endnotes): its relationships resolve r:ids. */
export interface Part {
  path: string;
  rels: Map<string, Relationship>;
}

/** An open complex field (fldChar begin … separate … end). */
export interface OpenField {
  instruction: string;
  inResult: boolean;
  href: string | undefined;
  /** A legacy form checkbox (FORMCHECKBOX) shows as a task checkbox. */
  checkbox: boolean | undefined;
}

export interface DocxContext {
  zip: ZipPackage;
  budget: XmlBudget;
  part: Part;
  styles: Styles;
  numbering: Numbering;
  /** Title-styled paragraphs exist, so "Heading N" is pushed one level down below the h1. */
  shiftHeadings: boolean;
  /** Fields can span runs and paragraphs (a TOC), so their state lives with the document. */
  fields: OpenField[];
  /** A footnote or endnote reference → its label, numbered in order of first reference. */
  noteRef(kind: 'footnote' | 'endnote', id: string): string | undefined;
  /** `data:` URI (or external URL) of an image relationship, cached per part. */
  image(relId: string, linked: boolean): string | undefined;
  /** The block walker, passed around so that cells, text boxes and notes can recurse. */
  blocks(nodes: readonly XmlNode[], where?: 'flow' | 'cell'): ElementContent[];
  warnings: string[];
}
