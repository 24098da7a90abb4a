import { decodeText } from '../../text/decode.ts';

/**
 * A text upload decoded (BOM, strict UTF-8, else the most plausible legacy charset), with
 * line ends made `\n`, and the MIME type it is reported as: `; charset=` is added when the
 * file was not UTF-8, so a client can see how it was read (as CSV does).
 */
export function decodeUpload(bytes: Uint8Array, mime: string): { text: string; contentType: string } {
  const { text, encoding } = decodeText(bytes);
  return {
    text: text.replace(/\r\n?/g, '\n'),
    contentType: encoding === 'utf-8' ? mime : `${mime}; charset=${encoding}`,
  };
}
