import { limits } from '../../limits.ts';
import { mainPart, type Relationship, readCoreProperties, readRelationships } from '../package/ooxml.ts';
import { XmlBudget } from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';
import { cutXmlAtRow } from './defuse-sheet.ts';
import { CellFormatter } from './number-formats.ts';
import { persons, threadedComments, xmlParts } from './ooxml-parts.ts';
import type { ReadWorkbook, WorkbookSheet } from './workbook.ts';
import {
  type PartReaders,
  placeComments,
  type RawComment,
  type SheetContext,
  type SheetRead,
} from './workbook-parts.ts';
import { binaryParts } from './xlsb-parts.ts';

/**
 * An OOXML workbook package (XLSX and XLSM in XML, XLSB in BIFF12 records), read by Quire's
 * own part readers: the workbook part for the sheets in order and their visibility, styles for
 * number formats, shared strings, then each sheet's cells, merged ranges, hyperlinks and
 * comments (legacy and threaded). Sheet data counts against limits.spreadsheetSheetBytes, cut
 * after its last complete row past it; damaged sheets keep the rows before the damage.
 *
 * SheetJS read these formats before; its readers spent 3-6x anydoc's time on a small workbook
 * (re-scanning every part with regular expressions) and 4 s on a million cells, where the
 * whole conversion now takes under 2.5.
 */

const MiB = 1024 * 1024;

/** The relationship type (its URI's last segment) of a sheet holding cells. */
const WORKSHEET = 'worksheet';

function single(rels: ReadonlyMap<string, Relationship>, type: string): Relationship | undefined {
  for (const rel of rels.values()) if (rel.type === type && !rel.external) return rel;
  return undefined;
}

export function readWorkbookPackage(zip: ZipPackage): ReadWorkbook {
  const budget = new XmlBudget();
  const warnings: string[] = [];
  const main = mainPart(zip, budget, zip.has('xl/workbook.bin') ? 'xl/workbook.bin' : 'xl/workbook.xml');
  const parts: PartReaders = /\.bin$/i.test(main) ? binaryParts : xmlParts;
  const bytes = (part: string | undefined): Uint8Array | undefined => (part ? zip.bytes(part) : undefined);

  const workbookBytes = bytes(main)!;
  const workbook = parts.workbook(workbookBytes, main);
  const rels = readRelationships(zip, main, budget);
  const stylesPart = single(rels, 'styles')?.target;
  const stylesBytes = bytes(stylesPart);
  const styles = stylesBytes
    ? parts.styles(stylesBytes, stylesPart!)
    : { formats: new Map(), styleFormats: [] };
  const stringsPart = single(rels, 'sharedStrings')?.target;
  const stringsBytes = bytes(stringsPart);
  const strings = stringsBytes ? parts.strings(stringsBytes, stringsPart!) : [];
  const personsPart = single(rels, 'person')?.target;
  const personsBytes = bytes(personsPart);
  const people = personsBytes ? persons(personsBytes, personsPart!) : new Map<string, string>();
  const ctx: SheetContext = {
    strings,
    formatter: new CellFormatter(styles.formats, styles.styleFormats, workbook.date1904),
    date1904: workbook.date1904,
  };

  let sheetBudget = limits.spreadsheetSheetBytes;
  const sheets: WorkbookSheet[] = [];
  // Every sheet has a part of its own; a workbook naming one part again (a million times, in
  // a 5 MB file) gets it read once, not once per sheet.
  const partsRead = new Set<string>();
  let repeats = 0;
  for (const entry of workbook.sheets) {
    const rel = rels.get(entry.relId);
    const sheet: WorkbookSheet = { name: entry.name, hidden: entry.hidden, rows: undefined, merges: [] };
    sheets.push(sheet);
    // Chart sheets hold no cells; dialog and macro sheets are macro machinery, never shown.
    if (rel && rel.type !== WORKSHEET) {
      sheet.rows = [];
      continue;
    }
    if (rel && partsRead.has(rel.target)) {
      repeats++;
      sheet.rows = [];
      continue;
    }
    if (rel) partsRead.add(rel.target);
    let data = bytes(rel?.target);
    if (!rel || !data) continue;
    let cut = false;
    if (data.length > sheetBudget) {
      cut = true;
      data = parts === xmlParts ? cutXmlAtRow(data, sheetBudget) : data.subarray(0, sheetBudget);
    }
    sheetBudget = Math.max(0, sheetBudget - data.length);
    const read: SheetRead = parts.sheet(data, rel.target, ctx);
    if (cut) {
      warnings.push(
        `The workbook holds more than ${limits.spreadsheetSheetBytes / MiB} MiB of sheet data (limits.spreadsheetSheetBytes); ${rel.target} was read only in part and later sheets may be empty.`,
      );
    } else if (read.truncated) {
      warnings.push(`${rel.target} is truncated or damaged; its rows up to the damage were read.`);
    }
    sheet.rows = read.rows;
    sheet.merges = read.merges;

    const sheetRels = readRelationships(zip, rel.target, budget);
    for (const link of read.links) {
      const cell = read.rows[link.r]?.[link.c];
      if (!cell) continue;
      const target = link.relId ? sheetRels.get(link.relId) : undefined;
      const external = target?.external ? target.target : '';
      const location = link.location ? `#${link.location}` : '';
      if (external || location) cell.l = { Target: external + location };
    }
    const legacy: RawComment[] = [];
    const threaded: RawComment[] = [];
    for (const r of sheetRels.values()) {
      if (r.external) continue;
      if (r.type === 'comments') {
        const b = bytes(r.target);
        if (b) legacy.push(...parts.comments(b, r.target));
      } else if (r.type === 'threadedComment') {
        const b = bytes(r.target);
        if (b)
          for (const t of threadedComments(b, r.target))
            threaded.push({ ...t, author: people.get(t.author) ?? t.author });
      }
    }
    if (legacy.length > 0 || threaded.length > 0) placeComments(read.rows, legacy, threaded);
  }
  if (repeats > 0) {
    warnings.push(
      `${repeats} sheet${repeats === 1 ? ' names' : 's name'} the part of an earlier sheet; ${repeats === 1 ? 'it was' : 'they were'} left out.`,
    );
  }
  return { sheets, metadata: readCoreProperties(zip, budget), warnings };
}
