import { bigPicture, billionLaughs, type HostileCase, nested, pictureRepeats, truncated } from './case.ts';
import { type Deflated, deflatedFill, overlapping, type PackageEntry, writeZip } from './zip.ts';

// Hostile Office Open XML packages (DOCX, XLSX, PPTX), each built from the few parts a reader
// needs, so that the attack is the only unusual thing in the file.

const NS = {
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  wp: 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  pic: 'http://schemas.openxmlformats.org/drawingml/2006/picture',
  p: 'http://schemas.openxmlformats.org/presentationml/2006/main',
  s: 'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  rels: 'http://schemas.openxmlformats.org/package/2006/relationships',
} as const;

/** One relationship: id, type (the last segment of the officeDocument type URI), target. */
type Rel = readonly [id: string, type: string, target: string];

function relsXml(list: readonly Rel[]): string {
  const items = list.map(
    ([id, type, target]) => `<Relationship Id="${id}" Type="${NS.r}/${type}" Target="${target}"/>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${NS.rels}">${items.join('')}</Relationships>`;
}

const mainTypes = {
  docx: [
    'word/document.xml',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  ],
  xlsx: ['xl/workbook.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'],
  pptx: [
    'ppt/presentation.xml',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
  ],
} as const;

/**
 * An OPC package: content types, the package relationship to the main part, the main part and
 * its relationships, then `parts` (which may be aliases or pre-deflated bombs).
 */
function opc(
  kind: keyof typeof mainTypes,
  main: string | Deflated,
  mainRels: readonly Rel[],
  parts: readonly PackageEntry[] = [],
): Buffer {
  const [mainPath, mainType] = mainTypes[kind];
  const folder = mainPath.slice(0, mainPath.indexOf('/'));
  const file = mainPath.slice(folder.length + 1);
  return writeZip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>' +
        `<Override PartName="/${mainPath}" ContentType="${mainType}"/></Types>`,
    },
    { name: '_rels/.rels', data: relsXml([['rId1', 'officeDocument', mainPath]]) },
    typeof main === 'string' ? { name: mainPath, data: main } : { name: mainPath, deflated: main },
    { name: `${folder}/_rels/${file}.rels`, data: relsXml(mainRels) },
    ...parts,
  ]);
}

// ------------------------------------------------------------------ DOCX

const documentOpen = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${NS.w}" xmlns:r="${NS.r}" xmlns:wp="${NS.wp}" xmlns:a="${NS.a}" xmlns:pic="${NS.pic}"><w:body>`;
const documentClose = '</w:body></w:document>';
const para = (t: string, style = '') =>
  `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${t}</w:t></w:r></w:p>`;

function docx(
  body: string,
  rels: readonly Rel[] = [],
  parts: readonly PackageEntry[] = [],
  prolog = '',
): Buffer {
  const xml = documentOpen.replace('<w:document', `${prolog}<w:document`) + body + documentClose;
  return opc('docx', xml, rels, parts);
}

const inlinePicture = (rel: string) =>
  '<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture" descr="repeated picture"/>' +
  `<a:graphic><a:graphicData uri="${NS.pic}"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="p.png"/><pic:cNvPicPr/></pic:nvPicPr>` +
  `<pic:blipFill><a:blip r:embed="${rel}"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;

const tableRow = (cells: string) => `<w:tr>${cells}</w:tr>`;
const tableCell = (t: string, span = 1) =>
  `<w:tc>${span > 1 ? `<w:tcPr><w:gridSpan w:val="${span}"/></w:tcPr>` : ''}${para(t)}</w:tc>`;

const docxCases: HostileCase[] = [
  {
    name: 'docx-zip-bomb',
    filename: 'zip-bomb.docx',
    attack: 'document.xml inflates to 600 MiB of spaces from ~600 KB',
    build: () => opc('docx', deflatedFill(documentOpen, 0x20, 600, documentClose), []),
  },
  {
    name: 'docx-billion-laughs',
    filename: 'laughs.docx',
    attack: 'entity declarations expanding to 10^10 "lol"s',
    build: () => docx(para('&lol10;'), [], [], billionLaughs('w:document')),
  },
  {
    name: 'docx-deep-nesting',
    filename: 'deep.docx',
    attack: '100,000 nested content controls around one paragraph',
    build: () => docx(nested('<w:sdt><w:sdtContent>', '</w:sdtContent></w:sdt>', 100_000, para('deep'))),
  },
  {
    name: 'docx-deep-tables',
    filename: 'deep-tables.docx',
    attack: 'tables nested 5,000 deep, a table in each cell',
    build: () =>
      docx(
        `${nested('<w:tbl><w:tr><w:tc>', `${para('.')}</w:tc></w:tr></w:tbl>`, 5000, para('core'))}${para('end')}`,
      ),
  },
  {
    name: 'docx-repeated-picture',
    filename: 'repeated-picture.docx',
    attack: `a ~10 KB file placing one 8 MB picture ${pictureRepeats} times (output amplification)`,
    build: () =>
      docx(
        inlinePicture('rIdPic').repeat(pictureRepeats),
        [['rIdPic', 'image', 'media/image1.png']],
        [{ name: 'word/media/image1.png', data: bigPicture() }],
      ),
  },
  {
    name: 'docx-wide-gridspan',
    filename: 'wide-gridspan.docx',
    attack: 'one row of 50 cells spanning 1,000 columns each over 5,000 one-cell rows',
    build: () =>
      docx(
        `<w:tbl>${tableRow(Array.from({ length: 50 }, (_, i) => tableCell(`w${i}`, 1000)).join(''))}${tableRow(tableCell('n')).repeat(5000)}</w:tbl>`,
      ),
  },
  {
    name: 'docx-style-cycle',
    filename: 'style-cycle.docx',
    attack: 'paragraph styles based on each other in a cycle, numbering linked to itself',
    build: () =>
      docx(
        para('cyclic style', 'A').repeat(1000),
        [
          ['rIdStyles', 'styles', 'styles.xml'],
          ['rIdNum', 'numbering', 'numbering.xml'],
        ],
        [
          {
            name: 'word/styles.xml',
            data:
              `<w:styles xmlns:w="${NS.w}">` +
              '<w:style w:type="paragraph" w:styleId="A"><w:name w:val="A"/><w:basedOn w:val="B"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>' +
              '<w:style w:type="paragraph" w:styleId="B"><w:name w:val="B"/><w:basedOn w:val="A"/></w:style>' +
              '<w:style w:type="numbering" w:styleId="L"><w:name w:val="L"/><w:basedOn w:val="L"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>' +
              '</w:styles>',
          },
          {
            name: 'word/numbering.xml',
            data:
              `<w:numbering xmlns:w="${NS.w}"><w:abstractNum w:abstractNumId="0"><w:numStyleLink w:val="L"/><w:styleLink w:val="L"/></w:abstractNum>` +
              '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>',
          },
        ],
      ),
  },
  {
    name: 'docx-footnote-self-reference',
    filename: 'footnote-loop.docx',
    attack: 'a footnote whose text references itself, 10,000 references to it',
    build: () =>
      docx(
        `<w:p><w:r><w:t>see</w:t></w:r>${'<w:r><w:footnoteReference w:id="1"/></w:r>'.repeat(10_000)}</w:p>`,
        [['rIdNotes', 'footnotes', 'footnotes.xml']],
        [
          {
            name: 'word/footnotes.xml',
            data: `<w:footnotes xmlns:w="${NS.w}"><w:footnote w:id="1"><w:p><w:r><w:t>note</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p></w:footnote></w:footnotes>`,
          },
        ],
      ),
  },
  {
    name: 'docx-many-entries',
    filename: 'many-entries.docx',
    attack: '30,000 empty package entries',
    build: () =>
      docx(
        para('x'),
        [],
        Array.from({ length: 30_000 }, (_, i) => ({ name: `junk/${i}`, data: '', store: true })),
      ),
  },
  {
    name: 'docx-short-header',
    filename: 'short-header.docx',
    attack: 'a ZIP signature and 21 more bytes: shorter than one local header (answered 500 before a fix)',
    build: () => Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(21)]),
  },
  {
    name: 'docx-truncated',
    filename: 'truncated.docx',
    attack: 'the first half of a package (no central directory)',
    build: () => truncated(docx(para('some text ').repeat(2000))),
  },
];

// ------------------------------------------------------------------ XLSX

const sheetOpen = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${NS.s}" xmlns:r="${NS.r}">`;
const sheetWith = (rows: string, before = '', after = '') =>
  `${sheetOpen}${before}<sheetData>${rows}</sheetData>${after}</worksheet>`;
const inlineCell = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;

/** A workbook of `sheets` sheets; sheet i (from 1) is the part `xl/worksheets/sheet{i}.xml` in `parts`. */
function xlsx(
  sheets: number,
  parts: readonly PackageEntry[],
  extraRels: readonly Rel[] = [],
  prolog = '',
): Buffer {
  const list = Array.from(
    { length: sheets },
    (_, i) => `<sheet name="S${i + 1}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`,
  );
  return opc(
    'xlsx',
    `<?xml version="1.0" encoding="UTF-8"?>${prolog}<workbook xmlns="${NS.s}" xmlns:r="${NS.r}"><sheets>${list.join('')}</sheets></workbook>`,
    [
      ...Array.from(
        { length: sheets },
        (_, i): Rel => [`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`],
      ),
      ...extraRels,
    ],
    parts,
  );
}
const oneSheet = (xml: string, extraRels: readonly Rel[] = [], parts: readonly PackageEntry[] = []) =>
  xlsx(1, [{ name: 'xl/worksheets/sheet1.xml', data: xml }, ...parts], extraRels);

const xlsxCases: HostileCase[] = [
  {
    name: 'xlsx-overlap-bomb',
    filename: 'overlap-bomb.xlsx',
    attack: '40 sheets that are one 20 MiB compressed kernel under 40 names (800 MiB inflated)',
    build: () =>
      xlsx(
        40,
        overlapping(
          Array.from({ length: 40 }, (_, i) => `xl/worksheets/sheet${i + 1}.xml`),
          deflatedFill(`${sheetOpen}<sheetData>`, 0x20, 20, '</sheetData></worksheet>'),
        ),
      ),
  },
  {
    name: 'xlsx-huge-dimension',
    filename: 'huge-dimension.xlsx',
    attack: 'a sheet declaring A1:XFD1048576 with cells in its two far corners',
    build: () =>
      oneSheet(
        sheetWith(
          `<row r="1">${inlineCell('A1', 'top left')}</row><row r="1048576">${inlineCell('XFD1048576', 'bottom right')}</row>`,
          '<dimension ref="A1:XFD1048576"/>',
        ),
      ),
  },
  {
    name: 'xlsx-huge-merge',
    filename: 'huge-merge.xlsx',
    attack: 'one merged range covering the whole sheet, and 10,000 overlapping ones',
    build: () =>
      oneSheet(
        sheetWith(
          `<row r="1">${inlineCell('A1', 'merged')}</row><row r="2">${inlineCell('B2', 'inside')}</row>`,
          '',
          `<mergeCells count="10001"><mergeCell ref="A1:XFD1048576"/>${Array.from({ length: 10_000 }, (_, i) => `<mergeCell ref="A${i + 1}:XFD${i + 2}"/>`).join('')}</mergeCells>`,
        ),
      ),
  },
  {
    name: 'xlsx-many-rows',
    filename: 'many-rows.xlsx',
    attack: '2.6 million one-cell rows (80 MiB of sheet XML) from a ~80 KB file',
    build: () =>
      xlsx(1, [
        {
          name: 'xl/worksheets/sheet1.xml',
          // 32 bytes a row, so that the pattern tiles the filler's MiB pieces.
          deflated: deflatedFill(
            `${sheetOpen}<sheetData>`,
            '<row><c><v>1</v></c></row>'.padEnd(32),
            80,
            '</sheetData></worksheet>',
          ),
        },
      ]),
    cut: true,
  },
  {
    name: 'xlsx-billion-laughs',
    filename: 'laughs.xlsx',
    attack: 'entity expansion in a worksheet',
    build: () =>
      oneSheet(
        sheetWith(`<row r="1">${inlineCell('A1', '&lol10;')}</row>`).replace(
          '<worksheet',
          `${billionLaughs('worksheet')}<worksheet`,
        ),
      ),
  },
  {
    name: 'xlsx-self-referencing',
    filename: 'self-referencing.xlsx',
    attack: 'a workbook whose sheet is the workbook part itself, and 10,000 sheets naming it',
    build: () =>
      opc(
        'xlsx',
        `<?xml version="1.0"?><workbook xmlns="${NS.s}" xmlns:r="${NS.r}"><sheets>${Array.from({ length: 10_000 }, (_, i) => `<sheet name="W${i}" sheetId="${i + 1}" r:id="rIdSelf"/>`).join('')}</sheets></workbook>`,
        [['rIdSelf', 'worksheet', 'workbook.xml']],
      ),
  },
  {
    name: 'xlsx-truncated',
    filename: 'truncated.xlsx',
    attack: 'the first 60% of a workbook',
    build: () =>
      truncated(
        oneSheet(
          sheetWith(
            Array.from(
              { length: 3000 },
              (_, i) => `<row r="${i + 1}">${inlineCell(`A${i + 1}`, `v${i}`)}</row>`,
            ).join(''),
          ),
        ),
        0.6,
      ),
  },
];

// ------------------------------------------------------------------ PPTX

const slideXml = (shapes: string) =>
  `<p:sld xmlns:p="${NS.p}" xmlns:a="${NS.a}" xmlns:r="${NS.r}"><p:cSld><p:spTree>${shapes}</p:spTree></p:cSld></p:sld>`;
const textShape = (t: string) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="T"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${t}</a:t></a:r></a:p></p:txBody></p:sp>`;
const pictureShape =
  '<p:pic><p:nvPicPr><p:cNvPr id="3" name="P" descr="repeated picture"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr>' +
  '<p:blipFill><a:blip r:embed="rIdPic"/></p:blipFill><p:spPr/></p:pic>';
const group =
  '<p:grpSp><p:nvGrpSpPr><p:cNvPr id="4" name="G"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>';

/** A deck of `slides` slides; slide i is `ppt/slides/slide{i}.xml`, from `parts`. */
function pptx(slides: number, parts: readonly PackageEntry[]): Buffer {
  const ids = Array.from({ length: slides }, (_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`);
  return opc(
    'pptx',
    `<p:presentation xmlns:p="${NS.p}" xmlns:r="${NS.r}"><p:sldIdLst>${ids.join('')}</p:sldIdLst></p:presentation>`,
    Array.from({ length: slides }, (_, i): Rel => [`rId${i + 1}`, 'slide', `slides/slide${i + 1}.xml`]),
    parts,
  );
}

const pptxCases: HostileCase[] = [
  {
    name: 'pptx-overlap-bomb',
    filename: 'overlap-bomb.pptx',
    attack: '40 slides that are one 20 MiB compressed kernel under 40 names',
    build: () =>
      pptx(
        40,
        overlapping(
          Array.from({ length: 40 }, (_, i) => `ppt/slides/slide${i + 1}.xml`),
          deflatedFill(`<p:sld xmlns:p="${NS.p}">`, 0x20, 20, '</p:sld>'),
        ),
      ),
  },
  {
    name: 'pptx-deep-groups',
    filename: 'deep-groups.pptx',
    attack: 'shape groups nested 100,000 deep',
    build: () =>
      pptx(1, [
        {
          name: 'ppt/slides/slide1.xml',
          data: slideXml(nested(group, '</p:grpSp>', 100_000, textShape('deep'))),
        },
      ]),
  },
  {
    name: 'pptx-repeated-picture',
    filename: 'repeated-picture.pptx',
    attack: `one 8 MB picture on ${pictureRepeats} slides`,
    build: () =>
      pptx(pictureRepeats, [
        { name: 'ppt/media/image1.png', data: bigPicture() },
        { name: 'ppt/slides/slide1.xml', data: slideXml(textShape('picture') + pictureShape) },
        {
          name: 'ppt/slides/_rels/slide1.xml.rels',
          data: relsXml([['rIdPic', 'image', '../media/image1.png']]),
        },
        ...Array.from({ length: pictureRepeats - 1 }, (_, i) => [
          { name: `ppt/slides/slide${i + 2}.xml`, alias: 'ppt/slides/slide1.xml' },
          { name: `ppt/slides/_rels/slide${i + 2}.xml.rels`, alias: 'ppt/slides/_rels/slide1.xml.rels' },
        ]).flat(),
      ]),
  },
  {
    name: 'pptx-layout-cycle',
    filename: 'layout-cycle.pptx',
    attack: "a slide whose layout's master is the layout, and 10,000 slides naming one part",
    build: () =>
      opc(
        'pptx',
        `<p:presentation xmlns:p="${NS.p}" xmlns:r="${NS.r}"><p:sldIdLst>${Array.from({ length: 10_000 }, (_, i) => `<p:sldId id="${256 + i}" r:id="rIdS"/>`).join('')}</p:sldIdLst></p:presentation>`,
        [['rIdS', 'slide', 'slides/slide1.xml']],
        [
          { name: 'ppt/slides/slide1.xml', data: slideXml(textShape('cycle')) },
          {
            name: 'ppt/slides/_rels/slide1.xml.rels',
            data: relsXml([['rIdL', 'slideLayout', '../slideLayouts/l.xml']]),
          },
          {
            name: 'ppt/slideLayouts/l.xml',
            data: slideXml('').replaceAll('p:sld ', 'p:sldLayout ').replace('</p:sld>', '</p:sldLayout>'),
          },
          {
            name: 'ppt/slideLayouts/_rels/l.xml.rels',
            data: relsXml([
              ['rIdM', 'slideMaster', 'l.xml'],
              ['rIdL2', 'slideLayout', 'l.xml'],
            ]),
          },
        ],
      ),
  },
  {
    name: 'pptx-truncated',
    filename: 'truncated.pptx',
    attack: 'the first half of a deck',
    build: () =>
      truncated(
        pptx(
          20,
          Array.from({ length: 20 }, (_, i) => ({
            name: `ppt/slides/slide${i + 1}.xml`,
            data: slideXml(textShape(`slide ${i} `.repeat(200))),
          })),
        ),
      ),
  },
];

export const ooxmlCases: HostileCase[] = [...docxCases, ...xlsxCases, ...pptxCases];
