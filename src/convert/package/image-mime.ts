/** Image MIME types of package parts (DOCX, PPTX, ...), for data: URIs. */

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  dib: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  emf: 'image/emf',
  wmf: 'image/wmf',
  wdp: 'image/vnd.ms-photo',
  jxr: 'image/vnd.ms-photo',
  ico: 'image/x-icon',
};

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  return signature.every((b, i) => bytes[at + i] === b);
}

/** An image part's type: from its bytes for the common formats (parts are sometimes misnamed), else its extension. */
export function mimeOf(path: string, bytes: Uint8Array): string {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  if (startsWith(bytes, [0x01, 0, 0, 0]) && startsWith(bytes, [0x20, 0x45, 0x4d, 0x46], 40))
    return 'image/emf';
  if (startsWith(bytes, [0xd7, 0xcd, 0xc6, 0x9a])) return 'image/wmf';
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MIME[ext] ?? 'application/octet-stream';
}
