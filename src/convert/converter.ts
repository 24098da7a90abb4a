import type { FormatId } from '../detect/formats.ts';
import type { QuireDocument } from '../document/model.ts';
import type { ParseOptions } from '../options/parse-options.ts';

export interface ConvertInput {
  bytes: Uint8Array;
  filename: string;
  /** The upload part's Content-Type, when the client sent a meaningful one. */
  contentType: string | undefined;
  format: FormatId;
  /** Synthetic URL of the upload, or the URL a page was fetched from; relative references resolve against it by default. */
  url: string;
  /**
   * `url` is where the bytes really came from (scrape): then only a page's `<base href>` overrides
   * it, as in a browser. An upload's synthetic URL also yields to its canonical link or `og:url`.
   */
  fetched?: boolean;
  options: ParseOptions;
}

/** A format plugs into the pipeline here and nowhere else. */
export type Converter = (input: ConvertInput) => QuireDocument | Promise<QuireDocument>;

/** Raised by converters for input that is damaged or refused: the caller gets a 4xx. */
export class ConversionError extends Error {
  readonly code: 'UNPARSABLE_DOCUMENT' | 'ENCRYPTED_DOCUMENT' | 'RESOURCE_LIMIT';
  constructor(code: ConversionError['code'], message: string) {
    super(message);
    this.code = code;
  }
}
