import { Parser } from 'htmlparser2';
import { fetchableUrl } from './url-key.ts';

export interface PageLinks {
  /** The page's `<a href>` and `<area href>` targets, fetchable, each once, in document order. */
  links: string[];
  /** The `<link rel="canonical">` target, resolved. */
  canonical: string | undefined;
  /** `<meta name="robots">` (or Quire's or Firecrawl's token) says nofollow or none: follow no links. */
  robotsNoFollow: boolean;
}

/** Meta names whose content binds Quire: every robot's, Quire's own and upstream's. */
const ROBOTS_META = new Set(['robots', 'quire', 'firecrawlagent']);

function hasToken(list: string | undefined, token: string): boolean {
  return (
    list
      ?.toLowerCase()
      .split(/[\s,]+/)
      .includes(token) === true
  );
}

/**
 * The links a crawl follows from one HTML page, read with htmlparser2's streaming tokenizer (no
 * tree: this runs on every crawled page in the API process). Resolved against the page's first
 * `<base href>` when it has one (wherever it stands, as browsers do), else `pageUrl`. Links with
 * rel="nofollow" are kept, as upstream follows them; script and style contents are not markup.
 */
export function pageLinks(html: string, pageUrl: string): PageLinks {
  const hrefs: string[] = [];
  let base: string | undefined;
  let canonical: string | undefined;
  let robotsNoFollow = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        switch (name) {
          case 'a':
          case 'area':
            if (attribs.href !== undefined) hrefs.push(attribs.href);
            break;
          case 'base':
            if (base === undefined && attribs.href !== undefined) base = attribs.href;
            break;
          case 'link':
            if (canonical === undefined && attribs.href !== undefined && hasToken(attribs.rel, 'canonical')) {
              canonical = attribs.href;
            }
            break;
          case 'meta':
            if (
              ROBOTS_META.has(attribs.name?.toLowerCase() ?? '') &&
              (hasToken(attribs.content, 'nofollow') || hasToken(attribs.content, 'none'))
            ) {
              robotsNoFollow = true;
            }
            break;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  const baseUrl = (base !== undefined ? fetchableUrl(base, pageUrl) : undefined) ?? pageUrl;
  const links = new Set<string>();
  for (const href of hrefs) {
    const url = fetchableUrl(href, baseUrl);
    if (url) links.add(url);
  }
  return {
    links: [...links],
    canonical: canonical === undefined ? undefined : fetchableUrl(canonical, baseUrl),
    robotsNoFollow,
  };
}
