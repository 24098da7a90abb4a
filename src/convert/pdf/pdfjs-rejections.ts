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
    if (reason instanceof Error && PDFJS_ERRORS.has(reason.name)) return;
    throw reason;
  });
}
