import type { DocumentMetadata } from '../../document/model.ts';
import type { Piece } from './replace.ts';

/**
 * Metadata that is text someone wrote (and may name people, places, addresses): the title,
 * description, author and the like. Technical values (content type, language, dates, URLs)
 * are left as they are.
 */
const DESCRIPTIVE =
  /^(?:title|description|author|authors|creator|subject|keywords|lastModifiedBy|company|manager|category|comments?|og:?title|og:?description|twitter:?title|twitter:?description|dc\.(?:title|creator|description|subject))$/i;

export function metadataPieces(metadata: DocumentMetadata): Piece[] {
  const pieces: Piece[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (!DESCRIPTIVE.test(key)) continue;
    if (typeof value === 'string') pieces.push({ text: value, set: (v) => (metadata[key] = v) });
    else if (Array.isArray(value))
      value.forEach((item, i) => {
        pieces.push({ text: '\n\n' }, { text: item, set: (v) => (value[i] = v) });
      });
  }
  return pieces;
}
