import type { Root, RootContent } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { limits } from '../../limits.ts';
import { decodeText, isKnownEncoding } from '../../text/decode.ts';
import type { Converter } from '../converter.ts';
import { ConversionError } from '../converter.ts';
import { emptyHead, extractMetadata, type PageHead, pageBaseUrl } from './metadata.ts';
import { countStartTags, parsePage } from './prepare.ts';
import { normalizeUrls } from './urls.ts';

/** The `charset` parameter of a Content-Type value. */
function charsetParam(contentType: string | undefined): string | undefined {
  const m = contentType && /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType);
  return m ? m[1] : undefined;
}

/**
 * The charset a page declares in its first 1024 bytes (`<meta charset>` or
 * `<meta http-equiv="content-type" content="...; charset=...">`), as the HTML standard's
 * prescan does. A UTF-16 declaration in ASCII-compatible bytes means UTF-8.
 */
function prescanCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  const withoutComments = head.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const tag of withoutComments.matchAll(/<meta[\s/][^>]*>?/gi)) {
    const m = /charset\s*=\s*["']?\s*([^\s"'/;>]+)/i.exec(tag[0]);
    if (!m) continue;
    const label = m[1]!.toLowerCase();
    if (!isKnownEncoding(label)) continue;
    const encoding = new TextDecoder(label).encoding;
    return encoding.startsWith('utf-16') ? 'utf-8' : encoding;
  }
  return undefined;
}

function isHtmlContentType(contentType: string | undefined): contentType is string {
  return !!contentType && /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

/**
 * HTML text → the document tree: parsed as a browser would (parse5), what is never content
 * dropped, links and images made absolute against the page's base URL (its own `<base>`,
 * canonical link or `og:url`, else `url`). Also the path of Markdown, whose inline HTML
 * must be read the same way.
 */
export function htmlToTree(
  text: string,
  url: string,
  fetched = false,
): { tree: Root; head: PageHead; baseUrl: string } {
  if (countStartTags(text) > limits.htmlElements) {
    throw new ConversionError(
      'RESOURCE_LIMIT',
      `The HTML document has more than ${limits.htmlElements} elements, which is more than Quire converts.`,
    );
  }
  const head = emptyHead();
  const body = parsePage(text, head);
  let children: RootContent[] = [];
  if (body) {
    const hast = fromParse5(body);
    if (hast.type === 'element') children = hast.children;
  }
  const tree: Root = { type: 'root', children };
  const baseUrl = pageBaseUrl(head, url, fetched);
  normalizeUrls(tree, baseUrl);
  return { tree, head, baseUrl };
}

/**
 * HTML upload → document. Decodes with the declared or detected charset, parses as a browser
 * would (parse5), drops what is never content (head, scripts, styles, comments, ...), keeps the
 * page's metadata, and makes links and images absolute against the page's base URL.
 */
export const convertHtml: Converter = (input) => {
  const declaredByUpload = charsetParam(input.contentType);
  const declared =
    declaredByUpload && isKnownEncoding(declaredByUpload) ? declaredByUpload : prescanCharset(input.bytes);
  const { text, encoding } = decodeText(input.bytes, declared);

  const { tree, head, baseUrl } = htmlToTree(text, input.url, input.fetched);
  return {
    kind: 'web',
    tree,
    metadata: extractMetadata(head, baseUrl),
    contentType: isHtmlContentType(input.contentType)
      ? input.contentType.trim()
      : `text/html; charset=${encoding}`,
    rawHtml: text,
    baseUrl,
    warnings: [],
  };
};
