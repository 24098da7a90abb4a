import type { Element, Root, RootContent } from 'hast';
import { limits } from '../../limits.ts';
import type { Converter } from '../converter.ts';
import { ConversionError } from '../converter.ts';
import { XmlBudget } from '../package/xml.ts';
import { openZip, type ZipPackage } from '../package/zip.ts';
import { BookState } from './book-state.ts';
import { connectChapters } from './connect-chapters.ts';
import { refuseEncryptedContent } from './encryption.ts';
import { frontMatter } from './front-matter.ts';
import { type ManifestItem, readPackageDocument } from './package-document.ts';
import { parseChapter } from './parse-chapter.ts';
import { walkChapter } from './walk-chapter.ts';

/** Spine media types read as HTML (`text/x-oeb1-document` is EPUB 2's legacy OEB HTML). */
const CONTENT_TYPES = new Set([
  'application/xhtml+xml',
  'text/html',
  'text/x-oeb1-document',
  'application/xml',
  'text/xml',
]);

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
};

/** `data:` URIs of the package's images, each read and encoded once however often it is shown. */
function imageReader(
  zip: ZipPackage,
  byPath: Map<string, ManifestItem>,
  warnings: string[],
): (path: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (path) => {
    if (cache.has(path)) return cache.get(path);
    const declared = byPath.get(path)?.mediaType;
    const mime = declared?.startsWith('image/')
      ? declared
      : IMAGE_TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()];
    let bytes: Uint8Array | undefined;
    try {
      bytes = mime ? zip.bytes(path) : undefined;
    } catch (err) {
      if (!(err instanceof ConversionError) || err.code !== 'UNPARSABLE_DOCUMENT') throw err;
      warnings.push(`${err.message} The image was left out.`);
    }
    if (bytes && bytes.length > limits.embeddedImageBytes) {
      warnings.push(
        `The image ${path} is larger than ${limits.embeddedImageBytes / 1024 / 1024} MiB; it was left out.`,
      );
      bytes = undefined;
    }
    const uri = bytes ? `data:${mime};base64,${Buffer.from(bytes).toString('base64')}` : undefined;
    cache.set(path, uri);
    return uri;
  };
}

/** A chapter's section id, from its file name (`text/ch01.xhtml` → `ch01`). */
function chapterId(path: string): string {
  const file = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
  return file.replace(/[^\w-]+/g, '-') || 'chapter';
}

/**
 * EPUB 2 and 3 → document. The container names the package document (OPF), whose metadata,
 * manifest and spine give the book's properties and reading order. Each spine document goes
 * through the HTML parsing path; the chapters are joined in order, one section each, with
 * images embedded from the package, links between chapters made internal, noted references
 * turned into footnotes, and the table of contents (the navigation document) left out, since
 * the chapters' own headings carry it.
 */
export const convertEpub: Converter = (input) => {
  const zip = openZip(input.bytes);
  const budget = new XmlBudget();
  const pkg = readPackageDocument(zip, budget);
  const warnings: string[] = [];
  for (const path of pkg.missing)
    warnings.push(`The spine item ${path} is missing from the package; it was skipped.`);

  const spine = pkg.spine.filter((item) => {
    if (item.properties.includes('nav')) return false;
    if (CONTENT_TYPES.has(item.mediaType)) return true;
    warnings.push(
      `The spine item ${item.path} (${item.mediaType || 'no media type'}) is not a content document; it was skipped.`,
    );
    return false;
  });
  refuseEncryptedContent(
    zip,
    budget,
    spine.map((item) => item.path),
  );
  if (spine.length === 0 && pkg.spine.length === 0) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The EPUB cannot be read: ${pkg.opfPath} lists no content documents.`,
    );
  }

  const book = new BookState();
  const image = imageReader(zip, pkg.byPath, warnings);
  let elements = 0;
  const sections: RootContent[] = [];
  for (const item of spine) {
    let bytes: Uint8Array;
    try {
      bytes = zip.bytes(item.path)!;
    } catch (err) {
      // A damaged chapter costs that chapter, not the book; limits and DRM still refuse it.
      if (!(err instanceof ConversionError) || err.code !== 'UNPARSABLE_DOCUMENT') throw err;
      warnings.push(`${err.message} The chapter was skipped.`);
      continue;
    }
    const children = parseChapter(bytes, (count) => {
      elements += count;
      if (elements > limits.htmlElements) {
        throw new ConversionError(
          'RESOURCE_LIMIT',
          `The EPUB's chapters have more than ${limits.htmlElements} elements together, which is more than Quire converts.`,
        );
      }
    });
    const id = book.claim(chapterId(item.path));
    book.chapters.set(item.path, id);
    const section: Element = { type: 'element', tagName: 'section', properties: { id }, children };
    walkChapter(section, { chapter: item.path, book, image });
    sections.push(section);
  }
  const footnotes = connectChapters(book);

  const tree: Root = {
    type: 'root',
    children: [...frontMatter(pkg.metadata), ...sections, ...(footnotes ? [footnotes] : [])],
  };
  return {
    kind: 'document',
    tree,
    metadata: pkg.metadata,
    contentType: 'application/epub+zip',
    baseUrl: input.url,
    warnings,
  };
};
