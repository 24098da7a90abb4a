import type { Element } from 'hast';
import { h } from 'hastscript';
import { limits } from '../../limits.ts';
import { ByteReader } from '../doc/byte-reader.ts';
import { blip, FBSE_HEADER } from '../doc/picture.ts';
import { type PptRecord, type RecordReader, RT } from './records.ts';

/**
 * Pictures (PPDrawingGroup → [MS-ODRAW] OfficeArtBStoreContainer): a picture
 * shape's `pib` property is a 1-based index into the document's BLIP store, whose FBSE either
 * embeds the BLIP or points into the Pictures stream (foDelay). PNG and JPEG become data-URI
 * images; metafiles and other encodings are left out, as in the Word converter.
 */
export type PictureLookup = (pib: number, alt: string) => Element | undefined;

/** FBSE body: foDelay at 28, cbName at 33. */
const FBSE_DELAY = 28;
const FBSE_NAME_SIZE = 33;

export function readPictureStore(
  reader: RecordReader,
  documentChildren: PptRecord[],
  picturesStream: Uint8Array | undefined,
): PictureLookup {
  const group = documentChildren.find((c) => c.type === RT.ppDrawingGroup);
  const dgg = group && reader.child(group, RT.dggContainer);
  const store = dgg && reader.child(dgg, RT.bStoreContainer);
  const entries = store ? reader.children(store).filter((c) => c.type === RT.fbse) : [];
  const pictures = picturesStream && new ByteReader(picturesStream, 'Pictures');
  const sources = new Map<number, string | undefined>();
  const source = (pib: number): string | undefined => {
    const fbse = entries[pib - 1];
    if (!fbse || fbse.end - fbse.body < FBSE_HEADER) return undefined;
    const r = reader.r;
    const embedded = fbse.body + FBSE_HEADER + r.u8(fbse.body + FBSE_NAME_SIZE);
    const picture =
      embedded + 8 <= fbse.end
        ? blip(r, embedded, fbse.end)
        : pictures && blip(pictures, r.u32(fbse.body + FBSE_DELAY), pictures.length);
    if (!picture || picture.bytes.length > limits.embeddedImageBytes) return undefined;
    return `data:${picture.mime};base64,${Buffer.from(picture.bytes).toString('base64')}`;
  };
  return (pib, alt) => {
    if (!sources.has(pib)) {
      let src: string | undefined;
      try {
        src = source(pib);
      } catch {
        // A damaged picture costs only itself.
      }
      sources.set(pib, src);
    }
    const src = sources.get(pib);
    return src ? h('img', { src, alt }) : undefined;
  };
}
