import type { DocumentMetadata } from '../../document/model.ts';
import { ConversionError } from '../converter.ts';
import type { XmlBudget } from './xml.ts';
import { END, OPEN, scanXml } from './xml-scanner.ts';
import type { ZipPackage } from './zip.ts';

/** Open Packaging Conventions (ECMA-376 part 2), shared by DOCX, XLSX and PPTX. */

export interface Relationship {
  id: string;
  /** The relationship type's last path segment: `image`, `hyperlink`, `footnotes`, `officeDocument`, ... */
  type: string;
  /** For internal targets, the package path of the target part (no leading slash). */
  target: string;
  external: boolean;
}

/** `word/document.xml` + `media/a.png` → `word/media/a.png`; `/x/y` is package-absolute. */
export function resolvePartPath(fromPart: string, target: string): string {
  const base = target.startsWith('/') ? [] : fromPart.split('/').slice(0, -1);
  for (const seg of target.replace(/^\//, '').split('/')) {
    if (seg === '..') base.pop();
    else if (seg !== '.' && seg !== '') base.push(seg);
  }
  return base.map((s) => safeDecode(s)).join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function relsPathOf(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** The relationships of one part (`''` for the package itself), by id. Missing .rels → empty. */
export function readRelationships(
  zip: ZipPackage,
  part: string,
  budget: XmlBudget,
): Map<string, Relationship> {
  const relsPath = part === '' ? '_rels/.rels' : relsPathOf(part);
  const bytes = zip.bytes(relsPath);
  const rels = new Map<string, Relationship>();
  if (!bytes) return rels;
  // Scanned rather than parsed into a tree: a package has a .rels part per part, and writers
  // that leave a raw `&` in a target URL must not lose the relationships after it.
  const x = scanXml(bytes, relsPath);
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN || x.name !== 'Relationship') continue;
    budget.take(1);
    const id = x.attr('Id') ?? '';
    const target = x.attr('Target') ?? '';
    const external = x.attr('TargetMode') === 'External';
    rels.set(id, {
      id,
      type: (x.attr('Type') ?? '').split('/').pop() ?? '',
      target: external ? target : resolvePartPath(part, target),
      external,
    });
  }
  return rels;
}

/** The package's main part (word/document.xml, xl/workbook.xml, ppt/presentation.xml). */
export function mainPart(zip: ZipPackage, budget: XmlBudget, fallback: string): string {
  for (const rel of readRelationships(zip, '', budget).values()) {
    if (rel.type === 'officeDocument' && !rel.external && zip.has(rel.target)) return rel.target;
  }
  if (zip.has(fallback)) return fallback;
  throw new ConversionError('UNPARSABLE_DOCUMENT', `The package has no main document part (${fallback}).`);
}

/** A W3CDTF date as ISO 8601, or the source text when it does not parse. */
function isoDate(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

/**
 * Document properties from docProps/core.xml (Dublin Core): title, author, subject,
 * description, keywords, language, created, modified, lastModifiedBy.
 */
export function readCoreProperties(zip: ZipPackage, budget: XmlBudget): DocumentMetadata {
  const bytes = zip.bytes('docProps/core.xml');
  const metadata: DocumentMetadata = {};
  if (!bytes) return metadata;
  // The root's children by local name (dc:title, cp:keywords, dcterms:created, ...), first wins.
  const fields = new Map<string, string>();
  const x = scanXml(bytes, 'docProps/core.xml');
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN || x.depth !== 2) continue;
    budget.take(1);
    const name = x.name;
    const value = x.elementText().trim();
    if (value && !fields.has(name)) fields.set(name, value);
  }
  const put = (key: string, value: string | undefined): void => {
    if (value !== undefined) metadata[key] = value;
  };
  put('title', fields.get('title'));
  put('author', fields.get('creator'));
  put('subject', fields.get('subject'));
  put('description', fields.get('description'));
  put('keywords', fields.get('keywords'));
  put('language', fields.get('language'));
  put('lastModifiedBy', fields.get('lastModifiedBy'));
  const created = fields.get('created');
  const modified = fields.get('modified');
  put('created', created && isoDate(created));
  put('modified', modified && isoDate(modified));
  return metadata;
}
