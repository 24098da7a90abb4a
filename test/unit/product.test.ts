import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Root } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { parse } from 'parse5';
import { findPrices, parseAmount } from '../../src/enrich/product/price.ts';
import { readProduct } from '../../src/enrich/product/product.ts';

const tree = (html: string) => fromParse5(parse(html)) as Root;
const page = 'https://shop.example/kettles/k1';
/** The page as fetched and, for evidence, the same as its main content. */
const read = (html: string) => readProduct(tree(html), tree(html), page);

describe('product: schema.org, Open Graph, then the page’s evidence', () => {
  it('reads JSON-LD: title, brand, category, offers with a sale price and availability', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'BreadcrumbList', itemListElement: [] },
        {
          '@type': 'Product',
          name: 'Copper Kettle',
          brand: { '@type': 'Brand', name: 'Hearth' },
          category: ['Kitchen', 'Kettles'],
          sku: 'K-1',
          image: ['/img/k1.jpg'],
          description: 'A kettle.',
          offers: {
            '@type': 'Offer',
            price: '39.90',
            priceCurrency: 'EUR',
            availability: 'https://schema.org/InStock',
            priceSpecification: [
              {
                '@type': 'UnitPriceSpecification',
                priceType: 'https://schema.org/StrikethroughPrice',
                price: 49.9,
                priceCurrency: 'EUR',
              },
            ],
          },
        },
      ],
    };
    const found = read(
      `<script type="application/ld+json">${JSON.stringify(ld)}</script><h1>Copper Kettle</h1>`,
    );
    assert.equal(found?.source, 'schema.org');
    assert.deepEqual(found?.product, {
      title: 'Copper Kettle',
      brand: 'Hearth',
      category: 'Kitchen > Kettles',
      url: page,
      description: 'A kettle.',
      variants: [
        {
          sku: 'K-1',
          images: [{ url: 'https://shop.example/img/k1.jpg' }],
          price: { amount: 39.9, currency: 'EUR' },
          sale: { originalPrice: { amount: 49.9, currency: 'EUR' } },
          availability: { inStock: true, text: 'In stock' },
        },
      ],
    });
  });

  it('reads a ProductGroup’s variants with their option values, and one out of stock', () => {
    const variant = (size: string, price: number, stock: string) => ({
      '@type': 'Product',
      name: `Tee ${size}`,
      sku: `T-${size}`,
      size,
      offers: { '@type': 'Offer', price, priceCurrency: 'USD', availability: `https://schema.org/${stock}` },
    });
    const ld = {
      '@type': 'ProductGroup',
      name: 'Tee',
      variesBy: 'size',
      hasVariant: [variant('S', 20, 'InStock'), variant('M', 22, 'OutOfStock')],
    };
    const product = read(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`)?.product;
    assert.deepEqual(
      product?.variants.map((v) => [v.title, v.sku, v.values, v.price?.amount, v.availability]),
      [
        ['Tee S', 'T-S', { size: 'S' }, 20, { inStock: true, text: 'In stock' }],
        ['Tee M', 'T-M', { size: 'M' }, 22, { inStock: false, text: 'Out of stock' }],
      ],
    );
  });

  it('reads microdata and RDFa Lite into the same shape', () => {
    const microdata = `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Oak Stool</h1>
      <span itemprop="brand">Joinery</span><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
      <meta itemprop="priceCurrency" content="GBP"><span itemprop="price" content="85.00">£85</span>
      <link itemprop="availability" href="https://schema.org/InStock"></div></div>`;
    const rdfa = `<div vocab="https://schema.org/" typeof="Product"><h1 property="name">Oak Stool</h1>
      <span property="brand">Joinery</span><div property="offers" typeof="Offer">
      <meta property="priceCurrency" content="GBP"><span property="price" content="85.00">£85</span>
      <link property="availability" href="https://schema.org/InStock"></div></div>`;
    for (const html of [microdata, rdfa]) {
      const product = read(html)?.product;
      assert.equal(product?.title, 'Oak Stool');
      assert.equal(product?.brand, 'Joinery');
      assert.deepEqual(product?.variants[0]?.price, { amount: 85, currency: 'GBP' });
      assert.equal(product?.variants[0]?.availability.inStock, true);
    }
  });

  it('reads Open Graph product tags when there is no schema.org markup', () => {
    const found =
      read(`<head><meta property="og:type" content="product"><meta property="og:title" content="Linen Apron">
      <meta property="product:price:amount" content="24.00"><meta property="product:price:currency" content="EUR">
      <meta property="product:availability" content="out of stock"><meta property="og:image" content="/a.jpg"></head>`);
    assert.equal(found?.source, 'open-graph');
    assert.deepEqual(found?.product.variants, [
      {
        price: { amount: 24, currency: 'EUR' },
        availability: { inStock: false, text: 'out of stock' },
        images: [{ url: 'https://shop.example/a.jpg' }],
      },
    ]);
  });

  it('without markup: a price after the title and a way to buy it; a size select gives the variants', () => {
    const html = `<title>Shop</title><h1>Wool Socks</h1><p>Warm socks.</p><p><s>$18.00</s> $14.50</p>
      <select name="size"><option value="">Select a size</option><option>S</option><option>M</option></select>
      <button>Add to cart</button>`;
    const found = read(html);
    assert.equal(found?.source, 'evidence');
    assert.deepEqual(found?.product, {
      title: 'Wool Socks',
      url: page,
      variants: ['S', 'M'].map((size) => ({
        price: { amount: 14.5, currency: 'USD', formatted: '$14.50' },
        sale: { originalPrice: { amount: 18, currency: 'USD', formatted: '$18.00' } },
        availability: { inStock: true },
        title: size,
        values: { size },
      })),
    });
    assert.equal(
      read('<h1>Sold out: Wool Socks</h1><p>€12,00</p><p>Sold out</p>')?.product.variants[0]?.availability
        .inStock,
      false,
    );
  });

  it('finds no product on an article, nor on a page with a price but no way to buy', () => {
    assert.equal(read('<h1>How tides work</h1><p>The moon pulls the sea.</p>'), undefined);
    assert.equal(read('<h1>Annual report</h1><p>Revenue grew to $4.2 million.</p>'), undefined);
  });

  it('reads prices in either digit grouping, with symbols or ISO codes', () => {
    assert.equal(parseAmount('1.299,00'), 1299);
    assert.equal(parseAmount('1,299.00'), 1299);
    assert.equal(parseAmount('1 299,50'), 1299.5);
    assert.equal(parseAmount('12,500'), 12500);
    assert.deepEqual(
      findPrices('CHF 12.50 or 9,90 € or ABC 5 or 20%').map((p) => [p.amount, p.currency]),
      [
        [12.5, 'CHF'],
        [9.9, 'EUR'],
      ],
    );
  });
});
