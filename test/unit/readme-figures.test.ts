/**
 * Every figure the README quotes from a bench must be the one the bench wrote last. The oracle is
 * the RESULTS file the README cites, read by section heading, row label and column header (never a
 * number written here), so a fresh `npm run bench` that moves a figure fails this test until the
 * README says the new one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(import.meta.dirname, '../..');

interface Table {
  header: string[];
  rows: string[][];
}

/**
 * The one name among `names` that is `wanted`, else the only one starting with it: headings and
 * labels carry counts that change with the set ("PERSON (70)", "maincontent-modern: 288 pages").
 */
function pick(names: string[], wanted: string, what: string): number {
  const exact = names.indexOf(wanted);
  if (exact !== -1) return exact;
  const prefixed = names.flatMap((name, i) => (name.startsWith(wanted) ? [i] : []));
  assert.equal(
    prefixed.length,
    1,
    `${what} "${wanted}" ${prefixed.length ? 'is ambiguous' : 'is missing'}; there are: ${names.join(' | ')}`,
  );
  return prefixed[0] as number;
}

/** A Markdown document, or one section of it, named in every failure by file and section path. */
class Doc {
  readonly text: string;
  readonly where: string;

  constructor(text: string, where: string) {
    this.text = text;
    this.where = where;
  }

  static read(file: string): Doc {
    const full = path.join(root, file);
    assert.ok(fs.existsSync(full), `${file} is missing`);
    return new Doc(fs.readFileSync(full, 'utf8'), file);
  }

  /** The text under a heading of any level, up to the next heading of that level or higher. */
  section(title: string): Doc {
    const lines = this.text.split('\n');
    const headings = lines.flatMap((line, i) => {
      const m = /^(#+) (.*)$/.exec(line);
      return m ? [{ i, level: (m[1] as string).length, title: (m[2] as string).trim() }] : [];
    });
    const found =
      headings[
        pick(
          headings.map((h) => h.title),
          title,
          `${this.where}: section`,
        )
      ];
    assert.ok(found);
    const end = headings.find((h) => h.i > found.i && h.level <= found.level)?.i ?? lines.length;
    return new Doc(lines.slice(found.i + 1, end).join('\n'), `${this.where} › ${title}`);
  }

  /** The first table whose header has every one of `columns`. */
  table(...columns: string[]): Table {
    const tables: Table[] = [];
    let current: string[][] = [];
    for (const line of [...this.text.split('\n'), '']) {
      if (line.startsWith('|')) {
        // `\|` is a pipe inside a cell, not a cell border.
        current.push(
          line
            .trim()
            .slice(1, -1)
            .split(/(?<!\\)\|/)
            .map((cell) => cell.trim()),
        );
        continue;
      }
      const [header, , ...rows] = current;
      if (header) tables.push({ header, rows });
      current = [];
    }
    const table = tables.find((t) => columns.every((c) => t.header.some((h) => h.startsWith(c))));
    assert.ok(table, `${this.where}: no table has the columns ${columns.join(', ')}`);
    return table;
  }

  /**
   * One cell: the row whose first cell is `row` (or whose cells under the given columns are
   * `row`'s values), under `column`.
   */
  cell(table: Table, row: string | Record<string, string>, column: string): string {
    const keys = typeof row === 'string' ? { [table.header[0] ?? '']: row } : row;
    let rows = table.rows;
    for (const [col, value] of Object.entries(keys)) {
      const c = pick(table.header, col, `${this.where}: column`);
      const exact = rows.filter((r) => r[c] === value);
      rows = exact.length ? exact : rows.filter((r) => (r[c] ?? '').startsWith(value));
    }
    const [found, ...others] = rows;
    assert.ok(
      found && !others.length,
      `${this.where}: ${found ? 'more than one row' : 'no row'} ${JSON.stringify(keys)}`,
    );
    return found[pick(table.header, column, `${this.where}: column`)] ?? '';
  }

  /** The groups of the one match of `pattern`; failing names what is no longer there. */
  quote(pattern: RegExp): string[] {
    const m = pattern.exec(this.text);
    assert.ok(m, `${this.where} no longer has a sentence matching ${pattern}`);
    return m.slice(1).map((group) => group ?? '');
  }
}

/** One test per README figure; its name leads every failure's message. */
function figure(name: string, check: () => void): void {
  it(name, () => {
    try {
      check();
    } catch (error) {
      if (error instanceof assert.AssertionError) {
        // The reporter prints the stack, which holds the message as it was when thrown.
        const message = `README figure "${name}": ${error.message}`;
        error.stack = error.stack?.replace(error.message, message);
        error.message = message;
      }
      throw error;
    }
  });
}

const readme = Doc.read('README.md');
const results = Doc.read('bench/RESULTS.md');
const compares = readme.section('How Quire compares');
const comparesTable = compares.table('Quire', 'anydoc', 'pandoc');
const compared = (row: string, tool: string) => compares.cell(comparesTable, row, tool);

describe('README figures are the current bench results', () => {
  figure('How Quire compares: document quality per format (ranges, and where each peer stands)', () => {
    const corpus = results.section('Corpus: quality and speed');
    const table = corpus.table('format', 'cases', 'Quire score', 'pandoc score', 'anydoc score');
    const scored = table.rows.filter((r) => Number(corpus.cell(table, r[0] as string, 'cases')) > 0);
    const score = (format: string, tool: string) => corpus.cell(table, format, `${tool} score`);
    const read = (tool: string) => scored.map((r) => r[0] as string).filter((f) => score(f, tool) !== 'n/a');
    const range = (tool: string) => {
      const values = read(tool).map((f) => Number(score(f, tool)));
      return [Math.min(...values), Math.max(...values)];
    };
    const readmeRange = (cell: string) => {
      const [low, high] = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)/.exec(cell)?.slice(1) ?? [];
      return [Number(low), Number(high)];
    };
    const row = 'Document quality per format: Office, ODF, RTF, EPUB, CSV, HTML (bench)';
    assert.deepEqual(readmeRange(compared(row, 'Quire')), range('Quire'), 'Quire score range');

    for (const [tool, column] of [
      ['anydoc', 'anydoc'],
      ['pandoc', 'pandoc'],
    ] as const) {
      const cell = compared(row, column);
      const formats = read(tool);
      const side = (f: string) => Math.sign(Number(score(f, tool)) - Number(score(f, 'Quire')));
      const names = (sign: number) => formats.filter((f) => side(f) === sign).map((f) => f.toUpperCase());
      const list = (re: RegExp) =>
        (re.exec(cell)?.[1] ?? '')
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
      assert.deepEqual(readmeRange(cell), range(tool), `${tool} score range`);
      assert.equal(/on (\d+) formats/.exec(cell)?.[1], String(formats.length), `${tool}: formats read`);
      assert.equal(
        /below Quire on (\d+)/.exec(cell)?.[1],
        String(names(-1).length),
        `${tool}: formats below Quire`,
      );
      assert.deepEqual(list(/level on ([A-Z, ]+)/), names(0), `${tool}: formats level with Quire`);
      assert.deepEqual(list(/above on ([A-Z, ]+)/), names(1), `${tool}: formats above Quire`);
      const pairs = names(1).map(
        (f) => `${score(f.toLowerCase(), tool)} to ${score(f.toLowerCase(), 'Quire')}`,
      );
      assert.deepEqual(list(/above on [A-Z, ]+ \(([^)]*)\)/), pairs, `${tool}: its scores above Quire's`);
    }
  });

  figure('How Quire compares: PDF tables / multicolumn / scanned', () => {
    const pdf = results.section('PDF');
    const table = pdf.table('subset', 'Quire score', 'anydoc score', 'pdftotext score');
    const subsets = (tool: string) =>
      ['tables', 'multicolumn', 'scanned'].map((s) => pdf.cell(table, s, `${tool} score`));
    const row = 'PDF: tables / multicolumn / scanned (bench)';
    assert.equal(compared(row, 'Quire'), subsets('Quire').join(' / '));
    // anydoc gives no text for a scanned page (it cannot OCR): the README says so where it scored 0.
    assert.equal(
      compared(row, 'anydoc'),
      subsets('anydoc')
        .map((score, i) => (i === 2 && score === '0.0' ? 'cannot OCR' : score))
        .join(' / '),
    );
    assert.equal(compared(row, 'pandoc'), `– (pdftotext: ${subsets('pdftotext').join(' / ')})`);
  });

  figure('How Quire compares: main content on modern pages (F1)', () => {
    const modern = results.section('maincontent-modern');
    const tools = modern.table('tool', 'F1');
    const types = modern.table('page type', 'Quire F1');
    const row = 'Main content, modern pages (F1, bench)';
    const f1 = (tool: string) => modern.cell(tools, tool, 'F1');
    assert.equal(
      compared(row, 'Quire'),
      `${f1('Quire')} (articles ${modern.cell(types, 'article', 'Quire F1')})`,
    );
    assert.equal(compared(row, 'pandoc'), `– (Readability ${f1('Readability')}, defuddle ${f1('defuddle')})`);
  });

  figure('How Quire compares: HTTP throughput against a pandoc server', () => {
    const load = results.section('HTTP load');
    const ratio = load.cell(
      load.table('Quire', 'pandoc-http', 'Quire / peer'),
      'successful requests/s',
      'Quire / peer',
    );
    assert.equal(
      compared('HTTP throughput, mixed documents (bench)', 'Quire'),
      `${ratio} a pandoc server's successful requests/s, same clients`,
    );
  });

  figure(
    'Rendering: rendered and static scrapes against a bare puppeteer-core loop, and the pool’s memory',
    () => {
      const scrapes = results.section('Scrapes: rendered and static pages');
      const table = scrapes.table('Quire', 'Bare puppeteer-core', 'Quire / bare');
      const rendered = (column: string) => scrapes.cell(table, 'Rendered pages per second', column);
      const [pss] = scrapes.quote(/Render pool memory after the run: (\S+) MB PSS/);
      const [ratio, quire, bare] = readme.quote(
        /app shells through `\/v2\/scrape`, fetch and conversion included, at (\S+) the pages per second of a bare puppeteer-core loop over the same loopback pages \(Rendered pages per second, (\S+) against (\S+),/,
      );
      assert.deepEqual(
        [ratio, quire, bare],
        [rendered('Quire / bare'), rendered('Quire'), rendered('Bare puppeteer-core')],
      );
      const [staticRatio, readmePss] = readme.quote(
        /never reach the browser, at (\S+) the loop's; the pool's browser held (\S+) MB PSS/,
      );
      assert.equal(staticRatio, scrapes.cell(table, 'Static pages per second', 'Quire / bare'));
      assert.equal(readmePss, pss);
    },
  );

  figure('Interact sessions: create to usable, memory per session, sessions held', () => {
    const sessions = results.section('Interact sessions');
    const table = sessions.table('Quire', 'bare Chromium + Playwright', 'Quire / peer');
    const p50 = (column: string) => sessions.cell(table, 'create to usable, p50 (ms)', column);
    const [runs] = sessions.quote(/of (\d+) runs per side/);
    const [held] = sessions.quote(/Held at once: \*\*(\d+) sessions\*\*/);
    const [pss] = sessions.quote(/MB PSS together \((\d+) MB per session/);
    const [available] = sessions.quote(/MemAvailable went from \d+ to \d+ MB, (\d+) MB per session/);
    assert.deepEqual(
      readme.quote(
        /a session is usable (\S+) ms after create is called \(p50 of (\d+); (\S+) starting Chromium by hand and connecting Playwright to it, (\S+) ms\) and an idle one takes about (\d+) MB of available memory \(MemAvailable per session with (\d+) held; (\d+) MB PSS each\); (\d+) were held at once/,
      ),
      [
        p50('Quire'),
        runs,
        p50('Quire / peer'),
        p50('bare Chromium + Playwright'),
        available,
        held,
        pss,
        held,
      ],
    );
  });

  figure('PDF threads: the warm, settled CPU and wall time of one and two threads on the big PDF', () => {
    const pdf = results.section('PDF');
    const warm = pdf.table('tool', 'conversion in the process', 'wall ms', 'CPU ms/page');
    const settled = (tool: string, column: string) =>
      pdf.cell(warm, { tool, 'conversion in the process': '3rd to 5th' }, column);
    assert.deepEqual(
      readme.quote(/3rd to 5th conversions: (\S+) against (\S+) CPU ms a page, (\S+) against (\S+) ms\)/),
      [
        settled('Quire (fast mode)', 'CPU ms/page'),
        settled('Quire (fast mode, one thread)', 'CPU ms/page'),
        settled('Quire (fast mode)', 'wall ms'),
        settled('Quire (fast mode, one thread)', 'wall ms'),
      ],
    );
  });

  describe('PII redaction (bench/pii/RESULTS.md)', () => {
    const pii = Doc.read('bench/pii/RESULTS.md');
    const splitSize = (title: string) =>
      pii.quote(new RegExp(`## ${title} \\((\\d+) documents, (\\d+) entities`)).map(Number);

    figure('the set and its second dev split', () => {
      const [devDocs, devEntities] = splitSize('Dev split');
      const [secondDocs, secondEntities] = splitSize('Dev split 2');
      const [entities, documents, second] = readme
        .quote(
          /labelled set of (\d+) entities in (\d+) realistic documents[\s\S]*?the second \((\d+) documents/,
        )
        .map(Number);
      assert.deepEqual(
        { entities, documents, second },
        {
          entities: (devEntities as number) + (secondEntities as number),
          documents: (devDocs as number) + (secondDocs as number),
          second: secondDocs,
        },
      );
    });

    figure('precision / recall per bucket on the second dev split, beside the peers', () => {
      const split = pii.section('Dev split 2');
      const theirs = split.table('Bucket (entities)', 'Quire fast');
      const section = readme.section('PII redaction');
      const ours = section.table('Bucket', '`fast`', '`aggressive`');
      const columns: Record<string, string> = {
        '`fast`': 'Quire fast',
        '`aggressive`': 'Quire aggressive',
        'redact-pii': 'redact-pii',
        openredaction: 'openredaction',
        compromise: 'compromise',
      };
      for (const row of ours.rows) {
        const bucket = row[0] as string;
        for (const [readmeColumn, resultsColumn] of Object.entries(columns)) {
          const said = section.cell(ours, bucket, readmeColumn);
          const measured = split.cell(theirs, bucket, resultsColumn);
          // "–" in the README: the tool finds nothing of that bucket (no precision, recall 0).
          assert.equal(said === '–' ? '– / 0.00' : said, measured, `${bucket}, ${readmeColumn}`);
        }
      }
    });

    figure('compromise beside the aggressive rules, and the CPU time on a megabyte', () => {
      const dev = pii.section('Dev split (');
      const table = dev.table('Bucket (entities)', 'Quire aggressive', 'compromise');
      const [documents, aggressive, compromise] = pii.quote(
        /Time over all (\d+) documents[^:]*: .*Quire aggressive (\S+) ms, .*compromise[^,]* (\S+) ms\./,
      );
      assert.deepEqual(
        readme.quote(
          /\(dev split: PERSON (\S+ \/ \S+) and LOCATION (\S+ \/ \S+), against `aggressive`'s (\S+ \/ \S+) and (\S+ \/ \S+)\), and it took (\S+) ms on the set's (\d+) documents where `aggressive` took (\S+) ms/,
        ),
        [
          dev.cell(table, 'PERSON', 'compromise'),
          dev.cell(table, 'LOCATION', 'compromise'),
          dev.cell(table, 'PERSON', 'Quire aggressive'),
          dev.cell(table, 'LOCATION', 'Quire aggressive'),
          compromise,
          documents,
          aggressive,
        ],
      );
      const cpu = (mode: string) =>
        String(Math.round(Number(pii.quote(new RegExp(`- ${mode}: .*?(\\S+) ms CPU`))[0])));
      assert.deepEqual(
        readme.quote(
          /redaction alone takes (\d+) ms of CPU in `fast` mode and (\d+) ms in `aggressive` mode/,
        ),
        [cpu('fast'), cpu('aggressive')],
      );
    });
  });

  figure('Offline json extraction (bench/extract/RESULTS.md)', () => {
    const extract = Doc.read('bench/extract/RESULTS.md');
    const table = extract.table('documents', 'fields', 'accuracy', 'precision');
    const value = (part: string, column: string) => extract.cell(table, part, column);
    const documents = Number(value('dev', 'documents')) + Number(value('heldout', 'documents'));
    assert.deepEqual(
      readme.quote(
        /measured on (\d+) documents written for the purpose[\s\S]*?with a held-out part of (\d+) written[\s\S]*?\*\*(\S+) \/ (\S+) on the held-out part\*\* \((\d+) fields\), (\S+) \/ (\S+) on the dev part/,
      ),
      [
        String(documents),
        value('heldout', 'documents'),
        value('heldout', 'accuracy'),
        value('heldout', 'precision'),
        value('heldout', 'fields'),
        value('dev', 'accuracy'),
        value('dev', 'precision'),
      ],
    );
  });

  figure('Crawl params preview: the offline reader on the dev and held-out prompts', () => {
    const params = results.section('Params-preview offline reader');
    const table = params.table('Part', 'Prompts', 'Exact');
    const prompts = (part: string) => params.cell(table, part, 'Prompts');
    // "41 (1.00)": the count, then its share.
    const exact = (part: string) => params.cell(table, part, 'Exact').split(' ')[0] as string;
    const [firstRight, firstOf, firstMicro] = params.quote(
      /first score, before any change, was (\d+) of (\d+) exact \(micro precision and recall (\S+)\)/,
    );
    assert.deepEqual(
      readme.quote(
        /On (\d+) prompts written for it[\s\S]*?it reads (\d+) of (\d+) dev prompts and (\d+) of (\d+) held-out prompts exactly; the held-out prompts were written before the reader, and their first score, before any change, was (\d+) of (\d+) \(micro precision and recall (\S+)\)/,
      ),
      [
        String(Number(prompts('dev')) + Number(prompts('heldout'))),
        exact('dev'),
        prompts('dev'),
        exact('heldout'),
        prompts('heldout'),
        firstRight,
        firstOf,
        firstMicro,
      ],
    );
  });
});
