import { billionLaughs, type HostileCase, MiB, nested, text } from './case.ts';

// Hostile text formats: HTML, CSV, JSON, XML, plain text, Markdown and RTF.

/** `unit` repeated until the result is about `bytes` long. */
const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));

const htmlCases: HostileCase[] = [
  {
    name: 'html-wide-colspan',
    filename: 'wide-colspan.html',
    attack: 'a 100 KB page: one row of cells with colspan=1000 over 5,000 one-cell rows',
    build: () =>
      text(
        `<table><tr>${'<td colspan=1000>w</td>'.repeat(100)}</tr>${'<tr><td>n</td></tr>'.repeat(5000)}</table>`,
      ),
  },
  {
    name: 'html-huge-rowspan',
    filename: 'huge-rowspan.html',
    attack: 'cells with rowspan=65534 and colspan=1000 in every row of a 2,000-row table',
    build: () =>
      text(`<table>${'<tr><td rowspan=65534 colspan=1000>r</td><td>c</td></tr>'.repeat(2000)}</table>`),
  },
  {
    name: 'html-deep-nesting',
    filename: 'deep.html',
    attack: '300,000 nested elements',
    build: () => text(nested('<div>', '</div>', 300_000, 'deep text')),
  },
  {
    name: 'html-deep-tables',
    filename: 'deep-tables.html',
    attack: 'tables nested 20,000 deep, one in each cell',
    build: () => text(nested('<table><tr><td>', '</td></tr></table>', 20_000, 'core')),
  },
  {
    name: 'html-many-elements',
    filename: 'many-elements.html',
    attack: '3 million empty elements (past limits.htmlElements)',
    build: () => text(`<p>${'<b></b>'.repeat(3_000_000)}</p>`),
  },
  {
    name: 'html-long-attribute',
    filename: 'long-attribute.html',
    attack: 'one 10 MB attribute value and a 2 MB link',
    build: () => text(`<p title="${'x'.repeat(10 * MiB)}"><a href="/${'y'.repeat(2 * MiB)}">link</a></p>`),
  },
  {
    name: 'html-repeated-data-uri',
    filename: 'repeated-data-uri.html',
    attack: 'one 256 KB data: image placed 40 times',
    build: () => {
      const img = `<img alt="i" src="data:image/png;base64,${'A'.repeat(MiB / 4)}">`;
      return text(`<p>${img.repeat(40)}</p>`);
    },
  },
];

const csvCases: HostileCase[] = [
  {
    name: 'csv-wide-row',
    filename: 'wide.csv',
    attack: 'one row of a million columns over rows of one',
    build: () => text(`${','.repeat(1_000_000)}\n${'a\n'.repeat(1000)}`),
  },
  {
    name: 'csv-huge-field',
    filename: 'huge-field.csv',
    attack: 'one 10 MB quoted field',
    build: () => text(`a,b\n"${'x'.repeat(10 * MiB)}",2\n`),
  },
  {
    name: 'csv-unterminated-quote',
    filename: 'unterminated.csv',
    attack: 'a quote opened in the first row and never closed, over 1 MB',
    build: () => text(`a,"b\n${fill('c,d\n', MiB)}`),
  },
  {
    name: 'csv-many-rows',
    filename: 'many-rows.csv',
    attack: '250,000 two-field rows',
    build: () => text(fill('1,2\n', MiB)),
  },
];

const codeCases: HostileCase[] = [
  {
    name: 'json-deep',
    filename: 'deep.json',
    attack: 'arrays nested two million deep',
    build: () => text(nested('[', ']', 2_000_000)),
  },
  {
    name: 'json-deep-objects',
    filename: 'deep-objects.json',
    attack: 'objects nested 500,000 deep',
    build: () => text(nested('{"a":', '}', 500_000, '1')),
  },
  {
    name: 'xml-billion-laughs',
    filename: 'laughs.xml',
    attack: 'entity declarations expanding to 10^10 "lol"s',
    build: () => text(`<?xml version="1.0"?>${billionLaughs('r')}<r>&lol10;</r>`),
  },
  {
    name: 'xml-deep',
    filename: 'deep.xml',
    attack: 'elements nested 300,000 deep',
    build: () => text(nested('<a>', '</a>', 300_000)),
  },
  {
    name: 'txt-one-line',
    filename: 'one-line.txt',
    attack: 'a 10 MB line without a break',
    build: () => text(fill('word ', 10 * MiB)),
  },
  {
    name: 'txt-blank-lines',
    filename: 'blank-lines.txt',
    attack: 'a million line breaks around single characters',
    build: () => text(fill('a\n\n', 1.5 * MiB)),
  },
];

const markdownCases: HostileCase[] = [
  {
    name: 'md-deep-quotes',
    filename: 'deep-quotes.md',
    attack: 'block quotes nested 100,000 deep',
    build: () => text(`${'>'.repeat(100_000)} deep\n`),
  },
  {
    name: 'md-deep-lists',
    filename: 'deep-lists.md',
    attack: 'list items nested 2,000 deep',
    build: () => text(Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n')),
  },
  {
    name: 'md-brackets',
    filename: 'brackets.md',
    attack: 'a million unclosed link brackets and emphasis openers',
    build: () => text(`${'['.repeat(500_000)}${'*a '.repeat(200_000)}${'_'.repeat(200_000)}`),
  },
  {
    name: 'md-definitions',
    filename: 'definitions.md',
    attack: '50,000 link reference definitions and 50,000 references',
    build: () => {
      const defs = Array.from({ length: 50_000 }, (_, i) => `[r${i}]: /u${i}`).join('\n');
      return text(`${defs}\n\n${Array.from({ length: 50_000 }, (_, i) => `[x][r${i}]`).join(' ')}\n`);
    },
  },
  {
    name: 'md-inline-html-deep',
    filename: 'inline-deep.md',
    attack: 'inline HTML nested 500,000 deep',
    build: () => text(`para\n\n${nested('<span>', '</span>', 500_000, 'x')}\n`),
  },
];

const rtfCases: HostileCase[] = [
  {
    name: 'rtf-deep-groups',
    filename: 'deep.rtf',
    attack: 'groups nested a million deep',
    build: () => text(`{\\rtf1 before ${nested('{', '}', 1_000_000, 'deep')} after}`),
  },
  {
    name: 'rtf-huge-bin',
    filename: 'huge-bin.rtf',
    attack: '\\bin declaring 2 GB of binary data in a small file',
    build: () => text('{\\rtf1 text {\\pict\\pngblip\\bin2147483647 abc} more}'),
  },
  {
    name: 'rtf-huge-picture',
    filename: 'huge-picture.rtf',
    attack: 'a picture declaring 100000 x 100000 pixels, with 8 MB of hex',
    build: () => text(`{\\rtf1 {\\pict\\pngblip\\picw100000\\pich100000 ${'0'.repeat(8 * MiB)}}}`),
  },
  {
    name: 'rtf-wide-table',
    filename: 'wide-table.rtf',
    attack: 'a row declaring 100,000 cell boundaries, then 2,000 one-cell rows',
    build: () => {
      const wide = `\\trowd${Array.from({ length: 100_000 }, (_, i) => `\\cellx${(i + 1) * 10}`).join('')} a\\cell\\row`;
      return text(`{\\rtf1 ${wide}${'\\trowd\\cellx100 b\\cell\\row'.repeat(2000)}}`);
    },
  },
  {
    name: 'rtf-unicode-skip',
    filename: 'unicode-skip.rtf',
    attack: '\\uc2147483647 then 100,000 \\u escapes, each claiming to skip the rest of the file',
    build: () => text(`{\\rtf1 \\uc2147483647 ${'\\u8364 ?'.repeat(100_000)} after}`),
  },
  {
    name: 'rtf-truncated',
    filename: 'truncated.rtf',
    attack: 'a file cut in the middle of a table and a group',
    build: () => text(`{\\rtf1\\ansi ${'\\pard para\\par '.repeat(1000)}{\\trowd\\cellx100 {\\b cut`),
  },
];

export const textCases: HostileCase[] = [
  ...htmlCases,
  ...csvCases,
  ...codeCases,
  ...markdownCases,
  ...rtfCases,
];
