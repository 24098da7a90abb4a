/** The exceptions pdf.js throws: its BaseException subclasses, by name. */
const PDFJS_ERRORS = new Set([
  'AbortException',
  'DNLMarkerError',
  'EOIMarkerError',
  'FormatError',
  'InvalidPDFException',
  'JpegError',
  'JpxError',
  'MissingDataException',
  'ParserEOFException',
  'PasswordException',
  'ResponseException',
  'UnknownErrorException',
  'XRefEntryException',
  'XRefParseException',
]);

/** Where pdf.js's code runs from: its package, or Quire's copies of its worker half. */
const PDFJS_CODE = /\/pdfjs-dist\/|\/pdfjs-(read|draw)-worker-[0-9a-f]+\.mjs/;

/**
 * A rejection pdf.js left unawaited: one of its own exceptions, or an error its code raised on
 * a damaged file (a fuzzed PDF's circular reference made it stringify a Symbol, a TypeError),
 * known by the first frame of its stack.
 */
export function isPdfjsStray(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  if (PDFJS_ERRORS.has(reason.name)) return true;
  const top = reason.stack?.split('\n').find((line) => line.trimStart().startsWith('at '));
  return top !== undefined && PDFJS_CODE.test(top);
}

let installed = false;

/**
 * pdf.js's worker half, run in this process (load-document.ts), starts some reads it never
 * awaits, and a damaged file rejects them: in a browser a console message, in Node the end of
 * the process. A fuzzed PDF took its conversion process down that way although the conversion
 * itself had finished with the document's text. Those rejections are dropped; any other
 * unhandled rejection still ends the process, as Node's default does.
 */
export function dropPdfjsStrayRejections(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    if (isPdfjsStray(reason)) return;
    throw reason;
  });
}
