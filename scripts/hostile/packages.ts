import { bigPicture, billionLaughs, type HostileCase, nested, pictureRepeats, truncated } from './case.ts';
import { deflatedFill, overlapping, type PackageEntry, writeZip } from './zip.ts';

// Hostile OpenDocument (ODT, ODS, ODP) and EPUB packages.

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" ' +
  'xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"';

const odfKinds = {
  odt: ['text', 'application/vnd.oasis.opendocument.text'],
  ods: ['spreadsheet', 'application/vnd.oasis.opendocument.spreadsheet'],
  odp: ['presentation', 'application/vnd.oasis.opendocument.presentation'],
} as const;

const contentOpen = (kind: keyof typeof odfKinds, prolog = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>${prolog}<office:document-content ${ODF_NS}><office:body><office:${odfKinds[kind][0]}>`;
const contentClose = (kind: keyof typeof odfKinds) =>
  `</office:${odfKinds[kind][0]}></office:body></office:document-content>`;

/** An OpenDocument package: its mimetype, content.xml around `body` (or given whole), more parts. */
function odf(
  kind: keyof typeof odfKinds,
  body: string | PackageEntry,
  parts: readonly PackageEntry[] = [],
  prolog = '',
): Buffer {
  return writeZip([
    { name: 'mimetype', data: odfKinds[kind][1], store: true },
    // SheetJS, which reads ODS, knows an OpenDocument package by its manifest.
    {
      name: 'META-INF/manifest.xml',
      data: `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="${odfKinds[kind][1]}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    },
    typeof body === 'string'
      ? { name: 'content.xml', data: contentOpen(kind, prolog) + body + contentClose(kind) }
      : body,
    ...parts,
    // SheetJS also insists on styles.xml; where a case brings its own, the reader takes that (the first).
    { name: 'styles.xml', data: `<office:document-styles ${ODF_NS}/>` },
  ]);
}

const p = (t: string) => `<text:p>${t}</text:p>`;
const frame = (href: string) =>
  `<draw:frame draw:name="pic"><draw:image xlink:href="${href}"/><svg:desc xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0">repeated picture</svg:desc></draw:frame>`;
const page = (inner: string, i: number) => `<draw:page draw:name="page${i}">${inner}</draw:page>`;

const odfCases: HostileCase[] = [
  {
    name: 'odt-zip-bomb',
    filename: 'zip-bomb.odt',
    attack: 'content.xml inflates to 600 MiB of spaces',
    build: () =>
      odf('odt', {
        name: 'content.xml',
        deflated: deflatedFill(contentOpen('odt'), 0x20, 600, contentClose('odt')),
      }),
  },
  {
    name: 'odt-billion-laughs',
    filename: 'laughs.odt',
    attack: 'entity expansion in content.xml',
    build: () => odf('odt', p('&lol10;'), [], billionLaughs('office:document-content')),
  },
  {
    name: 'odt-deep-sections',
    filename: 'deep.odt',
    attack: '100,000 nested sections',
    build: () => odf('odt', nested('<text:section>', '</text:section>', 100_000, p('deep'))),
  },
  {
    name: 'odt-repeated-table',
    filename: 'repeated-table.odt',
    attack: 'a table row repeated a million times, of a cell repeated 16,384 times',
    build: () =>
      odf(
        'odt',
        '<table:table><table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384">' +
          `${p('x')}</table:table-cell></table:table-row></table:table>${p('after the table')}`,
      ),
    cut: true,
  },
  {
    name: 'odt-style-cycle',
    filename: 'style-cycle.odt',
    attack: 'paragraph styles whose parents form a cycle, and a list style naming itself',
    build: () =>
      odf(
        'odt',
        '<text:list text:style-name="L"><text:list-item>' +
          `${'<text:p text:style-name="A">cyclic</text:p>'.repeat(1000)}</text:list-item></text:list>`,
        [
          {
            name: 'styles.xml',
            data:
              `<office:document-styles ${ODF_NS}><office:styles>` +
              '<style:style style:name="A" style:family="paragraph" style:parent-style-name="B" style:list-style-name="L"/>' +
              '<style:style style:name="B" style:family="paragraph" style:parent-style-name="A"/>' +
              '<text:list-style style:name="L" style:parent-style-name="L"/></office:styles></office:document-styles>',
          },
        ],
      ),
  },
  {
    name: 'ods-repeated-sheet',
    filename: 'repeated.ods',
    attack: 'a sheet claiming 1,048,576 rows x 16,384 columns of one value',
    build: () =>
      odf(
        'ods',
        '<table:table table:name="S"><table:table-row table:number-rows-repeated="1048576">' +
          `<table:table-cell table:number-columns-repeated="16384" office:value-type="string">${p('v')}</table:table-cell></table:table-row></table:table>`,
      ),
    cut: true,
  },
  {
    name: 'ods-many-sheets',
    filename: 'many-sheets.ods',
    attack: '20,000 sheets each repeating a row of 1,000 cells a thousand times',
    build: () =>
      odf(
        'ods',
        '<table:table table:name="S"><table:table-row table:number-rows-repeated="1000">' +
          `<table:table-cell table:number-columns-repeated="1000" office:value-type="float" office:value="1">${p('1')}</table:table-cell></table:table-row></table:table>`.repeat(
            20_000,
          ),
      ),
    cut: true,
  },
  {
    name: 'ods-number-style-digits',
    filename: 'number-style-digits.ods',
    attack: 'a number style asking for 99,999,999,999 digits (held a worker 25-47 s before a fix)',
    build: () =>
      odf(
        'ods',
        `<table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1" table:style-name="ce1">${p('1')}</table:table-cell></table:table-row></table:table>`,
        [
          {
            name: 'styles.xml',
            data:
              `<office:document-styles ${ODF_NS}><office:styles><number:number-style style:name="N0">` +
              '<number:number number:min-integer-digits="99999999999" number:decimal-places="99999999999"/>' +
              '</number:number-style></office:styles></office:document-styles>',
          },
        ],
      ),
  },
  {
    name: 'odp-deep-groups',
    filename: 'deep-groups.odp',
    attack: 'drawing groups nested 100,000 deep',
    build: () =>
      odf(
        'odp',
        page(
          nested(
            '<draw:g>',
            '</draw:g>',
            100_000,
            `<draw:frame><draw:text-box>${p('deep')}</draw:text-box></draw:frame>`,
          ),
          1,
        ),
      ),
  },
  {
    name: 'odp-repeated-picture',
    filename: 'repeated-picture.odp',
    attack: `one 8 MB picture on ${pictureRepeats} pages`,
    build: () =>
      odf(
        'odp',
        Array.from({ length: pictureRepeats }, (_, i) => page(frame('Pictures/big.png'), i)).join(''),
        [{ name: 'Pictures/big.png', data: bigPicture() }],
      ),
  },
  {
    name: 'odt-truncated',
    filename: 'truncated.odt',
    attack: 'the first half of a document',
    build: () => truncated(odf('odt', p('some text to cut ').repeat(3000))),
  },
];

// ------------------------------------------------------------------ EPUB

interface BookSpec {
  /** Chapter bodies; chapter i is OEBPS/c{i}.xhtml. */
  chapters?: readonly string[];
  /** Raw package entries for the chapters instead (bombs, aliases). */
  chapterEntries?: readonly PackageEntry[];
  chapterCount?: number;
  /** Spine override (itemref elements). */
  spine?: string;
  /** Extra manifest items and entries. */
  manifest?: string;
  files?: readonly PackageEntry[];
  opfProlog?: string;
  /** Where the container says the package document is. */
  rootfile?: string;
}

const xhtml = (body: string) =>
  `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title></head><body>${body}</body></html>`;

function epub(spec: BookSpec): Buffer {
  const count = spec.chapterCount ?? spec.chapters?.length ?? 0;
  const items = Array.from(
    { length: count },
    (_, i) => `<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`,
  );
  const spine = spec.spine ?? Array.from({ length: count }, (_, i) => `<itemref idref="c${i}"/>`).join('');
  return writeZip([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data:
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">' +
        `<rootfiles><rootfile full-path="${spec.rootfile ?? 'OEBPS/content.opf'}" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    },
    {
      name: 'OEBPS/content.opf',
      data:
        `<?xml version="1.0"?>${spec.opfProlog ?? ''}<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">` +
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">hostile</dc:identifier><dc:title>Hostile</dc:title></metadata>' +
        `<manifest>${items.join('')}${spec.manifest ?? ''}</manifest><spine>${spine}</spine></package>`,
    },
    ...(spec.chapters ?? []).map((body, i) => ({ name: `OEBPS/c${i}.xhtml`, data: xhtml(body) })),
    ...(spec.chapterEntries ?? []),
    ...(spec.files ?? []),
  ]);
}

const epubCases: HostileCase[] = [
  {
    name: 'epub-repeated-picture',
    filename: 'repeated-picture.epub',
    attack: `${pictureRepeats} chapters each showing one 8 MB picture`,
    build: () =>
      epub({
        chapters: Array.from(
          { length: pictureRepeats },
          (_, i) => `<h1>Chapter ${i}</h1><p><img src="big.png" alt="repeated picture"/></p>`,
        ),
        manifest: '<item id="img" href="big.png" media-type="image/png"/>',
        files: [{ name: 'OEBPS/big.png', data: bigPicture() }],
      }),
  },
  {
    name: 'epub-overlap-bomb',
    filename: 'overlap-bomb.epub',
    attack: '40 chapters that are one 20 MiB compressed kernel under 40 names',
    build: () =>
      epub({
        chapterCount: 40,
        chapterEntries: overlapping(
          Array.from({ length: 40 }, (_, i) => `OEBPS/c${i}.xhtml`),
          deflatedFill(xhtml('').replace('</body></html>', ''), 0x20, 20, '</body></html>'),
        ),
      }),
  },
  {
    name: 'epub-spine-loop',
    filename: 'spine-loop.epub',
    attack: 'a spine listing one chapter 100,000 times',
    build: () =>
      epub({
        chapters: [`<p>${'once more '.repeat(100)}</p>`],
        spine: '<itemref idref="c0"/>'.repeat(100_000),
      }),
  },
  {
    name: 'epub-self-referencing',
    filename: 'self-referencing.epub',
    attack: 'the package document listed as its own chapter, chapters linking to each other in a cycle',
    build: () =>
      epub({
        chapters: ['<p><a href="c1.xhtml#x">next</a></p>', '<p id="x"><a href="c0.xhtml">back</a></p>'],
        manifest: '<item id="self" href="content.opf" media-type="application/xhtml+xml"/>',
        spine: '<itemref idref="self"/><itemref idref="c0"/><itemref idref="c1"/><itemref idref="self"/>',
      }),
  },
  {
    name: 'epub-billion-laughs',
    filename: 'laughs.epub',
    attack: 'entity expansion in the package document',
    build: () => epub({ chapters: ['<p>x</p>'], opfProlog: billionLaughs('package') }),
  },
  {
    name: 'epub-deep-chapter',
    filename: 'deep.epub',
    attack: 'a chapter nesting 200,000 elements',
    build: () => epub({ chapters: [nested('<div>', '</div>', 200_000, '<p>deep</p>')] }),
  },
  {
    name: 'epub-truncated',
    filename: 'truncated.epub',
    attack: 'the first half of a book',
    build: () =>
      truncated(
        epub({ chapters: Array.from({ length: 20 }, (_, i) => `<p>${`chapter ${i} `.repeat(300)}</p>`) }),
      ),
  },
];

export const packageCases: HostileCase[] = [...odfCases, ...epubCases];
