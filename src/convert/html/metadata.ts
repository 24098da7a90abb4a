import type { DocumentMetadata } from '../../document/model.ts';

/** What a page says about itself, gathered while its tree is walked (see `prepare.ts`). */
export interface PageHead {
  /** Text of the first HTML `<title>`. */
  title: string | undefined;
  /** `lang` of the `<html>` element. */
  lang: string | undefined;
  /** `href` of the first `<base href>`. */
  baseHref: string | undefined;
  /** Attributes of every `<meta>` element, in document order. */
  metas: Array<Record<string, string>>;
  /** Attributes of every `<link>` element, in document order. */
  links: Array<Record<string, string>>;
}

export function emptyHead(): PageHead {
  return { title: undefined, lang: undefined, baseHref: undefined, metas: [], links: [] };
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

function resolveUrl(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

function isHttpUrl(url: string | undefined): url is string {
  return url !== undefined && /^https?:\/\//i.test(url);
}

/**
 * The URL relative references resolve against: `<base href>`, else the canonical link,
 * else `og:url`, else the upload's own address. A fetched page's address is real, so there
 * only `<base href>` overrides it, as in a browser.
 */
export function pageBaseUrl(head: PageHead, documentUrl: string, fetched = false): string {
  if (head.baseHref !== undefined) {
    const base = resolveUrl(head.baseHref, documentUrl);
    if (isHttpUrl(base)) return base;
  }
  if (fetched) return documentUrl;
  const canonical = head.links.find((l) => relTokens(l).includes('canonical') && l.href);
  if (canonical?.href) {
    const url = resolveUrl(canonical.href, documentUrl);
    if (isHttpUrl(url)) return url;
  }
  const ogUrl = head.metas.find((m) => m.property?.toLowerCase() === 'og:url' && m.content)?.content;
  if (ogUrl) {
    const url = resolveUrl(ogUrl, documentUrl);
    if (isHttpUrl(url)) return url;
  }
  return documentUrl;
}

function relTokens(link: Record<string, string>): string[] {
  return (link.rel ?? '').toLowerCase().split(/\s+/);
}

const camelTail = (s: string) =>
  s
    .split(/[:._-]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/**
 * The metadata key of a `meta` name, in upstream's style: `og:locale:alternate` →
 * `ogLocaleAlternate`, `dc.date.created` → `dcDateCreated`, `dcterms.subject` →
 * `dcTermsSubject`, `article:published_time` → `publishedTime`; other names (`description`,
 * `twitter:card`, `viewport`, itemprops) are kept as they are.
 */
function metadataKey(name: string): string {
  const lower = name.toLowerCase();
  if (lower.startsWith('og:')) return `og${camelTail(lower.slice(3))}`;
  if (lower.startsWith('dcterms.')) return `dcTerms${camelTail(lower.slice(8))}`;
  if (lower.startsWith('dc.')) return `dc${camelTail(lower.slice(3))}`;
  if (lower === 'article:published_time') return 'publishedTime';
  if (lower === 'article:modified_time') return 'modifiedTime';
  if (lower.startsWith('article:')) return `article${camelTail(lower.slice(8))}`;
  if (lower === 'description' || lower === 'keywords' || lower === 'title') return lower;
  return name;
}

/** Keys whose value is always a list, even with one entry. */
const ARRAY_KEYS = new Set(['ogLocaleAlternate']);

/**
 * Page metadata from the head: title (falling back to og:title / twitter:title), description,
 * language, keywords, favicon (absolute), and every other `meta` name/property/itemprop.
 * A key given more than once becomes a list of its distinct values.
 */
export function extractMetadata(head: PageHead, baseUrl: string): DocumentMetadata {
  const collected = new Map<string, string[]>();
  for (const meta of head.metas) {
    const name = meta.name || meta.property || meta.itemprop;
    const content = meta.content;
    if (!name || content === undefined) continue;
    const key = metadataKey(name.trim());
    if (!key) continue;
    const values = collected.get(key);
    if (!values) collected.set(key, [content]);
    else if (!values.includes(content)) values.push(content);
  }

  const metadata: DocumentMetadata = {};
  for (const [key, values] of collected) {
    metadata[key] = values.length === 1 && !ARRAY_KEYS.has(key) ? values[0]! : values;
  }

  const first = (key: string) => {
    const values = collected.get(key);
    return values?.find((v) => v.trim() !== '');
  };
  const title = head.title !== undefined ? collapse(head.title) : '';
  const fallbackTitle = first('ogTitle') ?? first('twitter:title') ?? first('title');
  if (title) metadata.title = title;
  else if (fallbackTitle) metadata.title = collapse(fallbackTitle);

  if (head.lang?.trim()) metadata.language = head.lang.trim();

  const icon =
    head.links.find((l) => relTokens(l).includes('icon') && l.href) ??
    head.links.find((l) => (l.rel ?? '').toLowerCase().includes('icon') && l.href);
  if (icon?.href) {
    const favicon = resolveUrl(icon.href, baseUrl);
    if (favicon) metadata.favicon = favicon;
  }
  return metadata;
}
