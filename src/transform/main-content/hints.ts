import type { Element } from 'hast';

export function classList(el: Element): string[] {
  const value = el.properties.className;
  return Array.isArray(value) ? value.filter((c): c is string => typeof c === 'string') : [];
}

// Class and id words that authors use for the article body, and for the furniture around it.
// A match is a weight, not a verdict: "entry-meta" or "textwidget" match both lists and cancel.
const POSITIVE = /article|body|content|entry|main|post|story|text|blog|hentry|page|prose/i;
const NEGATIVE =
  /comment|footer|related|share|sidebar|sponsor|nav|menu|promo|social|breadcrumb|cookie|newsletter|subscribe|combx|outbrain|taboola|shoutbox|skyscraper|popup|modal|recommend|author-?(?:bio|box)|about-author|advert|follow|paywall|rating|donat|upsell|cross-?sell|flyout|disclosure|consent|gdpr/i;
// Words that name furniture often but content too: page builders wrap every block of an
// article in a "widget", "meta" or "tags" can sit on the byline, and a bare "ad" is also a
// suffix in other languages ("cuerpo-ad"). They only lean.
const WEAK_NEGATIVE =
  /widget|meta|tags|topics|banner|footnote|masthead|login|signup|(?:^|[\s_-])ads?(?:[\s_-]|$)/i;

/**
 * The weight of a class list or an id, word by word: a word that names furniture outright
 * ("related-posts", "comment-content", "share-post") counts as furniture only, whatever
 * content word it also holds; weak furniture words and content words cancel ("entry-meta").
 */
function weighOne(value: string): number {
  let negative = false;
  let weak = false;
  let positive = false;
  for (const word of value.split(/\s+/)) {
    if (word === '') continue;
    if (NEGATIVE.test(word)) {
      negative = true;
      continue;
    }
    if (WEAK_NEGATIVE.test(word)) weak = true;
    if (POSITIVE.test(word)) positive = true;
  }
  return (negative ? -25 : weak ? -10 : 0) + (positive ? 25 : 0);
}

/** At or below this weight, class/id words alone mark an element as furniture. */
export const FURNITURE_WEIGHT = -25;

/** The class/id weight of an element: ±25 for its class words, ±25 for its id. */
export function hintWeight(el: Element): number {
  let weight = weighOne(classList(el).join(' '));
  const id = el.properties.id;
  if (typeof id === 'string') weight += weighOne(id);
  return weight;
}

/** Landmarks that declare the main content outright (schema.org and ARIA included). */
export function isLandmark(el: Element): boolean {
  if (el.tagName === 'main' || el.tagName === 'article') return true;
  const p = el.properties;
  if (p.role === 'main') return true;
  const itemprop = p.itemProp;
  const props = Array.isArray(itemprop) ? itemprop : typeof itemprop === 'string' ? [itemprop] : [];
  return props.some((v) => v === 'articleBody' || v === 'mainContentOfPage');
}
