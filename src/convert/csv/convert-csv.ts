import { type Options as CsvOptions, Parser } from 'csv-parse';
import type { DataTable } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { decodeText } from '../../text/decode.ts';
import { ConversionError, type Converter, type ConvertInput } from '../converter.ts';
import { type Delimiter, sniffDelimiter } from './sniff-dialect.ts';

/**
 * CSV → one `dataTable` node.
 *
 * Memory stays bounded for a 50 MB file: the text is held once, as UTF-8 bytes (the upload
 * itself when it already is UTF-8), and parsed twice, chunk by chunk. The first pass only
 * counts rows and columns and keeps the header; `rows()` parses again and yields records as
 * they come, so the full table never exists as arrays.
 *
 * csv-parse's push API (`parser.parse(chunk, end, push, close)`, what its own sync and
 * stream front ends drive) is reached through `Parser#api`: it is the only synchronous,
 * incremental entry point, and `DataTable.rows` must be a synchronous iterable.
 *
 * `contentType` is the upload's own CSV/TSV type when it sent one (else `text/csv`), with
 * `; charset=<name>` added when the file was not UTF-8, so a client can see how it was read.
 */

/** Bytes handed to the parser at a time; records come out one chunk's worth at a time. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Control / replacement characters beyond which the input is not text: a share of the
 * sample, and a count, so that a tiny file with a stray NUL is cleaned rather than refused.
 */
const MAX_JUNK_SHARE = 0.05;
const MAX_JUNK_CHARS = 32;

const MiB = 1024 * 1024;

interface Dialect {
  delimiter: Delimiter;
  /** False after an unterminated quote: quotes are then ordinary characters. */
  quoted: boolean;
}

/** The part of csv-parse's internal parser used here (see the note above). */
interface PushParser {
  parse(
    chunk: Buffer | undefined,
    end: boolean,
    push: (record: string[]) => void,
    close: () => void,
  ): Error | undefined;
  state?: { record?: unknown[]; field?: { length: number }; quoting?: boolean };
  info?: { lines?: number };
}

function csvOptions(dialect: Dialect): CsvOptions {
  return {
    delimiter: dialect.delimiter,
    quote: dialect.quoted ? '"' : false,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    bom: false,
  };
}

function pushParser(dialect: Dialect): PushParser {
  const api = (new Parser(csvOptions(dialect)) as unknown as { api?: PushParser }).api;
  if (!api || typeof api.parse !== 'function')
    throw new Error('csv-parse no longer exposes Parser#api.parse');
  return api;
}

function fieldLimitError(line: number | undefined, quoting = false): ConversionError {
  return new ConversionError(
    'RESOURCE_LIMIT',
    `CSV field${line ? ` near line ${line}` : ''} exceeds the limit of ${limits.csvFieldBytes / MiB} MiB per field (limits.csvFieldBytes)${quoting ? '; a quote is probably never closed' : ''}`,
  );
}

function columnLimitError(line: number | undefined): ConversionError {
  return new ConversionError(
    'RESOURCE_LIMIT',
    `CSV row${line ? ` near line ${line}` : ''} has more than ${limits.csvColumns} fields (limits.csvColumns)`,
  );
}

/** Thrown inside the first pass when a quote never closes; the pass restarts without quotes. */
class UnclosedQuote extends Error {}

/**
 * Every record of `data`, parsed `CHUNK_BYTES` at a time. A record that is one blank field
 * (a line of spaces) is skipped like an empty line. While parsing, the record and field
 * being built are checked against the limits, so a junk file is refused before csv-parse
 * has accumulated millions of fields.
 */
function* records(data: Buffer, dialect: Dialect): Generator<string[]> {
  const parser = pushParser(dialect);
  const batch: string[][] = [];
  const push = (record: string[]) => {
    if (record.length === 1 && record[0]!.trim() === '') return;
    batch.push(record);
  };
  const close = () => {};
  for (let offset = 0; ; offset += CHUNK_BYTES) {
    const end = offset >= data.length;
    // Even with relax_column_count, csv-parse builds (and drops) a CsvError for every row
    // whose width differs from the first row's; capturing a stack trace for each made a
    // ragged 50 MB file about three times slower.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    let error: Error | undefined;
    try {
      error = end
        ? parser.parse(undefined, true, push, close)
        : parser.parse(data.subarray(offset, offset + CHUNK_BYTES), false, push, close);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    if (error) {
      if ((error as { code?: unknown }).code === 'CSV_QUOTE_NOT_CLOSED')
        throw new UnclosedQuote(error.message);
      throw new ConversionError('UNPARSABLE_DOCUMENT', `CSV could not be parsed: ${error.message}`);
    }
    const state = parser.state;
    if (state) {
      const line = parser.info?.lines;
      if ((state.record?.length ?? 0) > limits.csvColumns) throw columnLimitError(line);
      if ((state.field?.length ?? 0) > limits.csvFieldBytes) throw fieldLimitError(line, state.quoting);
    }
    yield* batch;
    batch.length = 0;
    if (end) return;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Control characters (NUL, escape, ...) mean nothing in a table cell and break renderers. */
function clean(record: string[]): string[] {
  for (let i = 0; i < record.length; i++) {
    const cell = record[i]!;
    if (CONTROL.test(cell)) record[i] = cell.replace(CONTROLS, '');
  }
  return record;
}

function checkFields(record: string[]): void {
  if (record.length > limits.csvColumns) throw columnLimitError(undefined);
  for (const field of record) {
    // UTF-8 needs at most 3 bytes per UTF-16 unit; only long fields are measured exactly.
    if (field.length * 3 > limits.csvFieldBytes && Buffer.byteLength(field) > limits.csvFieldBytes) {
      throw fieldLimitError(undefined);
    }
  }
}

interface Shape {
  header: string[] | undefined;
  columns: number;
  rowCount: number;
  ragged: number;
}

/** The counting pass: header, widest row, number of data rows, rows off the header's width. */
function measure(data: Buffer, dialect: Dialect): Shape {
  const shape: Shape = { header: undefined, columns: 0, rowCount: 0, ragged: 0 };
  for (const record of records(data, dialect)) {
    checkFields(record);
    if (shape.header === undefined) shape.header = clean(record);
    else {
      shape.rowCount++;
      if (record.length !== shape.header.length) shape.ragged++;
    }
    if (record.length > shape.columns) shape.columns = record.length;
  }
  return shape;
}

/** Whether the sample is full of what no text file contains: C0/C1 controls, U+FFFD. */
function looksBinary(sample: string): boolean {
  let junk = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c < 0xa0) || c === 0xfffd) junk++;
  }
  return junk > MAX_JUNK_CHARS && junk > sample.length * MAX_JUNK_SHARE;
}

function charsetParam(contentType: string | undefined): string | undefined {
  return contentType?.match(/;\s*charset\s*=\s*"?([^";\s]+)"?/i)?.[1];
}

function reportedContentType(input: ConvertInput, encoding: string): string {
  const declared = input.contentType?.split(';')[0]?.trim().toLowerCase();
  const base = declared === 'text/csv' || declared === 'text/tab-separated-values' ? declared : 'text/csv';
  return encoding === 'utf-8' ? base : `${base}; charset=${encoding}`;
}

/** The text as UTF-8 bytes: the upload itself (less a BOM) when it already is UTF-8. */
function utf8Bytes(bytes: Uint8Array, text: string, encoding: string): Buffer {
  if (encoding !== 'utf-8') return Buffer.from(text, 'utf8');
  const skip = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset + skip, bytes.byteLength - skip);
}

export const convertCsv: Converter = (input) => {
  const warnings: string[] = [];
  const decoded = decodeText(input.bytes, charsetParam(input.contentType));
  const sample = decoded.text.slice(0, limits.sniffBytes);
  if (looksBinary(sample)) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The file is not CSV text: it is full of control characters (binary data?)',
    );
  }
  const dialect: Dialect = { delimiter: sniffDelimiter(sample), quoted: true };
  const data = utf8Bytes(input.bytes, decoded.text, decoded.encoding);
  const contentType = reportedContentType(input, decoded.encoding);

  let shape: Shape;
  try {
    shape = measure(data, dialect);
  } catch (error) {
    if (!(error instanceof UnclosedQuote)) throw error;
    dialect.quoted = false;
    shape = measure(data, dialect);
    warnings.push('The CSV file has a quote that is never closed; quotes were read as ordinary characters.');
  }

  const { header } = shape;
  if (header === undefined) {
    warnings.push('The CSV file is empty.');
    return {
      kind: 'document',
      tree: { type: 'root', children: [] },
      metadata: {},
      contentType,
      baseUrl: input.url,
      warnings,
    };
  }
  if (shape.ragged > 0) {
    warnings.push(
      `${shape.ragged} CSV row${shape.ragged === 1 ? ' has' : 's have'} a different number of fields than the header; the table was padded.`,
    );
  }

  const table: DataTable = {
    type: 'dataTable',
    columns: shape.columns,
    rowCount: shape.rowCount,
    header,
    rows: function* () {
      let first = true;
      for (const record of records(data, dialect)) {
        if (first) first = false;
        else yield clean(record);
      }
    },
  };
  return {
    kind: 'document',
    tree: { type: 'root', children: [table] },
    metadata: {},
    contentType,
    baseUrl: input.url,
    warnings,
  };
};
