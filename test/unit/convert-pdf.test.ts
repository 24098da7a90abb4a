import '../helpers/pdf-threads.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { ConversionError } from '../../src/convert/converter.ts';
import { ApiError } from '../../src/errors.ts';
import { convert } from '../helpers/convert.ts';
import { buildPdf, onePage, pagesOf, stream } from '../helpers/pdf.ts';
import { corpusFile } from '../helpers/server.ts';

/**
 * The PDF converter in the test's process (validate, detect, parseDocument), on real PDFs from
 * the shared corpus and on pages drawn here, asserting on what they say. What the HTTP layer and
 * the pool add (status codes, the envelope, the memory watchdog) is test/http/parse-pdf.test.ts.
 */
describe('PDF', () => {
  function call(file: string, options: Record<string, unknown> = {}) {
    return convert(corpusFile(`pdf/${file}`), options);
  }

  /** 10-point Helvetica text at (x, y), for pages drawn by the tests. */
  const text = (x: number, y: number, s: string) => `BT /F1 10 Tf ${x} ${y} Td (${s}) Tj ET`;
  /** A row of cells' texts at the columns' x positions. */
  const textRow = (xs: readonly number[], y: number, cells: readonly string[]) =>
    cells.map((cell, i) => text(xs[i]!, y, cell)).join(' ');

  /** The Markdown of a one-page PDF drawing `content` (with `text`'s font). */
  async function markdownOfPage(content: string, filename: string): Promise<string> {
    const pdf = onePage(
      content,
      '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> >> >>',
    );
    return (await convert({ bytes: pdf, filename })).markdown!;
  }

  /** Each text is in `md`, each after the one before. */
  function assertInOrder(md: string, texts: readonly string[]): void {
    const at = texts.map((text) => md.indexOf(text));
    assert.ok(
      at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!)),
      `${JSON.stringify(at)}\n${md.slice(0, 2000)}`,
    );
  }

  it('extracts text with headings, joined paragraphs and page counts', async () => {
    const data = await call('text/mid-test.pdf');
    assert.equal(data.metadata.contentType, 'application/pdf');
    assert.equal(data.metadata.numPages, 1);
    assert.equal(data.metadata.totalPages, 1);
    assert.deepEqual(data.usage, { pages: 1, ocrPages: 0 });
    const md = data.markdown!;
    assert.match(md, /^## 1 Introduction$/m);
    assert.match(md, /While there is contemporaneous exploration of multi-agent approaches/);
    // Lines of one paragraph are joined, not broken where the page wrapped them.
    assert.match(md, /building block in developing powerful agents that utilize LLMs for reasoning/);
  });

  it('honours maxPages: numPages is what was parsed, totalPages the true count', async () => {
    const data = await call('big/pjs-freeculture-352p.pdf', {
      parsers: [{ type: 'pdf', mode: 'fast', maxPages: 10 }],
    });
    assert.equal(data.metadata.numPages, 10);
    assert.equal(data.metadata.totalPages, 352);
    assert.equal(data.usage.pages, 10);
    assert.match(data.warning!, /Only the first 10 of 352 pages were parsed/);
    const md = data.markdown!;
    assert.match(md, /Rebuilding Freedoms Previously Presumed:/);
    assert.doesNotMatch(md, /care about the Internet, and whether you’re on Safire’s left or on his right/);
  });

  it('reads 64 pages of a 352-page book in order, on two threads, without its running heads', async () => {
    // A fixed sample of the book: the whole of it is the bench's (bench/pdf.ts checks the same
    // of all 352 pages). 64 pages are past the two-thread threshold (60), so the helper thread
    // reads pages from the back while this one reads from the front.
    const data = await call('big/pjs-freeculture-352p.pdf', {
      parsers: [{ type: 'pdf', mode: 'fast', maxPages: 64 }],
    });
    assert.equal(data.metadata.numPages, 64);
    assert.equal(data.metadata.totalPages, 352);
    // The cap is the only thing said: no page failed.
    assert.equal(data.warning, 'Only the first 64 of 352 pages were parsed (maxPages).');
    const md = data.markdown!;
    // From the front matter, page 31, page 62 and the sample's last page, in that order.
    assertInOrder(md, [
      'Rebuilding Freedoms Previously Presumed:',
      'Since the inception of the law regulating creative property, there has been a war against “piracy.”',
      'In the fall of 2002, Jesse Jordan of Oceanside, New York',
      'But the RIAA branded Jesse a pirate.',
    ]);
    // The printer's slug atop each page ("14773_01_1-174_r9jm.qxd 2/10/04 3:51 PM Page 15")
    // is a running header: none of its copies on these pages is left in the text.
    assert.doesNotMatch(md, /r9jm\.qxd/);
  });

  it('OCRs only the pages within maxPages of a scanned document', async () => {
    const data = await call('scanned/scan-doc-multi_page.pdf', {
      parsers: [{ type: 'pdf', mode: 'auto', maxPages: 2 }],
    });
    assert.equal(data.metadata.numPages, 2);
    assert.equal(data.metadata.totalPages, 5);
    assert.deepEqual(data.usage, { pages: 2, ocrPages: 2 });
    const md = data.markdown!;
    assert.match(md, /The Evolution of the Word Processor/);
    assert.match(md, /The Modern Era/);
    assert.doesNotMatch(md, /Specialized Word Processing Tools/);
  });

  it('puts headings of one style on a scan at one level', async () => {
    // The scan's two section titles share a style (the reference makes both "##"); Tesseract's
    // whole-pixel x-height read them a pixel apart, which made two heading levels.
    const md = (await call('scanned/scan-doc-code_and_formula.pdf')).markdown!;
    const level = (title: string) => new RegExp(`^(#+) ${title}\\s*$`, 'm').exec(md)?.[1]?.length;
    assert.ok(level('JavaScript Code Example'), md);
    assert.equal(level('JavaScript Code Example'), level('Formula'), md);
  });

  it('keeps a heading whole above a bulleted list whose bullets are runs of their own', async () => {
    // Each bullet is drawn apart from its item (as OCR reads them, and some producers write
    // them): six bullet edges and six item starts side by side looked like a column gutter, and
    // the heading's word gap over it split the heading in two.
    const items = [
      'Drafts kept',
      'Styles applied',
      'Pages laid out',
      'Spelling checked',
      'Copies printed',
      'Files shared',
    ];
    const list = items
      .map((item, i) => {
        const y = 670 - i * 16;
        return `BT /F1 12 Tf 100 ${y} Td (\\225) Tj ET BT /F1 12 Tf 112 ${y} Td (${item}) Tj ET`;
      })
      .join(' ');
    const md = await markdownOfPage(
      `BT /F1 16 Tf 64 700 Td (Word) Tj ET BT /F1 16 Tf 113 700 Td (Processors in a Post-Digital Era) Tj ET ${list}`,
      'list.pdf',
    );
    assert.match(md, /^#+ Word Processors in a Post-Digital Era$/m, md);
    assert.match(md, /^- Drafts kept$/m, md);
  });

  it('reads a font whose ToUnicode map claims millions of codes at once, without the bogus map', async () => {
    // One range of 16.7 million codes, just under pdf.js's own limit: a flipped bit in a real
    // file made one, and building it took 11 s of CPU. Past limits.pdfCMapEntries it is skipped,
    // and the font's own encoding reads the text: read through the map, every code would come
    // out shifted to "A" onwards, so the right words say the map was not used.
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '1 begincodespacerange <00000000> <FFFFFFFF> endcodespacerange',
      '1 beginbfrange <00000000> <00FFFFFD> <0041> endbfrange',
      'endcmap CMapName currentdict /CMap defineresource pop end end',
    ].join('\n');
    const pdf = onePage(
      'BT /F1 24 Tf 72 700 Td (Quarterly figures follow) Tj ET',
      '<< /Font << /F1 4 0 R >> >>',
      ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 5 0 R >>', stream('', cmap)],
    );
    for (const mode of ['fast', 'auto']) {
      const data = await convert(
        { bytes: pdf, filename: 'huge-tounicode.pdf' },
        { parsers: [{ type: 'pdf', mode }] },
      );
      assert.match(data.markdown!, /Quarterly figures follow/, mode);
    }
  });

  it('OCRs every page in ocr mode, reading what is drawn rather than the text layer', async () => {
    // Large visible words, and an invisible text line (render mode 3) that only the text layer has.
    const pdf = onePage(
      'BT /F1 36 Tf 72 600 Td (Plainly visible words) Tj ET BT 3 Tr /F1 14 Tf 72 400 Td (secret invisible layer) Tj ET',
      '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>',
    );
    const send = (mode: string) =>
      convert({ bytes: pdf, filename: 'layers.pdf' }, { parsers: [{ type: 'pdf', mode }] });
    const ocr = await send('ocr');
    assert.match(ocr.markdown!, /Plainly visible words/);
    assert.doesNotMatch(ocr.markdown!, /secret invisible layer/);
    assert.deepEqual(ocr.usage, { pages: 1, ocrPages: 1 });
    const fast = await send('fast');
    assert.match(fast.markdown!, /secret invisible layer/);
    assert.deepEqual(fast.usage, { pages: 1, ocrPages: 0 });
  });

  it('keeps a ruled table with merged cells as a table', async () => {
    const md = (await call('tables/tab-spanning_cells.pdf')).markdown!;
    assert.match(md, /<th colspan="6">Improved operation scenario<\/th>/);
    assert.match(
      md,
      /<tr><td>Server closets<\/td><td>1,505<\/td><td>1,580<\/td><td>1,643<\/td><td>1,673<\/td><td>1,689<\/td><\/tr>/,
    );
  });

  it('reads the caption and notes ruled into a table frame as text around the table', async () => {
    // A frame from y 580 to 740: the caption row, the header, three rows, a note and a source,
    // 20 points each; the column rules run only through the header and the rows.
    const rows: [string, string, string][] = [
      ['Region', 'Schools', 'Share'],
      ['North', '469', '34%'],
      ['South', '918', '3%'],
      ['East', '233', '11%'],
    ];
    const content = [
      '0.5 w',
      ...Array.from({ length: 9 }, (_, k) => `72 ${580 + k * 20} m 540 ${580 + k * 20} l S`),
      '72 580 m 72 740 l S 540 580 m 540 740 l S',
      '300 640 m 300 720 l S 420 640 m 420 720 l S',
      text(76, 726, 'Exhibit 4 Schools by region, 2006-07'),
      ...rows.map((row, k) => textRow([76, 304, 424], 706 - k * 20, row)),
      text(76, 626, 'Exhibit reads: 469 schools of the North region were counted.'),
      text(76, 606, 'Note: Schools that closed during the year are left out.'),
      text(76, 586, 'Source: Principal surveys.'),
    ].join(' ');
    const md = await markdownOfPage(content, 'framed.pdf');
    const table = md.split('\n\n').find((block) => block.startsWith('|')) ?? '';
    assert.match(table, /^\| Region \| Schools \| Share \|\n\| - \| - \| - \|$/m, md);
    assert.match(table, /^\| East \| 233 \| 11% \|$/m, md);
    assert.doesNotMatch(table, /Exhibit|Note|Source/, md);
    assertInOrder(md, [
      'Exhibit 4 Schools by region',
      '| Region |',
      'Exhibit reads: 469 schools',
      'Note: Schools that closed',
      'Source: Principal surveys.',
    ]);
  });

  describe('a header ruled on two lines, under one stub cell spanning both', () => {
    // Columns at 72, 250, 350, 450 and 540, rows 20 points high from y 720 down; the rule
    // between the header's two lines stops short of the stub cell, which spans them both.
    // With a heading row over the three value columns first, the two lines sit under it.
    function headerTable(heading: boolean): string {
      const top = heading ? 740 : 720;
      return [
        '0.5 w',
        ...[top, 680, 660, 640, 620].map((y) => `72 ${y} m 540 ${y} l S`),
        '250 700 m 540 700 l S',
        heading ? '72 720 m 540 720 l S' : '',
        ...[72, 250, 540].map((x) => `${x} 620 m ${x} ${top} l S`),
        ...[350, 450].map((x) => `${x} 620 m ${x} 720 l S`),
        heading ? text(254, 726, 'Figures for the year') : '',
        textRow([254, 354, 454], 706, ['Launch:', '1 Year:', 'FY 2010']),
        textRow([254, 354, 454], 686, ['May 21, 2009', 'May 21, 2010', 'Sept. 30, 2011']),
        ...[
          ['Data sets', '47', '272,768', '389,933'],
          ['Downloads', '0', '652,412', '2,348,928'],
        ].map((row, k) => textRow([76, 254, 354, 454], 666 - k * 20, row)),
      ].join(' ');
    }
    const HEADER =
      '<td>Launch: May 21, 2009</td><td>1 Year: May 21, 2010</td><td>FY 2010 Sept. 30, 2011</td>';

    it('reads the two lines at the top as one header row', async () => {
      const md = await markdownOfPage(headerTable(false), 'two-line-header.pdf');
      assert.match(
        md,
        /^\| \| Launch: May 21, 2009 \| 1 Year: May 21, 2010 \| FY 2010 Sept\. 30, 2011 \|$/m,
        md,
      );
      assert.match(md, /^\| Data sets \| 47 \| 272,768 \| 389,933 \|$/m, md);
      assert.doesNotMatch(md, /<table/, md);
    });

    it('reads the two lines under a spanning heading as one row under it', async () => {
      const md = await markdownOfPage(headerTable(true), 'headed.pdf');
      assert.match(md, /<t[hd] colspan="3">Figures for the year<\/t[hd]>/, md);
      assert.ok(md.includes(`<tr><td></td>${HEADER}</tr>`), md);
      assert.match(md, /<tr><td>Data sets<\/td><td>47<\/td><td>272,768<\/td><td>389,933<\/td><\/tr>/, md);
    });
  });

  it('drops a ruled spacer strip between two groups of columns', async () => {
    // Columns at 72, 150, 300 | 310, 390, 540: the strip from 300 to 310 is ruled off in the
    // header only; below it, each right-hand code sits across the strip.
    const rows = [
      ['1', 'Alpha', '1a', 'Influence on the concept'],
      ['2', 'Beta', '2a', 'No influence on the concept'],
      ['3', 'Gamma', '3a', 'Other presentation issues'],
    ];
    const content = [
      '0.5 w',
      ...[720, 700, 680, 660, 640].map((y) => `72 ${y} m 540 ${y} l S`),
      ...[72, 150, 300, 390, 540].map((x) => `${x} 640 m ${x} 720 l S`),
      '310 700 m 310 720 l S',
      textRow([76, 154, 314, 394], 706, ['Code', 'Name', 'Code', 'Name']),
      ...rows.map((row, k) => textRow([76, 154, 304, 394], 686 - k * 20, row)),
    ].join(' ');
    const md = await markdownOfPage(content, 'spacer.pdf');
    assert.match(md, /^\| Code \| Name \| Code \| Name \|$/m, md);
    assert.match(md, /^\| 2 \| Beta \| 2a \| No influence on the concept \|$/m, md);
    assert.doesNotMatch(md, /<table/, md);
  });

  it('reads the columns of a two-column paper in order, and only its real table as a table', async () => {
    const md = (await call('multicolumn/pyp-latex-multicolumn.pdf')).markdown!;
    assertInOrder(md, [
      '## Abstract',
      'Nulla malesuada porttitor diam',
      'pellentesque ante. Phasellus',
      'Suspendisse vitae elit.',
    ]);
    assert.equal([...md.matchAll(/^\| - \|/gm)].length, 1, 'one table: the country table');
    assert.match(md, /^\| Country \| Population \(millions\) \|/m);
  });

  describe('borderless tables', () => {
    const fonts =
      '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> ' +
      '/F2 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >> >> >>';
    /** A page of 11-point lines, 13 points apart from the top; each piece is [x, font, text]. */
    function page(build: (line: (...pieces: [number, string, string][]) => void, skip: () => void) => void) {
      const shown: string[] = [];
      let y = 740;
      build(
        (...pieces) => {
          for (const [x, font, text] of pieces) shown.push(`BT /${font} 11 Tf ${x} ${y} Td (${text}) Tj ET`);
          y -= 13;
        },
        () => {
          y -= 13;
        },
      );
      return onePage(shown.join(' '), fonts);
    }
    const SENTENCE = 'Sponsors should describe the instruments used in the trial and the reasons why';
    const markdownOf = async (bytes: Uint8Array, filename: string) =>
      (await convert({ bytes, filename })).markdown!;
    const tablesOf = (md: string) => md.split('\n\n').filter((block) => block.startsWith('|'));

    it('keeps numbered headings and their paragraphs as text, not as a table', async () => {
      // A section number set apart from its title looks like two cells, and so does each
      // paragraph's short last line under it; the paragraph lines between them run across
      // that gap, which no table's rows do.
      const pdf = page((line, skip) => {
        const heading = (n: number, title: string) => {
          line([90, 'F2', `${n}.`], [126, 'F2', title]);
          skip();
        };
        const paragraph = (lines: number, last: string) => {
          for (let i = 0; i < lines; i++) line([72, 'F1', SENTENCE]);
          line([72, 'F1', last]);
          skip();
        };
        heading(5, 'Instrument Format and Training');
        paragraph(5, 'responses.');
        paragraph(3, 'administration.');
        heading(6, 'Patient Understanding');
        paragraph(8, 'help confirm content validity.');
        heading(7, 'Scoring of Items and Domains');
        paragraph(3, 'of the scale.');
      });
      const md = await markdownOf(pdf, 'sections.pdf');
      assert.doesNotMatch(md, /<table|^\|/m, md);
      // Every heading and every paragraph's last words, in the page's order.
      assertInOrder(md, [
        'Instrument Format and Training',
        'responses.',
        'administration.',
        'Patient Understanding',
        'help confirm content validity.',
        'Scoring of Items and Domains',
        'of the scale.',
      ]);
    });

    it('reads two tables split by a paragraph as two tables, the paragraph between them', async () => {
      const pdf = page((line) => {
        const row = (a: string, b: string, c: string) => line([72, 'F1', a], [250, 'F1', b], [400, 'F1', c]);
        row('Region', '2023', '2024');
        row('North', '120', '135');
        row('South', '98', '101');
        row('East', '77', '80');
        line([72, 'F1', 'The figures below count the units shipped to every region in the same two years.']);
        row('Product', 'Units', 'Price');
        row('Kettle', '1,204', '39.90');
        row('Toaster', '860', '24.50');
        row('Blender', '432', '59.00');
      });
      const md = await markdownOf(pdf, 'two-tables.pdf');
      const tables = tablesOf(md);
      assert.equal(tables.length, 2, md);
      assert.match(tables[0]!, /^\| Region \| 2023 \| 2024 \|$/m, md);
      assert.match(tables[0]!, /^\| East \| 77 \| 80 \|$/m, md);
      assert.doesNotMatch(tables[0]!, /Kettle/, md);
      assert.match(tables[1]!, /^\| Product \| Units \| Price \|$/m, md);
      assert.match(tables[1]!, /^\| Blender \| 432 \| 59.00 \|$/m, md);
      const between = md.indexOf('The figures below count the units');
      assert.ok(md.indexOf(tables[0]!) < between && between < md.indexOf(tables[1]!), md);
    });

    it('reads two tables stacked under the same heading as two, without the typed rule under it', async () => {
      const pdf = page((line) => {
        const row = (...cells: string[]) =>
          line(...cells.map((c, i): [number, string, string] => [72 + i * 90, 'F1', c]));
        for (const [from, values] of [
          ['1.0', ['800', '160', '80']],
          ['2.0', ['1,600', '320', '160']],
        ] as const) {
          line([250, 'F1', 'Design effect']);
          row('Proportion', from, `${from}5`, `${from}9`);
          line([160, 'F1', '--------------------------------------']);
          row('0.99', values[0], values[0], values[0]);
          row('0.95', values[1], values[1], values[1]);
          row('0.90', values[2], values[2], values[2]);
        }
      });
      const md = await markdownOf(pdf, 'stacked.pdf');
      const tables = tablesOf(md);
      assert.equal(tables.length, 2, md);
      assert.match(tables[0]!, /^\| Proportion \| 1\.0 \| 1\.05 \| 1\.09 \|$/m, md);
      assert.match(tables[0]!, /^\| 0\.90 \| 80 \| 80 \| 80 \|$/m, md);
      assert.match(tables[1]!, /^\| Proportion \| 2\.0 \| 2\.05 \| 2\.09 \|$/m, md);
      assert.match(tables[1]!, /^\| 0\.99 \| 1,600 \| 1,600 \| 1,600 \|$/m, md);
      assert.doesNotMatch(md, /---------/, md);
    });

    it('joins a table that a page break splits, its header repeated on the second page, into one', async () => {
      // Page one: a paragraph, then the table to the page's foot; page two: the header again,
      // the rest of the rows, then a second table with other columns, after a paragraph.
      const row = (y: number, ...cells: string[]) =>
        cells.map((c, i) => `BT /F1 11 Tf ${72 + i * 150} ${y} Td (${c}) Tj ET`).join(' ');
      const rows = (from: number, to: number, top: number) =>
        Array.from({ length: to - from }, (_, k) =>
          row(top - (k + 1) * 14, `Station ${from + k}`, `${100 + from + k} m`, `${(from + k) * 3} mm`),
        );
      const header = (y: number) => row(y, 'Station', 'Altitude', 'Rainfall');
      const first = [
        'BT /F1 11 Tf 72 740 Td (Readings from the network of weather stations, one row a station.) Tj ET',
        header(700),
        ...rows(1, 46, 700),
      ];
      const second = [
        header(740),
        ...rows(46, 56, 740),
        'BT /F1 11 Tf 72 560 Td (The stations were serviced by these teams during the same season.) Tj ET',
        row(520, 'Team', 'Visits'),
        row(506, 'North', '12'),
        row(492, 'South', '9'),
        row(478, 'East', '14'),
      ];
      const md = await markdownOf(pagesOf([first.join(' '), second.join(' ')], fonts), 'continued.pdf');
      const tables = tablesOf(md);
      assert.equal(tables.length, 2, md);
      const lines = tables[0]!.split('\n');
      assert.equal(lines[0], '| Station | Altitude | Rainfall |', md);
      assert.equal(lines.filter((l) => l.startsWith('| Station |')).length, 1, 'the header once');
      assert.equal(lines.length, 2 + 55, md);
      assert.equal(lines[2], '| Station 1 | 101 m | 3 mm |');
      assert.equal(lines[lines.length - 1], '| Station 55 | 155 m | 165 mm |');
      assert.match(tables[1]!, /^\| Team \| Visits \|$/m, md);
    });
  });

  it('OCRs a scanned page in auto mode and leaves it alone in fast mode', async () => {
    const auto = await call('scanned/doc-ocr_test.pdf');
    assert.match(auto.markdown!, /Docling bundles PDF document conversion to JSON and Markdown/i);
    assert.deepEqual(auto.usage, { pages: 1, ocrPages: 1 });
    const fast = await call('scanned/doc-ocr_test.pdf', { parsers: [{ type: 'pdf', mode: 'fast' }] });
    assert.doesNotMatch(fast.markdown!, /Docling bundles/i);
    assert.deepEqual(fast.usage, { pages: 1, ocrPages: 0 });
  });

  it('refuses password-protected files with their code', async () => {
    // An empty upload never reaches the converter: the API refuses it as it reads the upload
    // (test/http/parse-pdf.test.ts).
    for (const file of ['broken/plb-password-example.pdf', 'broken/tab-encrypted.pdf'])
      await assert.rejects(
        call(file),
        refusal(
          'ENCRYPTED_DOCUMENT',
          /^The PDF is encrypted with a password; it cannot be read without it\.$/,
        ),
        file,
      );
  });

  it('recovers text from a file whose cross-reference table is broken, with a warning', async () => {
    const data = await call('broken/pjs-xref_command_missing.pdf');
    assert.match(data.markdown!, /Reduced test-case/);
    assert.match(data.warning!, /cross-reference table is damaged/);
  });

  it('rebuilds a file whose catalog and page tree are gone from the pages it still holds', async () => {
    const data = await call('broken/pyp-unreadablemetadata.pdf', {
      parsers: [{ type: 'pdf', mode: 'fast' }],
    });
    assert.equal(data.metadata.numPages, 3);
    assert.match(data.warning!, /page tree is damaged; its 3 page\(s\) were found by scanning/);
    assert.match(data.markdown!, /Wirewound Rotary Potentiometer/);
  });

  it('reads a page tree with a cycle as far as it goes, with a warning', async () => {
    const data = await call('broken/pjs-Pages-tree-refs.pdf');
    assert.match(data.markdown!, /Testcase: ’Pages loop’/);
    assert.match(data.warning!, /1 of 2 PDF pages could not be read/);
  });

  it('reads the text a form field shows', async () => {
    const data = await call('broken/pjs-secHandler.pdf');
    assert.match(data.markdown!, /Security Handler/);
  });
});

/**
 * What a refused file throws: the converter's ConversionError, or the detector's 400 for bytes
 * that are no format at all, with `code` and a message saying why.
 */
function refusal(code: string, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ConversionError || error instanceof ApiError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  };
}

/**
 * Hostile and damaged files the converter must read or refuse within its own limits. The pool's
 * share (a conversion whose memory runs away, killed by the watchdog) is test/http/parse-pdf.test.ts.
 */
describe('PDF: hostile and damaged files', () => {
  const helvetica = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  const text = (s: string) => `BT /F1 12 Tf 72 700 Td (${s}) Tj ET`;

  function send(bytes: Uint8Array, filename = 'file.pdf') {
    return convert({ bytes, filename });
  }

  /**
   * A file pdf.js cannot open (no cross-reference table, no trailer naming a catalog) holding
   * one page that reads "Recovered text" (objects 1 and 2), then `rest`: it must be rebuilt.
   */
  function unopenable(rest: string): Uint8Array {
    const content = text('Recovered text');
    const page = `<< /Type /Page /MediaBox [0 0 612 792] /Contents 2 0 R /Resources << /Font << /F1 ${helvetica} >> >> >>`;
    return new Uint8Array(
      Buffer.from(
        `%PDF-1.7\n1 0 obj\n${page}\nendobj\n2 0 obj\n${stream('', content)}\nendobj\n${rest}`,
        'latin1',
      ),
    );
  }

  it('refuses a .pdf that is not a PDF, and one that is only a header', async () => {
    const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    await assert.rejects(
      send(junk, 'report.pdf'),
      refusal('UNSUPPORTED_FILE_TYPE', /named as PDF but its bytes are not a PDF file/),
    );
    await assert.rejects(
      send(new Uint8Array([...Buffer.from('%PDF-1.7\n'), ...junk])),
      refusal('UNPARSABLE_DOCUMENT', /not a readable PDF/),
    );
  });

  it('recovers the pages of a truncated upload, with a warning', async () => {
    const whole = corpusFile('pdf/text/doc-multi_page.pdf').bytes;
    const data = await send(whole.subarray(0, Math.floor(whole.length * 0.6)));
    assert.match(data.markdown!, /The Evolution of the Word Processor/);
    assert.match(data.warning!, /truncated/);
  });

  it('leaves out an image too large to decode, with a warning, and keeps the text', async () => {
    const pdf = onePage(
      `${text('Text beside a huge picture')} q 400 0 0 400 100 100 cm /Im1 Do Q`,
      `<< /Font << /F1 ${helvetica} >> /XObject << /Im1 4 0 R >> >>`,
      [
        stream(
          '/Type /XObject /Subtype /Image /Width 200000 /Height 200000 /ColorSpace /DeviceGray /BitsPerComponent 8',
          '0123456789',
        ),
      ],
    );
    const data = await send(pdf);
    assert.match(data.markdown!, /Text beside a huge picture/);
    assert.match(data.warning!, /1 image\(s\) over 100 megapixels were left out/);
  });

  // The two "without stalling" cases took minutes before their fixes; the suite's bound on a
  // test (scripts/run-tests.ts) is what fails them if they stall again. How long they take now
  // is not asserted (timings are the bench's).
  it('looks for huge images in a file full of image dictionaries without stalling', async () => {
    // Each `/Subtype /Image` searched back to the start of its object and on to the next
    // stream: 200,000 of them in one string took minutes.
    const pdf = onePage(text('Text beside the noise'), `<< /Font << /F1 ${helvetica} >> >>`, [
      `(${'/Subtype /Image '.repeat(200_000)})`,
    ]);
    assert.match((await send(pdf)).markdown!, /Text beside the noise/);
  });

  it('leaves out a flate bomb in a page, with a warning, and reads the rest of the page', async () => {
    // 512 MiB of spaces deflate to ~0.5 MB: past the per-stream cap, so the stream is not inflated.
    const deflate = zlib.createDeflate({ level: 1 });
    const parts: Buffer[] = [];
    deflate.on('data', (d: Buffer) => parts.push(d));
    const done = new Promise((resolve) => deflate.on('end', resolve));
    const spaces = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 512; i++) deflate.write(spaces);
    deflate.end();
    await done;
    const bomb = Buffer.concat(parts).toString('latin1');
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [4 0 R 5 0 R] /Resources << /Font << /F1 ${helvetica} >> >> >>`,
      stream('/Filter /FlateDecode', bomb),
      stream('', text('Text after the bomb')),
    ]);
    const data = await send(pdf);
    assert.match(data.markdown!, /Text after the bomb/);
    assert.match(data.warning!, /would inflate past 400 MiB were left out/);
  });

  it('rebuilds a damaged file whose object stream holds more than 65,535 objects', async () => {
    // Their indexes in the stream did not fit the rebuilt cross-reference stream: a 500.
    const count = 70_000;
    const header = Array.from({ length: count }, (_, i) => `${i + 10} ${i * 5}`).join(' ');
    const objects = zlib.deflateSync(Buffer.from(`${header} ${'null '.repeat(count)}`)).toString('latin1');
    const pdf = unopenable(
      `3 0 obj\n${stream(`/Type /ObjStm /N ${count} /First ${header.length + 1}`, objects)}\nendobj\n`,
    );
    const data = await send(pdf);
    assert.match(data.markdown!, /Recovered text/);
    assert.match(data.warning!, /its 1 page\(s\) were found by scanning its objects/);
  });

  it('rebuilds a damaged file of a hundred thousand catalogs and trailers without stalling', async () => {
    // Each catalog walked the shared page tree again and each trailer's root was looked up
    // in a list of all of them: minutes of work.
    const n = 100_000;
    const kids = Array.from({ length: n }, (_, i) => `${10 + i} 0 R`).join(' ');
    const parts = [`3 0 obj\n<< /Type /Pages /Kids [${kids}] >>\nendobj`];
    for (let i = 0; i < n; i++) parts.push(`${10 + i} 0 obj\n<< /Kids [] >>\nendobj`);
    for (let i = 0; i < n; i++) parts.push(`${10 + n + i} 0 obj\n<< /Type /Catalog /Pages 3 0 R >>\nendobj`);
    for (let i = 0; i < 3 * n; i++) parts.push(`trailer\n<< /Root ${10 + 2 * n + i} 0 R >>`);
    const data = await send(unopenable(parts.join('\n')));
    assert.match(data.markdown!, /Recovered text/);
    assert.match(data.warning!, /its 1 page\(s\) were found by scanning its objects/);
  });

  it('reads text set in a font whose embedded file is junk', async () => {
    const widths = Array(95).fill(600).join(' ');
    const pdf = onePage(text('Text in a broken font'), '<< /Font << /F1 4 0 R >> >>', [
      `<< /Type /Font /Subtype /TrueType /BaseFont /Broken /FirstChar 32 /LastChar 126 /Widths [${widths}] /FontDescriptor 5 0 R /Encoding /WinAnsiEncoding >>`,
      '<< /Type /FontDescriptor /FontName /Broken /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 6 0 R >>',
      stream('', 'this is no TrueType font, only junk'),
    ]);
    assert.match((await send(pdf)).markdown!, /Text in a broken font/);
  });

  it('survives cycles in the page tree and in a form that draws itself', async () => {
    const resources = `<< /Font << /F1 ${helvetica} >> /XObject << /X1 5 0 R >> >>`;
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${resources} >>`,
      stream('', `${text('Before the loops')} /X1 Do`),
      stream(
        '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X1 5 0 R >> >>',
        '/X1 Do',
      ),
    ]);
    const data = await send(pdf);
    assert.match(data.markdown!, /Before the loops/);
    assert.match(data.warning!, /1 of 2 PDF pages could not be read/);
  });
});
