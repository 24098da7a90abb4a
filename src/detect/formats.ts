/** Every input format of the contract, with the extensions and MIME types that name it. */
export interface FormatInfo {
  id: FormatId;
  label: string;
  extensions: readonly string[];
  mimeTypes: readonly string[];
  /** Container the bytes use; a file's bytes must agree with its claimed container. */
  container: 'pdf' | 'zip' | 'ole' | 'rtf' | 'text' | 'image';
}

export type FormatId =
  | 'html'
  | 'pdf'
  | 'docx'
  | 'docm'
  | 'doc'
  | 'odt'
  | 'ods'
  | 'odp'
  | 'rtf'
  | 'xlsx'
  | 'xlsm'
  | 'xlsb'
  | 'xls'
  | 'pptx'
  | 'pptm'
  | 'ppt'
  | 'epub'
  | 'csv'
  | 'txt'
  | 'md'
  | 'json'
  | 'xml'
  | 'png'
  | 'jpeg'
  | 'tiff'
  | 'gif'
  | 'bmp'
  | 'webp';

/** Raster images, read by OCR when the `image` parser is on (the default). */
export const imageFormats: readonly FormatId[] = ['png', 'jpeg', 'tiff', 'gif', 'bmp', 'webp'];

const ooxml = 'application/vnd.openxmlformats-officedocument';

export const formats: readonly FormatInfo[] = [
  {
    id: 'html',
    label: 'HTML',
    extensions: ['.html', '.htm', '.xhtml'],
    mimeTypes: ['text/html', 'application/xhtml+xml'],
    container: 'text',
  },
  { id: 'pdf', label: 'PDF', extensions: ['.pdf'], mimeTypes: ['application/pdf'], container: 'pdf' },
  {
    id: 'docx',
    label: 'Word (DOCX)',
    extensions: ['.docx'],
    mimeTypes: [`${ooxml}.wordprocessingml.document`],
    container: 'zip',
  },
  {
    id: 'doc',
    label: 'Word 97-2003 (DOC)',
    extensions: ['.doc'],
    mimeTypes: ['application/msword'],
    container: 'ole',
  },
  {
    id: 'docm',
    label: 'Word with macros (DOCM)',
    extensions: ['.docm'],
    mimeTypes: ['application/vnd.ms-word.document.macroenabled.12'],
    container: 'zip',
  },
  {
    id: 'odt',
    label: 'OpenDocument text',
    extensions: ['.odt'],
    mimeTypes: ['application/vnd.oasis.opendocument.text'],
    container: 'zip',
  },
  {
    id: 'ods',
    label: 'OpenDocument spreadsheet',
    extensions: ['.ods'],
    mimeTypes: ['application/vnd.oasis.opendocument.spreadsheet'],
    container: 'zip',
  },
  {
    id: 'odp',
    label: 'OpenDocument presentation',
    extensions: ['.odp'],
    mimeTypes: ['application/vnd.oasis.opendocument.presentation'],
    container: 'zip',
  },
  {
    id: 'rtf',
    label: 'RTF',
    extensions: ['.rtf'],
    mimeTypes: ['application/rtf', 'text/rtf'],
    container: 'rtf',
  },
  {
    id: 'xlsx',
    label: 'Excel (XLSX)',
    extensions: ['.xlsx'],
    mimeTypes: [`${ooxml}.spreadsheetml.sheet`],
    container: 'zip',
  },
  {
    id: 'xls',
    label: 'Excel 97-2003 (XLS)',
    extensions: ['.xls'],
    mimeTypes: ['application/vnd.ms-excel'],
    container: 'ole',
  },
  {
    id: 'xlsm',
    label: 'Excel with macros (XLSM)',
    extensions: ['.xlsm'],
    mimeTypes: ['application/vnd.ms-excel.sheet.macroenabled.12'],
    container: 'zip',
  },
  {
    id: 'xlsb',
    label: 'Excel binary (XLSB)',
    extensions: ['.xlsb'],
    mimeTypes: ['application/vnd.ms-excel.sheet.binary.macroenabled.12'],
    container: 'zip',
  },
  {
    id: 'pptx',
    label: 'PowerPoint (PPTX)',
    extensions: ['.pptx'],
    mimeTypes: [`${ooxml}.presentationml.presentation`],
    container: 'zip',
  },
  {
    id: 'ppt',
    label: 'PowerPoint 97-2003 (PPT)',
    extensions: ['.ppt'],
    mimeTypes: ['application/vnd.ms-powerpoint'],
    container: 'ole',
  },
  {
    id: 'pptm',
    label: 'PowerPoint with macros (PPTM)',
    extensions: ['.pptm'],
    mimeTypes: ['application/vnd.ms-powerpoint.presentation.macroenabled.12'],
    container: 'zip',
  },
  { id: 'epub', label: 'EPUB', extensions: ['.epub'], mimeTypes: ['application/epub+zip'], container: 'zip' },
  {
    id: 'csv',
    label: 'CSV',
    extensions: ['.csv'],
    mimeTypes: ['text/csv', 'application/csv', 'text/comma-separated-values'],
    container: 'text',
  },
  {
    id: 'txt',
    label: 'plain text',
    extensions: ['.txt', '.text', '.log'],
    mimeTypes: ['text/plain'],
    container: 'text',
  },
  {
    id: 'md',
    label: 'Markdown',
    extensions: ['.md', '.markdown', '.mdown', '.mkd'],
    mimeTypes: ['text/markdown', 'text/x-markdown'],
    container: 'text',
  },
  {
    id: 'json',
    label: 'JSON',
    extensions: ['.json', '.jsonl', '.ndjson', '.geojson'],
    mimeTypes: ['application/json', 'application/x-ndjson', 'application/geo+json'],
    container: 'text',
  },
  {
    id: 'xml',
    label: 'XML',
    extensions: ['.xml', '.xsd', '.xsl', '.rss', '.atom'],
    mimeTypes: ['application/xml', 'text/xml', 'application/rss+xml', 'application/atom+xml'],
    container: 'text',
  },
  { id: 'png', label: 'PNG image', extensions: ['.png'], mimeTypes: ['image/png'], container: 'image' },
  {
    id: 'jpeg',
    label: 'JPEG image',
    extensions: ['.jpg', '.jpeg', '.jpe', '.jfif'],
    mimeTypes: ['image/jpeg', 'image/pjpeg'],
    container: 'image',
  },
  {
    id: 'tiff',
    label: 'TIFF image',
    extensions: ['.tif', '.tiff'],
    mimeTypes: ['image/tiff'],
    container: 'image',
  },
  { id: 'gif', label: 'GIF image', extensions: ['.gif'], mimeTypes: ['image/gif'], container: 'image' },
  {
    id: 'bmp',
    label: 'BMP image',
    extensions: ['.bmp', '.dib'],
    mimeTypes: ['image/bmp', 'image/x-ms-bmp'],
    container: 'image',
  },
  { id: 'webp', label: 'WebP image', extensions: ['.webp'], mimeTypes: ['image/webp'], container: 'image' },
];

const byId = new Map(formats.map((f) => [f.id, f]));

export function formatInfo(id: FormatId): FormatInfo {
  const info = byId.get(id);
  if (!info) throw new Error(`unknown format ${id}`);
  return info;
}

export function formatByExtension(filename: string): FormatInfo | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = filename.slice(dot).toLowerCase();
  return formats.find((f) => f.extensions.includes(ext));
}

export function formatByMimeType(contentType: string | undefined): FormatInfo | undefined {
  if (!contentType) return undefined;
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  return formats.find((f) => f.mimeTypes.includes(mime));
}
