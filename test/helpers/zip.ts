import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a ZIP written by `zip`: deflated unless `store`. */
export interface ZipEntry {
  name: string;
  data: string | Uint8Array;
  store?: boolean;
}

/**
 * A minimal ZIP writer for building hostile and synthetic office packages in tests (a zip
 * bomb, an entity-expansion document.xml, a deep document) without fixtures on disk.
 */
export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = typeof entry.data === 'string' ? Buffer.from(entry.data) : Buffer.from(entry.data);
    const body = entry.store ? data : deflateRawSync(data, { level: 9 });
    const name = Buffer.from(entry.name);
    const method = entry.store ? 0 : 8;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(Math.min(data.length, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(Math.min(data.length, 0xffffffff), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A DOCX package around a given `word/document.xml`. */
export function docx(documentXml: string | Uint8Array): Buffer {
  return zip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    },
    { name: 'word/document.xml', data: documentXml },
  ]);
}

/** A document.xml whose body is the given paragraphs' XML. */
export function documentXml(body: string, prolog = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${prolog}<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`;
}

export function paragraph(text: string): string {
  return `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
}

const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A worksheet part around the given `sheetData` rows, with optional XML after them. */
export function worksheet(rows: string, after = '', prolog = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${prolog}<worksheet xmlns="${S}" xmlns:r="${R}"><sheetData>${rows}</sheetData>${after}</worksheet>`;
}

export interface XlsxSheet {
  name: string;
  /** The worksheet part (see `worksheet`). */
  xml: string | Uint8Array;
  /** The sheet's own relationships (`<Relationship .../>` elements), e.g. for hyperlinks. */
  rels?: string;
}

/**
 * A minimal XLSX: the package and workbook relationships, the workbook listing `sheets` in
 * order, each sheet part, shared strings when given, and any further parts. `listed` adds raw
 * `<sheet>` elements after those, for hostile workbooks whose list names parts it lacks or repeats.
 */
export function xlsx(
  sheets: readonly XlsxSheet[],
  opts: { sharedStrings?: string[]; extra?: ZipEntry[]; listed?: readonly string[] } = {},
): Buffer {
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="${REL_TYPE}/${type}" Target="${target}"/>`;
  const entries: ZipEntry[] = [
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="${RELS}">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data:
        `<?xml version="1.0"?><workbook xmlns="${S}" xmlns:r="${R}"><sheets>` +
        sheets.map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
        (opts.listed ?? []).join('') +
        '</sheets></workbook>',
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data:
        `<?xml version="1.0"?><Relationships xmlns="${RELS}">` +
        sheets.map((_, i) => rel(`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`)).join('') +
        (opts.sharedStrings ? rel('rIdStrings', 'sharedStrings', 'sharedStrings.xml') : '') +
        '</Relationships>',
    },
    ...sheets.map((s, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: s.xml })),
    ...sheets.flatMap((s, i) =>
      s.rels
        ? [
            {
              name: `xl/worksheets/_rels/sheet${i + 1}.xml.rels`,
              data: `<?xml version="1.0"?><Relationships xmlns="${RELS}">${s.rels}</Relationships>`,
            },
          ]
        : [],
    ),
  ];
  if (opts.sharedStrings) {
    entries.push({
      name: 'xl/sharedStrings.xml',
      data: `<?xml version="1.0"?><sst xmlns="${S}">${opts.sharedStrings.map((t) => `<si><t>${t}</t></si>`).join('')}</sst>`,
    });
  }
  return zip([...entries, ...(opts.extra ?? [])]);
}
