import CFB, { type CFB$Container } from 'cfb';
import { ConversionError } from '../converter.ts';

/**
 * The OLE compound file ([MS-CFB]) around binary Office documents (DOC, XLS, PPT), opened with
 * `cfb`; also where password-protected OOXML files (an `EncryptedPackage` in OLE) are refused.
 */
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const STREAM = 2;

export interface OleContainer {
  /** A root-level stream's bytes, or undefined when there is none. */
  stream(name: string): Uint8Array | undefined;
}

/** Opens the container; `label` names the expected format in error messages. */
export function openOleContainer(bytes: Uint8Array, label: string): OleContainer {
  if (!OLE_SIGNATURE.every((b, i) => bytes[i] === b)) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The file is not a ${label} (no OLE compound file header).`,
    );
  }
  let container: CFB$Container;
  try {
    // A Buffer, not a bare Uint8Array: cfb joins Buffer sectors with Buffer.concat, others byte by byte.
    container = CFB.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { type: 'buffer' });
  } catch {
    // cfb's messages describe its internals, not the file.
    throw new ConversionError('UNPARSABLE_DOCUMENT', `The ${label}'s OLE container is damaged or truncated.`);
  }
  const ole: OleContainer = {
    stream(name) {
      const entry = CFB.find(container, `/${name}`);
      if (!entry?.content || entry.type !== STREAM) return undefined;
      return entry.content instanceof Uint8Array ? entry.content : Uint8Array.from(entry.content);
    },
  };
  if (ole.stream('EncryptionInfo') && ole.stream('EncryptedPackage')) {
    throw new ConversionError(
      'ENCRYPTED_DOCUMENT',
      'The document is password-protected (an encrypted Office package); remove the password and upload it again.',
    );
  }
  return ole;
}
