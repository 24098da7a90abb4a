import type { FetchedPage } from '../fetch-url.ts';

/** Visible text under which a page with scripts is taken for an app shell (a title and a "Loading…" fit well under it). */
const SHELL_TEXT_CHARS = 200;

export const HTML_TYPE = /^\s*(?:text\/html|application\/xhtml\+xml)\s*(?:;|$)/i;

/** What a `<noscript>` says when the page shows nothing without JavaScript. */
const NEEDS_JS =
  /\b(?:enable|turn on|activate|allow)\s+javascript|javascript\s+(?:is\s+)?(?:required|disabled|needed|must be enabled)|(?:requires|needs)\s+javascript|without\s+javascript/i;

/** Elements whose content is not shown as text. */
const HIDDEN = /<(script|style|template|noscript|svg|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;

/**
 * Whether a fetched page is an app shell that only a browser fills: an HTML page with scripts
 * whose visible text is next to nothing (`<div id="root"></div>` and a bundle), or whose
 * `<noscript>` says JavaScript is required. Pages that carry their text (server-rendered,
 * static, or saved with `noscript` content, read as such by the HTML path) are converted as
 * fetched: rendering them would cost a browser and give the same text. Documents never render.
 */
export function isAppShell(page: FetchedPage): boolean {
  if (page.contentType !== undefined && !HTML_TYPE.test(page.contentType)) return false;
  // Tags and the words looked for are ASCII, so the page's charset does not matter here.
  const html = page.bytes.toString('latin1');
  if (page.contentType === undefined && !/^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype html|html)\b/i.test(html))
    return false;
  if (!/<script\b/i.test(html)) return false;
  for (const match of html.matchAll(/<noscript\b[^>]*>([\s\S]*?)<\/noscript\s*>/gi)) {
    if (NEEDS_JS.test(match[1]!.replace(/<[^>]*>/g, ' '))) return true;
  }
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(HIDDEN, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#a-z0-9]+;/gi, 'x')
    .replace(/\s+/g, '');
  return text.length < SHELL_TEXT_CHARS;
}
