import { validateParseOptions } from '../../src/options/validate.ts';
import { detectUpload } from '../../src/pipeline/detect-upload.ts';
import { type ParsedDocument, parseDocument } from '../../src/pipeline/parse-document.ts';

export interface ConvertFile {
  bytes: Uint8Array | string;
  filename?: string;
  contentType?: string;
}

/**
 * A file through the conversion pipeline in the test's own process, as a conversion worker runs
 * it for `POST /v2/parse`: the options validated as the API validates them, the format detected
 * from the bytes and the name, then parseDocument (convert, transform, render). What comes back
 * is the answer's `data` (and `warning`), less what only the HTTP layer adds (scrapeId, credits).
 * A file the converter refuses throws its ConversionError (`code`, `message`), the 4xx the API
 * would answer with.
 */
export async function convert(file: ConvertFile, options: unknown = {}): Promise<ParsedDocument> {
  const parsed = validateParseOptions(options);
  const bytes = typeof file.bytes === 'string' ? new TextEncoder().encode(file.bytes) : file.bytes;
  const upload = { bytes, filename: file.filename ?? 'upload', contentType: file.contentType };
  const { format, warnings } = detectUpload(upload, parsed, false);
  return parseDocument({ ...upload, format, options: parsed, warnings });
}
