import type { Element, Root, RootContent } from 'hast';

/** References left as they are: in-page fragments and schemes that are not locations. */
const KEEP_AS_IS = /^\s*(?:#|mailto:|tel:|sms:|data:)/i;
const SCRIPT_URL = /^\s*(?:javascript|vbscript):/i;

/** Resolves `href` against `base`; an unparsable reference is returned unchanged. */
function absoluteUrl(href: string, base: string): string {
  if (KEEP_AS_IS.test(href)) return href.trim();
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return href;
  }
}

function decodeBase64Url(value: string): string | undefined {
  try {
    const text = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    return text;
  } catch {
    return undefined;
  }
}

/**
 * The destination of a search engine's click-tracking link (Bing `/ck/a?u=a1<base64url>`,
 * Google `/url?q=`, DuckDuckGo `/l/?uddg=`), or the link itself. A result page's links then
 * name the pages they lead to instead of the tracker.
 */
function unwrapRedirect(url: string): string {
  if (!/^https?:\/\/(?:[a-z0-9-]+\.)*(?:bing\.com|google\.[a-z.]+|duckduckgo\.com)\//i.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const host = parsed.hostname;
  let target: string | undefined | null;
  if (host.endsWith('bing.com') && parsed.pathname === '/ck/a') {
    const u = parsed.searchParams.get('u');
    if (u?.startsWith('a1')) target = decodeBase64Url(u.slice(2));
  } else if (/(^|\.)google\.[a-z.]+$/.test(host) && parsed.pathname === '/url') {
    target = parsed.searchParams.get('q') ?? parsed.searchParams.get('url');
  } else if (host.endsWith('duckduckgo.com') && parsed.pathname === '/l/') {
    target = parsed.searchParams.get('uddg');
  }
  if (!target) return url;
  if (target.startsWith('/')) return absoluteUrl(target, `${parsed.protocol}//${parsed.host}/`);
  return /^(?:https?:\/\/|mailto:)/i.test(target) || SCRIPT_URL.test(target) ? target : url;
}

interface Candidate {
  url: string;
  /** Width in pixels (`w`) or density (`x`); a bare URL counts as `1x`. */
  size: number;
  density: boolean;
}

/** Parses a `srcset` (URL, then optional descriptor, comma separated). */
function parseSrcset(srcset: string): Candidate[] {
  const out: Candidate[] = [];
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && (srcset[i] === ',' || /\s/.test(srcset[i]!))) i++;
    if (i >= n) break;
    let j = i;
    while (j < n && !/\s/.test(srcset[j]!)) j++;
    let url = srcset.slice(i, j);
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      let k = j;
      let parens = 0;
      while (k < n && (parens > 0 || srcset[k] !== ',')) {
        if (srcset[k] === '(') parens++;
        else if (srcset[k] === ')') parens = Math.max(0, parens - 1);
        k++;
      }
      descriptor = srcset.slice(j, k).trim();
      j = k;
    }
    i = j;
    if (!url) continue;
    const m = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor.split(/\s+/)[0] ?? '');
    if (descriptor && !m) continue;
    out.push({ url, size: m ? Number(m[1]) : 1, density: !m || m[2]!.toLowerCase() === 'x' });
  }
  return out;
}

function largest(candidates: Candidate[], src: string | undefined): string | undefined {
  const all = [...candidates];
  if (src && all.every((c) => c.density)) all.push({ url: src, size: 1, density: true });
  let best: Candidate | undefined;
  for (const c of all) if (!best || c.size > best.size) best = c;
  return best?.url;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The image an `img` shows once loaded: lazy-loading attributes first, then the largest `srcset`. */
function imageSource(el: Element): string | undefined {
  const p = el.properties;
  const lazySet = str(p.dataSrcset) ?? str(p.dataLazySrcset);
  if (lazySet) {
    const best = largest(parseSrcset(lazySet), undefined);
    if (best) return best;
  }
  const lazy = str(p.dataSrc) ?? str(p.dataLazySrc) ?? str(p.dataOriginal);
  if (lazy) return lazy;
  const srcset = str(p.srcSet);
  if (srcset) {
    const best = largest(parseSrcset(srcset), str(p.src));
    if (best) return best;
  }
  return str(p.src);
}

/**
 * Makes `a[href]` and `img[src]` absolute against `base` (fragments, mailto:, tel: and data:
 * stay as they are), resolves each image to its largest or lazy-loaded source, drops
 * script URLs (the link becomes plain text) and unwraps search-engine click trackers.
 */
export function normalizeUrls(root: Root, base: string): void {
  const stack: Array<Root | Element> = [root];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    const children: RootContent[] = parent.children;
    for (const child of children) {
      if (child.type !== 'element') continue;
      const p = child.properties;
      switch (child.tagName) {
        case 'a':
        case 'area': {
          const href = str(p.href);
          if (href === undefined) break;
          const url = SCRIPT_URL.test(href) ? href : unwrapRedirect(absoluteUrl(href, base));
          if (SCRIPT_URL.test(url)) delete p.href;
          else p.href = url;
          break;
        }
        case 'img': {
          const src = imageSource(child);
          if (src !== undefined) p.src = absoluteUrl(src, base);
          break;
        }
        case 'video':
        case 'audio':
        case 'source':
        case 'iframe':
        case 'embed': {
          const src = str(p.src);
          if (src !== undefined) p.src = SCRIPT_URL.test(src) ? '' : absoluteUrl(src, base);
          break;
        }
      }
      if (child.children.length > 0) stack.push(child);
    }
  }
}
