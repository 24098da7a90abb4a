import { ConversionError } from '../converter.ts';
import { childrenNamed, parseXml, type XmlBudget, type XmlElement } from '../package/xml.ts';
import { openZip, type ZipPackage } from '../package/zip.ts';

/** The parts of an OpenDocument file: a ZIP package, or a flat single-XML document (.fodt). */
export interface OdfPackage {
  /** content.xml's root, or the flat document's root. */
  content: XmlElement;
  /** styles.xml's root (the flat root again); undefined when the package has none. */
  styles: XmlElement | undefined;
  /** meta.xml's root (the flat root again); undefined when absent. */
  meta: XmlElement | undefined;
  /** The package, for pictures and embedded objects; undefined for a flat document. */
  zip: ZipPackage | undefined;
  warnings: string[];
}

function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b;
}

/** A BOM or white space, then `<`. */
function looksLikeXml(bytes: Uint8Array): boolean {
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 64))
    .replace(/^\uFEFF/, '')
    .trimStart();
  return head.startsWith('<');
}

/**
 * ODF encrypts parts individually and says so in the manifest (`manifest:encryption-data` on
 * each encrypted entry); the ZIP itself is not encrypted, so the manifest is the only tell.
 */
function assertNotEncrypted(zip: ZipPackage, budget: XmlBudget, warnings: string[]): void {
  const bytes = zip.bytes('META-INF/manifest.xml');
  if (!bytes) return;
  let root: XmlElement;
  try {
    root = parseXml(bytes, budget, { part: 'META-INF/manifest.xml', lenient: true }).root;
  } catch (err) {
    // An unreadable manifest says nothing either way; encrypted content fails to parse below.
    if (!(err instanceof ConversionError) || err.code !== 'UNPARSABLE_DOCUMENT') throw err;
    warnings.push(err.message);
    return;
  }
  for (const entry of childrenNamed(root, 'manifest:file-entry')) {
    const path = entry.attrs['manifest:full-path'];
    if (path !== 'content.xml' && path !== 'styles.xml') continue;
    if (childrenNamed(entry, 'manifest:encryption-data').length > 0) {
      throw new ConversionError(
        'ENCRYPTED_DOCUMENT',
        'The OpenDocument file is password-protected (its content is encrypted); it cannot be converted.',
      );
    }
  }
}

/** Opens an ODF document; throws ConversionError when it is encrypted or has no content. */
export function openOdf(bytes: Uint8Array, budget: XmlBudget): OdfPackage {
  const warnings: string[] = [];
  if (!isZip(bytes)) {
    const notOdf = new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The file is neither an OpenDocument package (ZIP) nor a flat OpenDocument XML file.',
    );
    if (!looksLikeXml(bytes)) throw notOdf;
    const { root, damage } = parseXml(bytes, budget, { part: 'the document', lenient: true });
    if (root.name !== 'office:document') throw notOdf;
    if (damage) warnings.push(damage);
    return { content: root, styles: root, meta: root, zip: undefined, warnings };
  }
  const zip = openZip(bytes);
  assertNotEncrypted(zip, budget, warnings);
  const contentBytes = zip.bytes('content.xml');
  if (!contentBytes)
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The OpenDocument package has no content.xml.');
  const content = parseXml(contentBytes, budget, { part: 'content.xml', lenient: true });
  if (content.damage) warnings.push(content.damage);
  const optional = (part: string): XmlElement | undefined => {
    try {
      const data = zip.bytes(part);
      if (!data) return undefined;
      const parsed = parseXml(data, budget, { part, lenient: true });
      if (parsed.damage) warnings.push(parsed.damage);
      return parsed.root;
    } catch (err) {
      // Styles and properties only refine the content: a broken part is reported, not fatal.
      if (err instanceof ConversionError && err.code === 'UNPARSABLE_DOCUMENT') {
        warnings.push(err.message);
        return undefined;
      }
      throw err;
    }
  };
  return { content: content.root, styles: optional('styles.xml'), meta: optional('meta.xml'), zip, warnings };
}
