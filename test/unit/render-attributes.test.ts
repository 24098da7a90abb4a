import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromParse5 } from 'hast-util-from-parse5';
import { parse } from 'parse5';
import { selectAttributes } from '../../src/render/attributes.ts';

const tree = (html: string) => fromParse5(parse(html)) as Parameters<typeof selectAttributes>[0];

/** The `attributes` format's reader, on pages written for each behaviour. */
describe('attributes: values of named attributes of the elements selectors pick', () => {
  it('keeps request order, document order within a selector, and an empty list for no match', () => {
    const page = tree(
      '<ul><li><a href="/b" class="item">B</a></li><li><a href="/a" class="item">A</a></li></ul><a href="/other">x</a>',
    );
    assert.deepEqual(
      selectAttributes(page, [
        { selector: 'a.item', attribute: 'href' },
        { selector: 'table td', attribute: 'title' },
        { selector: 'a', attribute: 'href' },
      ]),
      [
        { selector: 'a.item', attribute: 'href', values: ['/b', '/a'] },
        { selector: 'table td', attribute: 'title', values: [] },
        { selector: 'a', attribute: 'href', values: ['/b', '/a', '/other'] },
      ],
    );
  });

  it('writes list-valued attributes as HTML does, and reads names in any case', () => {
    const page = tree(
      '<div class="card  wide" data-sku="X-1" aria-label="Card one"></div><img srcset="a.png 1x, b.png 2x" alt="">',
    );
    const read = (selector: string, attribute: string) =>
      selectAttributes(page, [{ selector, attribute }])[0]!.values;
    assert.deepEqual(read('div', 'class'), ['card wide']);
    assert.deepEqual(read('div', 'DATA-SKU'), ['X-1']);
    assert.deepEqual(read('div', 'aria-label'), ['Card one']);
    assert.deepEqual(read('img', 'srcset'), ['a.png 1x, b.png 2x']);
  });

  it('drops empty and boolean-only values, and falls back to data-<name>', () => {
    const page = tree(
      '<button disabled data-price="12.50">Buy</button><button data-price="">Free</button><span title="">t</span><span data-id="7">s</span>',
    );
    assert.deepEqual(selectAttributes(page, [{ selector: 'button', attribute: 'disabled' }])[0]!.values, []);
    assert.deepEqual(selectAttributes(page, [{ selector: 'button', attribute: 'price' }])[0]!.values, [
      '12.50',
    ]);
    assert.deepEqual(selectAttributes(page, [{ selector: 'span', attribute: 'title' }])[0]!.values, []);
    assert.deepEqual(selectAttributes(page, [{ selector: 'span', attribute: 'id' }])[0]!.values, ['7']);
  });

  it('reads SVG attributes by their SVG names', () => {
    const page = tree('<svg viewBox="0 0 24 24"><path d="M0 0h24" stroke-width="2"/></svg>');
    assert.deepEqual(selectAttributes(page, [{ selector: 'path', attribute: 'stroke-width' }])[0]!.values, [
      '2',
    ]);
    assert.deepEqual(selectAttributes(page, [{ selector: 'svg', attribute: 'viewBox' }])[0]!.values, [
      '0 0 24 24',
    ]);
    assert.deepEqual(selectAttributes(page, [{ selector: 'path', attribute: 'd' }])[0]!.values, ['M0 0h24']);
  });
});
