import { convertibleFormats } from '../convert/convertible.ts';
import { detectFormat, type UploadDescription } from '../detect/detect.ts';
import { type FormatId, formatInfo } from '../detect/formats.ts';
import type { ParseOptions } from '../options/parse-options.ts';

/**
 * What the bytes are, and the `warning` when they overrule the name or type they came with. Also
 * the command line's detection, so that a file gets the same answer there as uploaded.
 */
export function detectUpload(
  file: Omit<UploadDescription, 'fetched'>,
  options: ParseOptions,
  fetched: boolean,
): { format: FormatId; warnings: string[] } {
  const detection = detectFormat({ ...file, fetched }, convertibleFormats(options));
  const warnings: string[] = [];
  if (detection.relabelled) {
    const actual = formatInfo(detection.format).label;
    warnings.push(
      `The ${fetched ? 'page was served' : 'upload was named'} as ${formatInfo(detection.relabelled.claimed).label} but its bytes are ${actual}; it was parsed as ${actual}.`,
    );
  }
  return { format: detection.format, warnings };
}
