import type { DocumentMetadata } from '../../document/model.ts';
import { child, childrenNamed, textOf, type XmlElement } from '../package/xml.ts';

/**
 * ODF dates are ISO 8601, often without a zone and with nanoseconds
 * (`2023-06-23T10:44:12.123456789`): read as UTC, kept as written when they do not parse.
 */
function isoDate(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2})?)(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(value);
  if (!m) return value;
  const fraction = m[3] ? m[3].slice(0, 4) : '';
  const t = Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}${fraction}${m[4] ?? 'Z'}`);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

/**
 * Document properties from meta.xml (`office:document-meta`), or from a flat document's
 * root: title, author, subject, description, keywords, language, created, modified.
 */
export function readOdfMeta(root: XmlElement | undefined): DocumentMetadata {
  const metadata: DocumentMetadata = {};
  const meta = root && (root.name === 'office:meta' ? root : child(root, 'office:meta'));
  if (!meta) return metadata;
  const field = (name: string): string | undefined => {
    const el = child(meta, name);
    const value = el ? textOf(el).trim() : '';
    return value || undefined;
  };
  const put = (key: string, value: string | undefined): void => {
    if (value !== undefined) metadata[key] = value;
  };
  put('title', field('dc:title'));
  put('author', field('dc:creator') ?? field('meta:initial-creator'));
  put('subject', field('dc:subject'));
  put('description', field('dc:description'));
  const keywords = childrenNamed(meta, 'meta:keyword')
    .flatMap((k) => textOf(k).split(/[,;]/))
    .map((k) => k.trim())
    .filter(Boolean);
  if (keywords.length > 0) metadata.keywords = keywords.join(', ');
  put('language', field('dc:language'));
  const created = field('meta:creation-date');
  const modified = field('dc:date');
  put('created', created && isoDate(created));
  put('modified', modified && isoDate(modified));
  return metadata;
}
