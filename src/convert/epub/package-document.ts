import type { DocumentMetadata } from '../../document/model.ts';
import { ConversionError } from '../converter.ts';
import { resolvePartPath } from '../package/ooxml.ts';
import {
  child,
  childrenNamed,
  isElement,
  parseXml,
  textOf,
  type XmlBudget,
  type XmlElement,
} from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';

/** One `opf:item` of the manifest, its href resolved to a package path. */
export interface ManifestItem {
  id: string;
  path: string;
  mediaType: string;
  properties: string[];
}

/** The parts of the package document (OPF) the converter reads. */
export interface PackageDocument {
  opfPath: string;
  metadata: DocumentMetadata;
  /** Manifest items by package path. */
  byPath: Map<string, ManifestItem>;
  /**
   * Spine items in reading order. Items marked `linear="no"` (notes, answer keys) follow the
   * main flow, except those before its start (a cover), which stay in front.
   */
  spine: ManifestItem[];
  /** Spine references that name no manifest item or no file in the package. */
  missing: string[];
}

function unparsable(why: string): ConversionError {
  return new ConversionError('UNPARSABLE_DOCUMENT', `The EPUB cannot be read: ${why}.`);
}

/** The package document's path, from META-INF/container.xml (its first OPF rootfile). */
function rootfilePath(zip: ZipPackage, budget: XmlBudget): string {
  const bytes = zip.bytes('META-INF/container.xml');
  if (!bytes) {
    // Some packagers omit the container; a single OPF at a known place still identifies the book.
    const opfs = zip.names.filter((n) => n.toLowerCase().endsWith('.opf'));
    if (opfs.length === 1) return opfs[0]!;
    throw unparsable('META-INF/container.xml is missing');
  }
  const { root } = parseXml(bytes, budget, { part: 'META-INF/container.xml', lenient: true });
  const rootfiles = child(root, 'container:rootfiles');
  const candidates = rootfiles ? childrenNamed(rootfiles, 'container:rootfile') : [];
  const chosen =
    candidates.find((r) => (r.attrs['media-type'] ?? '') === 'application/oebps-package+xml') ??
    candidates[0];
  const path = chosen?.attrs['full-path'];
  if (!path) throw unparsable('META-INF/container.xml names no package document');
  const resolved = resolvePartPath('', path);
  if (!zip.has(resolved)) throw unparsable(`the package document ${resolved} is missing`);
  return resolved;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * A date with a time as ISO 8601 (UTC); a date without one (`2001-02-03`, a bare year `1851`)
 * is already ISO 8601 and stays as written rather than gaining an invented midnight.
 */
function isoDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value)) return value;
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

/**
 * Dublin Core metadata of the OPF: title (the `main` title when titles are typed), authors
 * (creators whose role is `aut` or unstated), description, subjects as keywords, language,
 * publisher, and the publication (created) and modification dates of EPUB 2 and 3.
 */
function readMetadata(outer: XmlElement | undefined): DocumentMetadata {
  const metadata: DocumentMetadata = {};
  if (!outer) return metadata;
  // OEB 1 packages (still found in old EPUB 2 files) nest Dublin Core in dc-metadata.
  const legacy = child(outer, 'opf:dc-metadata');
  const metadataEl = legacy ? { ...outer, children: [...outer.children, ...legacy.children] } : outer;
  const refinements = new Map<string, Map<string, string>>();
  for (const meta of childrenNamed(metadataEl, 'opf:meta')) {
    const refines = meta.attrs.refines?.replace(/^#/, '');
    const property = meta.attrs.property;
    if (!refines || !property) continue;
    let props = refinements.get(refines);
    if (!props) {
      props = new Map();
      refinements.set(refines, props);
    }
    props.set(property, collapse(textOf(meta)));
  }
  const refined = (el: XmlElement, property: string) => {
    const id = el.attrs.id;
    return id ? refinements.get(id)?.get(property) : undefined;
  };
  const values = (name: string, keep: (el: XmlElement) => boolean = () => true): string[] => {
    const out: string[] = [];
    for (const el of childrenNamed(metadataEl, name)) {
      const value = collapse(textOf(el));
      if (value && keep(el) && !out.includes(value)) out.push(value);
    }
    return out;
  };
  const put = (key: string, list: string[], join?: string): void => {
    if (list.length === 0) return;
    metadata[key] = list.length === 1 ? list[0]! : join === undefined ? list : list.join(join);
  };

  const titles = childrenNamed(metadataEl, 'dc:title');
  const main = titles.find((t) => refined(t, 'title-type') === 'main') ?? titles[0];
  if (main && collapse(textOf(main))) metadata.title = collapse(textOf(main));
  const role = (el: XmlElement) => refined(el, 'role') ?? el.attrs['opf:role'];
  const creators = values('dc:creator', (el) => {
    const r = role(el);
    return r === undefined || r === 'aut';
  });
  put('author', creators.length > 0 ? creators : values('dc:creator'));
  put('description', values('dc:description').slice(0, 1));
  put('keywords', values('dc:subject'), ', ');
  put('language', values('dc:language').slice(0, 1));
  put('publisher', values('dc:publisher'), ', ');

  // EPUB 2 marks its dates with opf:event; EPUB 3 has one dc:date (publication) and a
  // dcterms:modified meta.
  for (const date of childrenNamed(metadataEl, 'dc:date')) {
    const value = collapse(textOf(date));
    if (!value) continue;
    const event = date.attrs['opf:event'];
    if (event === 'modification') metadata.modified ??= isoDate(value);
    else if (
      event === undefined ||
      event === 'publication' ||
      event === 'creation' ||
      event === 'original-publication'
    )
      metadata.created ??= isoDate(value);
  }
  const modified = childrenNamed(metadataEl, 'opf:meta').find((m) => m.attrs.property === 'dcterms:modified');
  if (modified && collapse(textOf(modified))) metadata.modified = isoDate(collapse(textOf(modified)));
  return metadata;
}

function readManifest(manifestEl: XmlElement | undefined, opfPath: string): Map<string, ManifestItem> {
  const byId = new Map<string, ManifestItem>();
  if (!manifestEl) return byId;
  for (const item of manifestEl.children) {
    if (!isElement(item) || item.name !== 'opf:item') continue;
    const id = item.attrs.id;
    const href = item.attrs.href;
    if (!id || !href || byId.has(id)) continue;
    byId.set(id, {
      id,
      path: resolvePartPath(opfPath, href.replace(/#.*$/, '')),
      mediaType: (item.attrs['media-type'] ?? '').trim().toLowerCase(),
      properties: (item.attrs.properties ?? '').split(/\s+/).filter(Boolean),
    });
  }
  return byId;
}

/** Opens the package document: container → OPF → metadata, manifest and spine. */
export function readPackageDocument(zip: ZipPackage, budget: XmlBudget): PackageDocument {
  const opfPath = rootfilePath(zip, budget);
  const { root } = parseXml(zip.bytes(opfPath)!, budget, { part: opfPath, lenient: true });
  if (root.name !== 'opf:package') throw unparsable(`${opfPath} is not an OPF package document`);
  const byId = readManifest(child(root, 'opf:manifest'), opfPath);
  const byPath = new Map<string, ManifestItem>();
  for (const item of byId.values()) if (!byPath.has(item.path)) byPath.set(item.path, item);

  const linear: ManifestItem[] = [];
  const auxiliary: ManifestItem[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const spineEl = child(root, 'opf:spine');
  for (const ref of spineEl ? childrenNamed(spineEl, 'opf:itemref') : []) {
    const idref = ref.attrs.idref ?? '';
    const item = byId.get(idref);
    if (!item || !zip.has(item.path)) {
      missing.push(item?.path ?? idref);
      continue;
    }
    // A document listed twice is read once: a second copy is a packaging slip (or a bomb).
    if (seen.has(item.path)) continue;
    seen.add(item.path);
    if (ref.attrs.linear === 'no' && linear.length > 0) auxiliary.push(item);
    else linear.push(item);
  }
  return {
    opfPath,
    metadata: readMetadata(child(root, 'opf:metadata')),
    byPath,
    spine: [...linear, ...auxiliary],
    missing,
  };
}
