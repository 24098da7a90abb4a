import { type FormatId, imageFormats } from '../detect/formats.ts';
import type { ParseOptions } from '../options/parse-options.ts';

/**
 * The formats Quire converts, each mapped to its converter in src/convert/index.ts (whose type
 * makes the two agree). A list apart from the converters, so that the API process checks an
 * upload's format without loading any of them.
 */
export const formatsWithConverter = [
  'html',
  'csv',
  'doc',
  'docx',
  'docm',
  'odt',
  'odp',
  'epub',
  'rtf',
  'xlsx',
  'xlsm',
  'xlsb',
  'xls',
  'ods',
  'ppt',
  'pdf',
  'pptx',
  'pptm',
  'txt',
  'md',
  'json',
  'xml',
  'png',
  'jpeg',
  'tiff',
  'gif',
  'bmp',
  'webp',
] as const satisfies readonly FormatId[];

export type ConvertibleFormat = (typeof formatsWithConverter)[number];

export const implementedFormats: ReadonlySet<FormatId> = new Set(formatsWithConverter);
const withoutImages: ReadonlySet<FormatId> = new Set(
  formatsWithConverter.filter((f) => !imageFormats.includes(f)),
);

/** What one request may convert: images only while its `parsers` list has `image`, as upstream. */
export function convertibleFormats(options: ParseOptions): ReadonlySet<FormatId> {
  return options.parsers.some((p) => p.type === 'image') ? implementedFormats : withoutImages;
}

/** Whether `format` has a converter: the formats an upload may be read as. */
export function isConvertible(format: FormatId): format is ConvertibleFormat {
  return implementedFormats.has(format);
}
