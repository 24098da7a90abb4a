import type { WorkBook } from '@e965/xlsx';
import type { DocumentMetadata } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { readOdfMeta } from '../odf/meta.ts';
import { childrenNamed, parseXml, XmlBudget } from '../package/xml.ts';
import { openZip, type ZipPackage } from '../package/zip.ts';
import { cutOdsContent, defuseSheetBin, defuseSheetXml } from './defuse-sheet.ts';
import { checkOdsRepeats } from './ods-repeats.ts';
import { parsePackage, type SheetJsContainer, type SheetJsEntry } from './sheetjs.ts';

/**
 * A ZIP-based workbook (XLSX, XLSM, XLSB, ODS) read by SheetJS from a package we opened: SheetJS
 * never unpacks the upload itself. Every part it asks for is inflated on demand by our capped
 * inflater (zip bombs stop at limits.zipInflatedBytes), refused when it declares XML entities,
 * and, for sheet data, defused and held to limits.spreadsheetSheetBytes.
 */
export interface ReadWorkbook {
  wb: WorkBook;
  metadata: DocumentMetadata;
  warnings: string[];
}

const ENTITY = '<!ENTITY';
const MiB = 1024 * 1024;
const ROOT = 'Root Entry';

/**
 * Parts that may hold cells. Found by content rather than by name, since the workbook's
 * relationships may place a sheet anywhere: an XML part with a `sheetData` element (which comes
 * before any cell, within the part's first few KB to 1 MB of column settings), or a BIFF12 part
 * (XLSB), which is any `.bin` but the macro project, printer settings and embedded objects.
 */
function isSheetPart(name: string, data: Buffer): boolean {
  if (/\.bin$/i.test(name)) return !/vbaProject|printerSettings|embeddings\//i.test(name);
  return (
    /\.xml$/i.test(name) &&
    (data.includes('<sheetData') || /<\w+:sheetData\b/.test(data.subarray(0, 2 * MiB).toString('latin1')))
  );
}

/** ODF encrypts parts one by one and says so in the manifest; the ZIP itself is not encrypted. */
function assertOdsNotEncrypted(zip: ZipPackage, budget: XmlBudget): void {
  const bytes = zip.bytes('META-INF/manifest.xml');
  if (!bytes) return;
  const { root } = parseXml(bytes, budget, { part: 'META-INF/manifest.xml', lenient: true });
  for (const entry of childrenNamed(root, 'manifest:file-entry')) {
    if (entry.attrs['manifest:full-path'] !== 'content.xml') continue;
    if (childrenNamed(entry, 'manifest:encryption-data').length > 0) {
      throw new ConversionError(
        'ENCRYPTED_DOCUMENT',
        'The spreadsheet is password-protected (its content is encrypted); remove the password and upload it again.',
      );
    }
  }
}

/**
 * OpenDocument properties (meta.xml) by the shared ODF reader; an OOXML package's core
 * properties are already in what SheetJS read (see workbook-metadata.ts).
 */
function readOdsMetadata(zip: ZipPackage, budget: XmlBudget): DocumentMetadata {
  try {
    const meta = zip.bytes('meta.xml');
    return meta ? readOdfMeta(parseXml(meta, budget, { part: 'meta.xml', lenient: true }).root) : {};
  } catch (err) {
    // Properties only describe the workbook: a broken part is not worth failing it for.
    if (err instanceof ConversionError && err.code === 'UNPARSABLE_DOCUMENT') return {};
    throw err;
  }
}

export function readPackageWorkbook(bytes: Uint8Array): ReadWorkbook {
  const zip = openZip(bytes);
  const ods = zip.has('content.xml') && !zip.has('[Content_Types].xml');
  const budget = new XmlBudget();
  if (ods) assertOdsNotEncrypted(zip, budget);
  const warnings: string[] = [];
  let sheetBudget = limits.spreadsheetSheetBytes;
  // SheetJS swallows errors thrown while it reads a sheet; ours are kept here and rethrown.
  let failure: unknown;

  const load = (name: string): Uint8Array | undefined => {
    const inflated = zip.bytes(name);
    if (!inflated) return undefined;
    let data = Buffer.from(inflated.buffer, inflated.byteOffset, inflated.byteLength);
    if (/\.(?:xml|rels|vml)$/i.test(name) && data.includes(ENTITY)) {
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        `${name} declares XML entities, which are never expanded; the workbook was refused.`,
      );
    }
    if (ods && name === 'content.xml') {
      const defused = cutOdsContent(data, limits.spreadsheetOdsContentBytes);
      data = Buffer.from(defused.bytes.buffer, defused.bytes.byteOffset, defused.bytes.byteLength);
      if (defused.cut) {
        warnings.push(
          `The spreadsheet holds more than ${limits.spreadsheetOdsContentBytes / 1024 / 1024} MiB of content (limits.spreadsheetOdsContentBytes); rows past that point were not read.`,
        );
      }
      checkOdsRepeats(data.toString('latin1'));
    } else if (!ods && isSheetPart(name, data)) {
      const defused = name.toLowerCase().endsWith('.bin')
        ? defuseSheetBin(data, sheetBudget)
        : defuseSheetXml(data, sheetBudget);
      data = Buffer.from(defused.bytes.buffer, defused.bytes.byteOffset, defused.bytes.byteLength);
      sheetBudget = Math.max(0, sheetBudget - data.length);
      if (defused.truncated) {
        warnings.push(`${name} is truncated or damaged; its rows up to the damage were read.`);
      }
      if (defused.cut) {
        warnings.push(
          `The workbook holds more than ${limits.spreadsheetSheetBytes / 1024 / 1024} MiB of sheet data (limits.spreadsheetSheetBytes); ${name} was read only in part and later sheets may be empty.`,
        );
      }
    }
    // A Buffer: SheetJS decodes Buffers natively and byte arrays one character at a time.
    return data;
  };

  const entry = (name: string): SheetJsEntry => {
    let cached: Uint8Array | undefined;
    let loaded = false;
    return {
      name: name.slice(name.lastIndexOf('/') + 1),
      type: 2,
      get content(): Uint8Array | undefined {
        if (!loaded) {
          loaded = true;
          try {
            cached = load(name);
          } catch (err) {
            failure ??= err;
            throw err;
          }
        }
        return cached;
      },
    };
  };
  const names = zip.names.filter((n) => !n.endsWith('/'));
  const container: SheetJsContainer = {
    FullPaths: [`${ROOT}/`, ...names.map((n) => `${ROOT}/${n}`)],
    FileIndex: [{ name: ROOT, type: 5 }, ...names.map(entry)],
  };

  let wb: WorkBook;
  try {
    wb = parsePackage(container);
  } catch (err) {
    if (failure) throw failure;
    if (err instanceof ConversionError) throw err;
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The spreadsheet could not be read: ${err instanceof Error ? err.message : String(err)}.`,
    );
  }
  if (failure) throw failure;
  return { wb, metadata: ods ? readOdsMetadata(zip, budget) : {}, warnings };
}
