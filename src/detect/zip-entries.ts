/**
 * Names in a ZIP's central directory, read without inflating anything: enough to tell an
 * OOXML package from an OpenDocument or EPUB one. Returns undefined when the bytes are not
 * a readable ZIP.
 */
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Names needed to identify a package sit near the top; past this many we stop looking. */
const MAX_NAMES = 20_000;

export interface ZipListing {
  names: string[];
  /** Contents of a stored (uncompressed) first entry named `mimetype`, as ODF and EPUB require. */
  mimetype: string | undefined;
}

export function listZip(bytes: Uint8Array): ZipListing | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 22 || view.getUint32(0, true) !== LOCAL) return undefined;
  const mimetype = readMimetype(bytes, view);
  const end = findEndOfCentralDirectory(view);
  if (end === undefined) return { names: [], mimetype };
  const count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  const names: string[] = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < Math.min(count, MAX_NAMES); i++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== CENTRAL) break;
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    names.push(decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return { names, mimetype };
}

function readMimetype(bytes: Uint8Array, view: DataView): string | undefined {
  // A local header is 30 bytes; a shorter file (22-29 bytes, found by the fuzzer) answered 500.
  if (bytes.length < 30) return undefined;
  const method = view.getUint16(8, true);
  const size = view.getUint32(18, true);
  const nameLength = view.getUint16(26, true);
  const extraLength = view.getUint16(28, true);
  const name = new TextDecoder().decode(bytes.subarray(30, 30 + nameLength));
  if (name !== 'mimetype' || method !== 0 || size > 256) return undefined;
  const start = 30 + nameLength + extraLength;
  return new TextDecoder().decode(bytes.subarray(start, start + size)).trim();
}

function findEndOfCentralDirectory(view: DataView): number | undefined {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const last = view.byteLength - 22;
  for (let i = last; i >= Math.max(0, last - 65535); i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  return undefined;
}
