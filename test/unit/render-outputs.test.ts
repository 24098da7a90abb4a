import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Element, ElementContent, Properties, Root, RootContent } from 'hast';
import type { DataTable } from '../../src/document/model.ts';
import { renderHtml } from '../../src/render/html.ts';
import { collectImages } from '../../src/render/images.ts';
import { collectLinks } from '../../src/render/links.ts';
import { renderMarkdown } from '../../src/render/markdown.ts';

/**
 * The renderer's outputs besides the Markdown fixtures (render-fixtures.test.ts): the `links`
 * and `images` lists, the HTML of a `dataTable`, and how a long or deep tree is rendered.
 */

function h(tagName: string, properties: Properties = {}, ...children: ElementContent[]): Element {
  return { type: 'element', tagName, properties, children };
}
const text = (value: string): ElementContent => ({ type: 'text', value });
const root = (...children: RootContent[]): Root => ({ type: 'root', children });

function dataTable(header: string[] | undefined, rows: string[][]): DataTable {
  const columns = Math.max(header?.length ?? 0, ...rows.map((row) => row.length));
  return { type: 'dataTable', columns, rowCount: rows.length, header, rows: () => rows };
}

describe('collectLinks', () => {
  it('lists absolute http(s) and mailto targets of a and area, once each, in document order', () => {
    const tree = root(
      h(
        'p',
        {},
        h('a', { href: 'https://example.com/b' }, text('b')),
        h('a', { href: 'mailto:x@example.com' }),
      ),
      h(
        'div',
        {},
        h('map', {}, h('area', { href: 'http://example.com/area' })),
        h('ul', {}, h('li', {}, h('p', {}, h('a', { href: '  https://example.com/deep  ' }, text('deep'))))),
      ),
      h('a', { href: 'https://example.com/b' }, text('again')),
      h('a', { href: 'HTTPS://EXAMPLE.COM/UPPER' }, text('upper case scheme')),
    );
    assert.deepEqual(collectLinks(tree), [
      'https://example.com/b',
      'mailto:x@example.com',
      'http://example.com/area',
      'https://example.com/deep',
      'HTTPS://EXAMPLE.COM/UPPER',
    ]);
  });

  it('leaves out fragments, relative paths, other schemes, links without href and other elements', () => {
    const tree = root(
      h('a', { href: '#section' }, text('fragment')),
      h('a', { href: 'page.html' }, text('relative')),
      h('a', { href: '//example.com/scheme-relative' }, text('scheme-relative')),
      h('a', { href: 'tel:+123' }, text('phone')),
      h('a', { href: 'ftp://example.com/file' }, text('ftp')),
      h('a', { href: 'javascript:alert(1)' }, text('script')),
      h('a', {}, text('no href')),
      h('link', { href: 'https://example.com/style.css' }),
      h('img', { src: 'https://example.com/pic.png' }),
      dataTable(['link'], [['https://example.com/in-a-data-table']]),
    );
    assert.deepEqual(collectLinks(tree), []);
  });
});

describe('collectImages', () => {
  it('lists img sources once each in document order, inline data: images included', () => {
    const inline = 'data:image/png;base64,iVBORw0KGgo=';
    const tree = root(
      h('p', {}, h('img', { src: 'https://example.com/a.png', alt: 'a' })),
      h('figure', {}, h('img', { src: inline }), h('figcaption', {}, text('inline'))),
      h('table', {}, h('tr', {}, h('td', {}, h('img', { src: ' https://example.com/b.png ' })))),
      h('img', { src: 'https://example.com/a.png' }),
      h('img', { src: inline }),
    );
    assert.deepEqual(collectImages(tree), ['https://example.com/a.png', inline, 'https://example.com/b.png']);
  });

  it("leaves out images without a source, a repeated picture's later copies and other elements", () => {
    const tree = root(
      h('img', { alt: 'no src' }),
      h('img', { src: '   ' }),
      // What a repeated embedded picture's later copies point at (transform/repeated-pictures.ts).
      h('img', { src: '<Base64-Image-Removed>' }),
      h('picture', {}, h('source', { srcSet: 'https://example.com/source.webp' })),
      h('video', { poster: 'https://example.com/poster.jpg' }),
      h('a', { href: 'https://example.com/not-an-image.png' }, text('link')),
    );
    assert.deepEqual(collectImages(tree), []);
  });
});

describe('renderHtml', () => {
  it("writes a dataTable's rows as table rows, its text escaped and its line breaks as <br>", () => {
    const tree = root(
      h('p', {}, text('Before')),
      dataTable(['a', 'b & "c"'], [['<x>', 'one\ntwo'], ['short']]),
    );
    assert.equal(
      renderHtml(tree),
      '<p>Before</p>\n\n' +
        '<table><thead><tr><th>a</th><th>b &amp; &quot;c&quot;</th></tr></thead><tbody>\n' +
        '<tr><td>&lt;x&gt;</td><td>one<br>two</td></tr>\n' +
        '<tr><td>short</td><td></td></tr>\n' +
        '</tbody></table>',
    );
  });

  it('writes a dataTable without a header with a body only', () => {
    assert.equal(
      renderHtml(root(dataTable(undefined, [['1', '2']]))),
      '<table><tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody></table>',
    );
  });
});

describe('renderMarkdown on long and deep trees', () => {
  const options = { source: 'document', removeBase64Images: true } as const;

  it('renders a long document in slices that never split what belongs together', () => {
    // Long trees are rendered a slice at a time; two lists in a row must still come out as two
    // lists (the second with the other bullet), wherever a slice would end.
    const paragraphs = Array.from({ length: 1999 }, (_, i) => h('p', {}, text(`paragraph ${i}`)));
    const tree = root(
      ...paragraphs,
      h('ul', {}, h('li', {}, text('first list'))),
      h('ul', {}, h('li', {}, text('second list'))),
      ...Array.from({ length: 2500 }, (_, i) => h('p', {}, text(`after ${i}`))),
    );
    const expected = [
      ...paragraphs.map((_, i) => `paragraph ${i}`),
      '- first list',
      '* second list',
      ...Array.from({ length: 2500 }, (_, i) => `after ${i}`),
    ].join('\n\n');
    assert.equal(renderMarkdown(tree, options), expected);
  });

  it('renders a deeply nested tree, and refuses one nested deeper than the renderer can walk', () => {
    const nest = (depth: number): Root => {
      let node: Element = h('p', {}, text('deep text'));
      for (let i = 0; i < depth; i++) node = h('div', {}, node);
      return root(node);
    };
    assert.equal(renderMarkdown(nest(200), options), 'deep text');
    // Far past what the stack holds without the depth check: refused, never a stack overflow.
    assert.throws(
      () => renderMarkdown(nest(5000), options),
      (error: Error & { code?: string }) =>
        error.code === 'RESOURCE_LIMIT' && /deeper than/.test(error.message),
    );
  });
});
