import { ConversionError } from '../converter.ts';
import { resolvePartPath } from '../package/ooxml.ts';
import { isElement, parseXml, type XmlBudget, type XmlElement } from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';

/**
 * Font obfuscation (IDPF and Adobe) is listed in encryption.xml too, but it only scrambles
 * embedded fonts so they cannot be lifted; the text is readable. Anything else is DRM.
 */
const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

const local = (name: string) => name.slice(name.lastIndexOf(':') + 1);

/** Package paths that META-INF/encryption.xml says are encrypted (other than obfuscated fonts). */
function encryptedPaths(zip: ZipPackage, budget: XmlBudget): Set<string> {
  const paths = new Set<string>();
  const bytes = zip.bytes('META-INF/encryption.xml');
  if (!bytes) return paths;
  const { root } = parseXml(bytes, budget, { part: 'META-INF/encryption.xml', lenient: true });
  for (const data of root.children) {
    if (!isElement(data) || local(data.name) !== 'EncryptedData') continue;
    let algorithm = '';
    let uri: string | undefined;
    const stack: XmlElement[] = [data];
    while (stack.length > 0) {
      const el = stack.pop()!;
      if (local(el.name) === 'EncryptionMethod' && el.attrs.Algorithm) algorithm = el.attrs.Algorithm;
      if (local(el.name) === 'CipherReference' && el.attrs.URI) uri = el.attrs.URI;
      for (const c of el.children) if (isElement(c)) stack.push(c);
    }
    // CipherReference URIs are relative to the package root (the container's directory).
    if (uri && !FONT_OBFUSCATION.has(algorithm)) paths.add(resolvePartPath('', uri));
  }
  return paths;
}

/** Refuses a book whose reading-order documents are encrypted (DRM): their bytes are not text. */
export function refuseEncryptedContent(zip: ZipPackage, budget: XmlBudget, spinePaths: string[]): void {
  const encrypted = encryptedPaths(zip, budget);
  if (encrypted.size === 0) return;
  const locked = spinePaths.filter((p) => encrypted.has(p));
  if (locked.length > 0) {
    throw new ConversionError(
      'ENCRYPTED_DOCUMENT',
      `The EPUB is protected by DRM: ${locked.length} of its ${spinePaths.length} content documents are encrypted and cannot be read.`,
    );
  }
}
