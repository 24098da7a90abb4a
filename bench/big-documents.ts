import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { zip } from '../test/helpers/zip.ts';
import { repoRoot } from './corpus.ts';
import { fmtMb, fmtMs, fmtRatio, table } from './format.ts';
import { ratio } from './stats.ts';

const execFileAsync = promisify(execFile);

/**
 * Big documents, built here deterministically: what the corpus lacks. Each is converted once
 * per tool in a fresh process (bench/convert-file.ts), Quire with the conversion worker's
 * default heap limit, so that peak RSS and time are the document's own.
 */
interface BigDocument {
  name: string;
  format: string;
  what: string;
  build(): Uint8Array;
}

/** Deterministic pseudo-random words, so every run converts the same bytes. */
function words(seed: number): () => string {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  return () => {
    let w = '';
    const n = 2 + Math.floor(next() * 8);
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(next() * 26));
    return w;
  };
}

function sentence(word: () => string, n: number): string {
  return Array.from({ length: n }, word).join(' ');
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** Paragraphs, headings, bold runs and small tables, `mib` MiB of document.xml. */
function docxBody(mib: number, word: () => string, extra: (i: number) => string = () => ''): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < mib * 1024 * 1024; i++) {
    let block: string;
    if (i % 50 === 0) {
      block = `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Section ${i} ${word()}</w:t></w:r></w:p>`;
    } else if (i % 17 === 0) {
      const cell = () => `<w:tc><w:p><w:r><w:t>${word()}</w:t></w:r></w:p></w:tc>`;
      block = `<w:tbl><w:tr>${cell()}${cell()}${cell()}</w:tr><w:tr>${cell()}${cell()}${cell()}</w:tr></w:tbl>`;
    } else {
      block =
        `<w:p><w:r><w:t xml:space="preserve">${sentence(word, 12)} </w:t></w:r>` +
        `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${sentence(word, 4)} </w:t></w:r>` +
        `<w:r><w:t>${sentence(word, 12)}</w:t></w:r></w:p>`;
    }
    block += extra(i);
    parts.push(block);
    size += block.length;
  }
  return parts.join('');
}

function docxPackage(body: string, media: { name: string; bytes: Uint8Array }[] = []): Uint8Array {
  const rels = media
    .map(
      (m, i) =>
        `<Relationship Id="rIdImg${i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/${m.name}"/>`,
    )
    .join('');
  return zip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="png" ContentType="image/png"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data:
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    },
    {
      name: 'word/_rels/document.xml.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><w:body>${body}</w:body></w:document>`,
    },
    ...media.map((m) => ({ name: `word/media/${m.name}`, data: m.bytes, store: true })),
  ]);
}

/** Incompressible bytes behind a PNG signature: as heavy as a photo, for size and memory. */
function fakePng(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    bytes[i] = state >>> 24;
  }
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

function inlinePicture(i: number): string {
  return (
    `<w:p><w:r><w:drawing><wp:inline><wp:docPr id="${i + 1}" name="Picture ${i}" descr="Figure ${i}"/>` +
    `<a:graphic><a:graphicData><pic:pic><pic:blipFill><a:blip r:embed="rIdImg${i}"/></pic:blipFill></pic:pic></a:graphicData></a:graphic>` +
    '</wp:inline></w:drawing></w:r></w:p>'
  );
}

function rtfDocument(mib: number, word: () => string): Uint8Array {
  const parts: string[] = ['{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}'];
  let size = 0;
  for (let i = 0; size < mib * 1024 * 1024; i++) {
    const block =
      i % 40 === 0
        ? `{\\pard\\outlinelevel0\\b Chapter ${i} ${word()}\\par}\n`
        : `{\\pard ${sentence(word, 10)} {\\i ${sentence(word, 3)}} caf\\'e9 \\u8364? ${sentence(word, 10)}\\par}\n`;
    parts.push(block);
    size += block.length;
  }
  parts.push('}');
  return Buffer.from(parts.join(''), 'latin1');
}

const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

/** A column name from its 0-based index: 0 → A, 26 → AA. */
function columnName(c: number): string {
  let name = '';
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/**
 * A workbook of `rows` × `columns` cells as Excel writes one: a header row, then per row a
 * shared-string name (a pool of 50,000 distinct strings), an integer, a date, a percentage,
 * a currency amount and plain decimals, all through styles with number formats.
 */
function xlsxWorkbook(rows: number, columns: number, word: () => string): Uint8Array {
  const pool = Array.from({ length: 50_000 }, () => `${word()} ${word()}`);
  const styleOf = ['', '', ' s="1"', ' s="2"', ' s="3"'];
  const sheet: string[] = [
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="${S}" xmlns:r="${R}">`,
    `<dimension ref="A1:${columnName(columns - 1)}${rows}"/><sheetData>`,
  ];
  const header = Array.from(
    { length: columns },
    (_, c) => `<c r="${columnName(c)}1" t="inlineStr"><is><t>Column ${c + 1}</t></is></c>`,
  );
  sheet.push(`<row r="1">${header.join('')}</row>`);
  for (let r = 2; r <= rows; r++) {
    let row = `<row r="${r}">`;
    for (let c = 0; c < columns; c++) {
      const ref = `${columnName(c)}${r}`;
      const kind = c % 5;
      if (kind === 0) row += `<c r="${ref}" t="s"><v>${(r * 7 + c) % pool.length}</v></c>`;
      else if (kind === 1) row += `<c r="${ref}"><v>${r * 3 + c}</v></c>`;
      else if (kind === 2) row += `<c r="${ref}"${styleOf[2]}><v>${36526 + ((r + c) % 9000)}</v></c>`;
      else if (kind === 3) row += `<c r="${ref}"${styleOf[3]}><v>${((r * c) % 1000) / 1000}</v></c>`;
      else row += `<c r="${ref}"${styleOf[4]}><v>${(r * 12.345 + c).toFixed(2)}</v></c>`;
    }
    sheet.push(`${row}</row>`);
  }
  sheet.push('</sheetData></worksheet>');
  const sst =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${S}" count="${pool.length}" uniqueCount="${pool.length}">` +
    pool.map((t) => `<si><t>${t}</t></si>`).join('') +
    '</sst>';
  const styles =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="${S}">` +
    '<numFmts count="1"><numFmt numFmtId="164" formatCode="&quot;$&quot;#,##0.00"/></numFmts>' +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
    '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>' +
    '<borders count="1"><border/></borders>' +
    '<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>' +
    '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="10" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/></cellXfs></styleSheet>';
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  const override = (part: string, type: string) =>
    `<Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.${type}+xml"/>`;
  return zip([
    {
      name: '[Content_Types].xml',
      data:
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        override('/xl/workbook.xml', 'sheet.main') +
        override('/xl/worksheets/sheet1.xml', 'worksheet') +
        override('/xl/sharedStrings.xml', 'sharedStrings') +
        override('/xl/styles.xml', 'styles') +
        '</Types>',
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0"?><workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data:
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        rel('rId1', 'worksheet', 'worksheets/sheet1.xml') +
        rel('rId2', 'sharedStrings', 'sharedStrings.xml') +
        rel('rId3', 'styles', 'styles.xml') +
        '</Relationships>',
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheet.join('') },
    { name: 'xl/sharedStrings.xml', data: sst },
    { name: 'xl/styles.xml', data: styles },
  ]);
}

export const bigDocuments: readonly BigDocument[] = [
  {
    name: 'text-25mib.docx',
    format: 'docx',
    what: 'DOCX, 25 MiB of document.xml: paragraphs, headings, bold runs, small tables',
    build: () => docxPackage(docxBody(25, words(1))),
  },
  {
    name: 'pictures-45mb.docx',
    format: 'docx',
    what: 'DOCX, 45 MB: 40 embedded 1 MiB pictures among 5 MiB of text',
    build: () => {
      const media = Array.from({ length: 40 }, (_, i) => ({
        name: `image${i}.png`,
        bytes: fakePng(1024 * 1024, i + 1),
      }));
      return docxPackage(
        docxBody(5, words(2), (i) => (i % 40 === 1 && i / 40 < 40 ? inlinePicture(Math.floor(i / 40)) : '')),
        media,
      );
    },
  },
  {
    name: 'text-20mib.rtf',
    format: 'rtf',
    what: 'RTF, 20 MiB: paragraphs with italics, escapes and Unicode, outline-level headings',
    build: () => rtfDocument(20, words(3)),
  },
  {
    name: 'cells-1m.xlsx',
    format: 'xlsx',
    what: 'XLSX, 1,000,000 cells (100,000 rows × 10 columns): shared strings, numbers, dates, percentages, currency',
    build: () => xlsxWorkbook(100_000, 10, words(4)),
  },
];

export interface BigResult {
  doc: BigDocument;
  bytes: number;
  runs: Record<
    'quire' | 'anydoc',
    { ms: number; peakRssMb: number; markdownChars: number } | { error: string }
  >;
}

const workerHeapMb = 1536;

async function convertOnce(
  tool: 'quire' | 'anydoc',
  file: string,
  format: string,
): Promise<BigResult['runs']['quire']> {
  const args = tool === 'quire' ? [`--max-old-space-size=${workerHeapMb}`] : [];
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      [...args, path.join(repoRoot, 'bench/convert-file.ts'), tool, file, format],
      { maxBuffer: 1 << 20, timeout: 300_000 },
    );
    return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? err);
    return { error: (stderr.match(/Error[^\n]*/)?.[0] ?? stderr).slice(0, 300) };
  }
}

/** Converts the big documents (those of `formats` only, when given) with Quire and anydoc. */
export async function runBigDocuments(
  dir: string,
  log: (line: string) => void,
  formats?: ReadonlySet<string>,
): Promise<BigResult[]> {
  fs.mkdirSync(dir, { recursive: true });
  const results: BigResult[] = [];
  for (const doc of bigDocuments) {
    if (formats && !formats.has(doc.format)) continue;
    const file = path.join(dir, doc.name);
    const bytes = doc.build();
    fs.writeFileSync(file, bytes);
    const quire = await convertOnce('quire', file, doc.format);
    const anydoc = await convertOnce('anydoc', file, doc.format);
    const show = (r: BigResult['runs']['quire']) =>
      'error' in r ? `error ${r.error}` : `${fmtMs(r.ms)} ms, ${fmtMb(r.peakRssMb * 1024)} MB`;
    log(`  ${doc.name}: quire ${show(quire)}; anydoc ${show(anydoc)}`);
    results.push({ doc, bytes: bytes.length, runs: { quire, anydoc } });
  }
  return results;
}

export function bigDocumentsSection(results: readonly BigResult[]): string[] {
  const cell = (r: BigResult['runs']['quire'], pick: 'ms' | 'peakRssMb') =>
    'error' in r ? 'failed' : pick === 'ms' ? fmtMs(r.ms) : fmtMb(r.peakRssMb * 1024);
  const rel = (a: BigResult['runs']['quire'], b: BigResult['runs']['quire'], pick: 'ms' | 'peakRssMb') =>
    'error' in a || 'error' in b ? 'n/a' : fmtRatio(ratio(a[pick], b[pick]));
  const rows = results.map((r) => [
    `${r.doc.what} (${(r.bytes / 1e6).toFixed(1)} MB file)`,
    cell(r.runs.quire, 'ms'),
    cell(r.runs.anydoc, 'ms'),
    rel(r.runs.quire, r.runs.anydoc, 'ms'),
    cell(r.runs.quire, 'peakRssMb'),
    cell(r.runs.anydoc, 'peakRssMb'),
    rel(r.runs.quire, r.runs.anydoc, 'peakRssMb'),
  ]);
  const failures = results.flatMap((r) =>
    (['quire', 'anydoc'] as const).flatMap((t) => {
      const run = r.runs[t];
      return 'error' in run ? [`- ${t}, ${r.doc.name}: ${run.error}`] : [];
    }),
  );
  return [
    '## Big documents',
    '',
    'Synthetic documents built by bench/big-documents.ts (deterministic), each converted once per tool in a fresh ' +
      `process (bench/convert-file.ts) to Markdown: Quire's whole pipeline with the conversion worker's default heap ` +
      `limit (${workerHeapMb} MB), anydoc's \`toMarkdownBytes\`. Each process loads only its own tool's modules. ` +
      'Both times are the conversion alone, timed inside the process after its modules have loaded; peak RSS is ' +
      "the process's own, start-up included.",
    '',
    table(
      [
        'document',
        'Quire ms',
        'anydoc ms',
        'Quire ms / anydoc ms (both: first conversion in a fresh process, after module load)',
        'Quire peak RSS MB',
        'anydoc peak RSS MB',
        'Quire RSS / anydoc RSS (both whole processes)',
      ],
      rows,
    ),
    '',
    ...(failures.length > 0 ? ['Failures:', '', ...failures, ''] : []),
  ];
}
