import type { DocumentMetadata } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { readOdfMeta } from '../odf/meta.ts';
import { childrenNamed, parseXml, XmlBudget } from '../package/xml.ts';
import { openZip, type ZipPackage } from '../package/zip.ts';
import { cutOdsContent } from './defuse-sheet.ts';
import { capNumberStyleDigits } from './ods-number-styles.ts';
import { checkOdsRepeats } from './ods-repeats.ts';
import { readWorkbookPackage } from './read-workbook-package.ts';
import { fromSheetJs, parsePackage, type SheetJsContainer, type SheetJsEntry } from './sheetjs.ts';
import type { ReadWorkbook } from './workbook.ts';

/**
 * A ZIP-based workbook: OOXML (XLSX, XLSM, XLSB) by Quire's own part readers, OpenDocument
 * (ODS) by SheetJS from a package we opened: SheetJS never unpacks the upload itself. Every
 * part it asks for is inflated on demand by our capped inflater (zip bombs stop at
 * limits.zipInflatedBytes), refused when it declares XML entities, and content.xml is held to
 * limits.spreadsheetOdsContentBytes.
 */

const ENTITY = '<!ENTITY';
const ROOT = 'Root Entry';

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

/** OpenDocument properties (meta.xml) by the shared ODF reader. */
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

function readOds(zip: ZipPackage): ReadWorkbook {
  const budget = new XmlBudget();
  assertOdsNotEncrypted(zip, budget);
  const warnings: string[] = [];
  // SheetJS swallows errors thrown while it reads a part; ours are kept here and rethrown.
  let failure: unknown;

  const load = (name: string): Uint8Array | undefined => {
    const inflated = zip.bytes(name);
    if (!inflated) return undefined;
    let data = Buffer.from(inflated.buffer, inflated.byteOffset, inflated.byteLength);
    if (/\.(?:xml|rdf)$/i.test(name) && data.includes(ENTITY)) {
      throw new ConversionError(
        'UNPARSABLE_DOCUMENT',
        `${name} declares XML entities, which are never expanded; the workbook was refused.`,
      );
    }
    if (name === 'content.xml' || name === 'styles.xml') data = capNumberStyleDigits(data);
    if (name === 'content.xml') {
      const defused = cutOdsContent(data, limits.spreadsheetOdsContentBytes);
      data = Buffer.from(defused.bytes.buffer, defused.bytes.byteOffset, defused.bytes.byteLength);
      if (defused.cut) {
        warnings.push(
          `The spreadsheet holds more than ${limits.spreadsheetOdsContentBytes / 1024 / 1024} MiB of content (limits.spreadsheetOdsContentBytes); rows past that point were not read.`,
        );
      }
      checkOdsRepeats(data.toString('latin1'));
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

  let wb: ReturnType<typeof parsePackage>;
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
  return fromSheetJs(wb, readOdsMetadata(zip, budget), warnings);
}

export function readPackageWorkbook(bytes: Uint8Array): ReadWorkbook {
  const zip = openZip(bytes);
  const ods = zip.has('content.xml') && !zip.has('[Content_Types].xml');
  return ods ? readOds(zip) : readWorkbookPackage(zip);
}
