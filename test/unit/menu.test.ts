import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Root } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { parse } from 'parse5';
import { readMenu } from '../../src/enrich/menu/menu.ts';

const tree = (html: string) => fromParse5(parse(html)) as Root;
const page = 'https://bistro.example/menu';
const read = (html: string, title?: string) => readMenu(tree(html), tree(html), page, title);

describe('menu: schema.org, else the page’s structure', () => {
  it('reads a restaurant’s hasMenu: sections, items, prices, diets, calories', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Restaurant',
      name: 'Harbour Bistro',
      hasMenu: {
        '@type': 'Menu',
        hasMenuSection: [
          {
            '@type': 'MenuSection',
            name: 'Starters',
            hasMenuItem: [
              {
                '@type': 'MenuItem',
                name: 'Soup of the day',
                description: 'With bread.',
                offers: { '@type': 'Offer', price: '6.50', priceCurrency: 'EUR' },
                suitableForDiet: 'https://schema.org/VegetarianDiet',
                nutrition: { '@type': 'NutritionInformation', calories: '320 calories' },
              },
            ],
          },
          {
            '@type': 'MenuSection',
            name: 'Mains',
            hasMenuItem: [
              { '@type': 'MenuItem', name: 'Fish stew', offers: { price: 18, priceCurrency: 'EUR' } },
            ],
          },
        ],
      },
    };
    const menu = read(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`);
    assert.equal(menu.isMenu, true);
    assert.equal(menu.confidence, 0.95);
    assert.deepEqual(menu.merchant, { name: 'Harbour Bistro', type: 'Restaurant' });
    assert.equal(menu.currency, 'EUR');
    assert.deepEqual(
      menu.sections.map((s) => [
        s.id,
        s.name,
        s.items.map((i) => [i.id, i.name, i.price?.amount, i.dietary, i.calories]),
      ]),
      [
        ['s0', 'Starters', [['s0-i0', 'Soup of the day', 6.5, ['vegetarian'], 320]]],
        ['s1', 'Mains', [['s1-i0', 'Fish stew', 18, [], null]]],
      ],
    );
    assert.equal(menu.sections[0]!.items[0]!.description, 'With bread.');
  });

  it('reads a menu page’s own structure: headings, priced items with descriptions and dietary marks', () => {
    const html = `<h1>Our menu</h1><h2>Pizza</h2><ul>
      <li><b>Margherita (V)</b><br>Tomato, mozzarella, basil<br>€9.50</li>
      <li><b>Diavola</b><br>Spicy salami<br>€11.00</li></ul>
      <h2>Drinks</h2><p>Lemonade ........ €3.00</p><p>Espresso 2.20</p><p>Open daily from noon.</p>`;
    const menu = read(html, 'Pizzeria');
    assert.equal(menu.isMenu, true);
    assert.ok(menu.confidence > 0.5 && menu.confidence < 0.95, String(menu.confidence));
    assert.deepEqual(menu.merchant, { name: 'Pizzeria' });
    assert.equal(menu.currency, 'EUR');
    assert.deepEqual(
      menu.sections.map((s) => [
        s.name,
        s.items.map((i) => [i.name, i.description, i.price?.amount, i.price?.currency, i.dietary]),
      ]),
      [
        [
          'Pizza',
          [
            ['Margherita (V)', 'Tomato, mozzarella, basil', 9.5, 'EUR', ['vegetarian']],
            ['Diavola', 'Spicy salami', 11, 'EUR', ['spicy']],
          ],
        ],
        [
          'Drinks',
          [
            ['Lemonade', null, 3, 'EUR', []],
            ['Espresso', null, 2.2, 'EUR', []],
          ],
        ],
      ],
    );
  });

  it('says honestly that an article is no menu', () => {
    const menu = read(
      '<h1>Tides</h1><p>The moon pulls the sea twice a day.</p><p>It costs nothing to watch: €0.</p>',
      'Tides',
    );
    assert.equal(menu.isMenu, false);
    assert.ok(menu.confidence <= 0.3, String(menu.confidence));
    assert.deepEqual(menu.sections, []);
    assert.equal(menu.sourceUrl, page);
  });
});
