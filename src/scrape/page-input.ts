import { formatByMimeType } from '../detect/formats.ts';
import type { ConversionInput } from '../pipeline/convert-to-answer.ts';
import { decoded, type FetchedPage } from './fetch-url.ts';

/** Types servers send for any download: they say nothing about the bytes. */
const GENERIC_TYPE =
  /^\s*(?:application\/(?:octet-stream|x-download|force-download|download|binary)|binary\/octet-stream)\s*(?:;|$)/i;

/** The last segment of the URL's path, decoded: what a download would be saved as. */
function lastSegment(url: URL): string {
  return decoded(url.pathname.slice(url.pathname.lastIndexOf('/') + 1));
}

/**
 * A fetched page as the conversion's input, with the name and type detection reads. Detection
 * goes by extension first, then type, then bytes; for a page, a telling Content-Type comes first
 * (the server says what it sent: `/notes.md` served as text/html is a page), so the name keeps
 * its extension only when the type is generic or text/plain, which servers send for any text.
 */
export function pageInput(requested: string, page: FetchedPage): ConversionInput {
  const contentType = page.contentType && !GENERIC_TYPE.test(page.contentType) ? page.contentType : undefined;
  const segment = lastSegment(new URL(page.url));
  const byType = formatByMimeType(contentType);
  const filename = byType && byType.id !== 'txt' ? segment.replace(/\.[^.]*$/, '') : segment;
  return {
    file: { bytes: page.bytes, filename, contentType },
    origin: { sourceURL: requested, url: page.url, statusCode: page.status, contentType: page.contentType },
  };
}
