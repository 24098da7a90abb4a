import { ApiError } from '../errors.ts';
import {
  type FormatId,
  type FormatInfo,
  formatByExtension,
  formatByMimeType,
  formatInfo,
  formats,
} from './formats.ts';
import { sniff } from './sniff.ts';

export interface UploadDescription {
  filename: string;
  contentType: string | undefined;
  bytes: Uint8Array;
  /** Fetched from a URL (scrape) rather than uploaded: the messages speak of a page served as a type. */
  fetched?: boolean;
}

/** How the format was decided, for logs and for the caller's `warning` when labels lied. */
export interface Detection {
  format: FormatId;
  /** Set when the bytes overruled the extension or content type. */
  relabelled?: { claimed: FormatId };
}

/** Extension first, then the part's Content-Type, as upstream does (behaviour doc §1). */
function claimedFormat(filename: string, contentType: string | undefined): FormatInfo | undefined {
  return formatByExtension(filename) ?? formatByMimeType(contentType);
}

function unsupported(reason: string, implemented: ReadonlySet<FormatId>): ApiError {
  const extensions = formats.filter((f) => implemented.has(f.id)).flatMap((f) => f.extensions);
  return new ApiError(
    400,
    'UNSUPPORTED_FILE_TYPE',
    `${reason} Supported file types: ${extensions.join(', ')}.`,
  );
}

/**
 * Decide what an upload really is (behaviour doc, decision 3): the name and Content-Type
 * give a claim, the bytes confirm or overrule it, and bytes that match no supported format
 * are refused with UNSUPPORTED_FILE_TYPE. `implemented` is the set this build converts.
 */
export function detectFormat(upload: UploadDescription, implemented: ReadonlySet<FormatId>): Detection {
  const claimed = claimedFormat(upload.filename, upload.contentType);
  const [noun, labelled, root] = upload.fetched
    ? ['page', 'served as', 'body']
    : ['upload', 'named as', 'options'];
  const sniffed = sniff(upload.bytes);
  const decide = (format: FormatId): Detection => {
    if (!implemented.has(format)) {
      const info = formatInfo(format);
      throw unsupported(
        info.container === 'image'
          ? `The ${noun} is a ${info.label}, and images are read only when ${root}.parsers lists "image" (the default does).`
          : `Converting ${info.label} files is not available in this Quire build.`,
        implemented,
      );
    }
    return claimed && claimed.id !== format ? { format, relabelled: { claimed: claimed.id } } : { format };
  };

  switch (sniffed.kind) {
    case 'format': {
      // Family members that share a container (docx/docm, xlsx/xlsm) keep the claimed name.
      const sameFamily =
        claimed &&
        claimed.container === formatInfo(sniffed.format).container &&
        isSibling(claimed.id, sniffed.format);
      return decide(sameFamily ? claimed.id : sniffed.format);
    }
    case 'container':
      // A named OLE format (DOC, XLS, PPT) goes to its converter, whose container reader
      // refuses an encrypted package as this would; the whole-file scan below is for the rest.
      if (sniffed.container === 'ole' && claimed?.container === 'ole') return decide(claimed.id);
      if (sniffed.container === 'ole' && holdsEncryptedPackage(upload.bytes)) {
        throw new ApiError(
          400,
          'ENCRYPTED_DOCUMENT',
          'The document is password-protected (an encrypted Office package); remove the password and upload it again.',
        );
      }
      if (claimed?.container === sniffed.container) return decide(claimed.id);
      throw unsupported(
        `The ${noun} is a ${sniffed.container === 'zip' ? 'ZIP archive' : 'OLE compound file'} that is none of the supported formats.`,
        implemented,
      );
    case 'text': {
      // Clients send text/plain for any text, so only a name, or a more telling type, is a claim.
      const named =
        claimed?.container === 'text' && (claimed.id !== 'txt' || formatByExtension(upload.filename));
      if (named) {
        // A .csv that is really an HTML page is parsed as HTML; never the other way round.
        return decide(claimed.id === 'csv' && sniffed.looks === 'html' ? 'html' : claimed.id);
      }
      if (sniffed.looks === 'html') return decide('html');
      if (claimed && claimed.container !== 'text')
        throw unsupported(
          `The ${noun} is ${labelled} ${claimed.label} but its bytes are plain text.`,
          implemented,
        );
      return decide(sniffed.looks);
    }
    case 'binary':
      throw unsupported(
        claimed
          ? `The ${noun} is ${labelled} ${claimed.label} but its bytes are not a ${claimed.label} file.`
          : `The ${upload.fetched ? 'page' : `upload "${upload.filename}"`} is not a supported file type.`,
        implemented,
      );
  }
}

const families: readonly (readonly FormatId[])[] = [
  ['docx', 'docm'],
  ['xlsx', 'xlsm'],
  ['pptx', 'pptm'],
];
function isSibling(a: FormatId, b: FormatId): boolean {
  return a === b || families.some((f) => f.includes(a) && f.includes(b));
}

/** `EncryptedPackage` as a UTF-16LE directory-entry name: how Office stores a password-protected DOCX, XLSX or PPTX. */
const ENCRYPTED_PACKAGE = new Uint8Array([...'EncryptedPackage'].flatMap((ch) => [ch.charCodeAt(0), 0]));

function holdsEncryptedPackage(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(ENCRYPTED_PACKAGE) !== -1;
}
