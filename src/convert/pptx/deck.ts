import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { mimeOf } from '../package/image-mime.ts';
import { type Relationship, readRelationships } from '../package/ooxml.ts';
import { parseXml, type XmlBudget, type XmlElement } from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';

/** One parsed package part with the relationships that resolve its r:ids. */
export interface Part {
  path: string;
  root: XmlElement;
  rels: Map<string, Relationship>;
}

/**
 * The package of one presentation: parts parsed once each (layouts, masters and pictures are
 * shared by many slides), damage reported as warnings.
 */
export class Deck {
  readonly zip: ZipPackage;
  readonly budget: XmlBudget;
  readonly warnings: string[];
  private readonly parts = new Map<string, Part | undefined>();
  private readonly images = new Map<string, string | undefined>();
  private readonly shown = new Set<string>();

  constructor(zip: ZipPackage, budget: XmlBudget, warnings: string[]) {
    this.zip = zip;
    this.budget = budget;
    this.warnings = warnings;
  }

  /** The part at `path`, or undefined when it is missing; a broken optional part is a warning. */
  part(path: string): Part | undefined {
    if (this.parts.has(path)) return this.parts.get(path);
    let part: Part | undefined;
    try {
      const bytes = this.zip.bytes(path);
      if (bytes) {
        const doc = parseXml(bytes, this.budget, { part: path, lenient: true });
        if (doc.damage) this.warnings.push(doc.damage);
        part = { path, root: doc.root, rels: this.relationships(path) };
      }
    } catch (err) {
      this.recover(err);
    }
    this.parts.set(path, part);
    return part;
  }

  /** A part's relationships; broken ones cost its links and pictures, not its text. */
  relationships(path: string): Map<string, Relationship> {
    try {
      return readRelationships(this.zip, path, this.budget);
    } catch (err) {
      this.recover(err);
      return new Map();
    }
  }

  /** Damage is reported and survived; limits and encryption end the conversion. */
  private recover(err: unknown): void {
    if (!(err instanceof ConversionError) || err.code !== 'UNPARSABLE_DOCUMENT') throw err;
    this.warnings.push(err.message);
  }

  /** The internal part a relationship of `from` points to, when it exists. */
  related(from: Part, relId: string | undefined): Part | undefined {
    const rel = relId ? from.rels.get(relId) : undefined;
    return rel && !rel.external ? this.part(rel.target) : undefined;
  }

  /** The first internal part of a relationship type (`slideLayout`, `notesSlide`, ...). */
  relatedOfType(from: Part, type: string): Part | undefined {
    for (const rel of from.rels.values()) {
      if (rel.type === type && !rel.external && this.zip.has(rel.target)) return this.part(rel.target);
    }
    return undefined;
  }

  /**
   * True the first time a part's content is placed: a chart or diagram that many frames (or a
   * hostile number of them) point to is shown once, so a small file cannot multiply a big part.
   */
  firstShowing(part: Part): boolean {
    if (this.shown.has(part.path)) return false;
    this.shown.add(part.path);
    return true;
  }

  /** A picture relationship as a data: URI (undefined when missing or too big). */
  image(from: Part, relId: string | undefined): string | undefined {
    const rel = relId ? from.rels.get(relId) : undefined;
    if (!rel || rel.external) return undefined;
    if (!this.images.has(rel.target)) {
      const bytes = this.zip.bytes(rel.target);
      this.images.set(
        rel.target,
        bytes && bytes.length > 0 && bytes.length <= limits.embeddedImageBytes
          ? `data:${mimeOf(rel.target, bytes)};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`
          : undefined,
      );
    }
    return this.images.get(rel.target);
  }

  /** An external hyperlink target of `from`, unless it is script or inline data. */
  link(from: Part, relId: string | undefined): string | undefined {
    const rel = relId ? from.rels.get(relId) : undefined;
    if (!rel?.external) return undefined;
    return /^\s*(?:javascript|vbscript|data):/i.test(rel.target) ? undefined : rel.target;
  }
}
