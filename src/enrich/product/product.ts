import type { Element, Root, RootContent } from 'hast';
import { toText } from 'hast-util-to-text';
import { limits } from '../../limits.ts';
import { type Item, isType, itemList, itemText, structuredItems } from '../structured-data.ts';
import { currencyCode, findPrices, type Price, parseAmount } from './price.ts';

/** The contract's product object. */
export interface Product {
  title: string;
  brand?: string;
  category?: string;
  url: string;
  description?: string;
  variants: Variant[];
}

export interface Variant {
  id?: string;
  sku?: string;
  title?: string;
  values?: Record<string, string>;
  price?: Price;
  sale?: { originalPrice: Price };
  availability: { inStock: boolean; text?: string };
  images?: { url: string; alt?: string }[];
}

/** Where the product came from: the page's markup, or, without any, evidence in its text. */
export type ProductSource = 'schema.org' | 'open-graph' | 'evidence';

const str = itemText;
const list = itemList;
const absolute = (url: string | undefined, base: string): string | undefined => {
  if (!url) return undefined;
  try {
    return new URL(url, base).href;
  } catch {
    return undefined;
  }
};

/** schema.org ItemAvailability: these mean it can be bought now. */
const BUYABLE = new Set(['InStock', 'InStoreOnly', 'OnlineOnly', 'LimitedAvailability']);

function availability(value: unknown): Variant['availability'] | undefined {
  const raw = str(value);
  if (!raw) return undefined;
  const name = raw
    .replace(/[#/]+$/, '')
    .split(/[/#:]/)
    .pop()!;
  const text = name.replace(/([a-z])([A-Z])/g, '$1 $2');
  return { inStock: BUYABLE.has(name), text: text.charAt(0) + text.slice(1).toLowerCase() };
}

function images(value: unknown, base: string): Variant['images'] {
  const out = list(value).flatMap((v) => {
    const url = absolute(typeof v === 'string' ? v : str((v as Item)?.url ?? (v as Item)?.contentUrl), base);
    const alt = typeof v === 'object' && v ? str((v as Item).caption ?? (v as Item).name) : undefined;
    return url ? [{ url, ...(alt && { alt }) }] : [];
  });
  return out.length > 0 ? out : undefined;
}

function price(amount: unknown, currency: unknown): Price | undefined {
  const value = typeof amount === 'number' ? amount : parseAmount(str(amount) ?? '');
  if (value === undefined) return undefined;
  const code = currencyCode(str(currency));
  return { amount: value, ...(code && { currency: code }) };
}

/** An Offer (or AggregateOffer) as a variant's price, sale and availability. */
function fromOffer(offer: Item): Pick<Variant, 'price' | 'sale' | 'availability' | 'sku'> | undefined {
  const specs = list(offer.priceSpecification).filter((s): s is Item => !!s && typeof s === 'object');
  const listed = specs.find((s) => /Strikethrough|ListPrice|MSRP/i.test(str(s.priceType) ?? ''));
  const current = specs.find((s) => s !== listed && s.price !== undefined);
  const now =
    price(offer.price ?? offer.lowPrice ?? current?.price, offer.priceCurrency ?? current?.priceCurrency) ??
    undefined;
  if (!now) return undefined;
  const was = listed ? price(listed.price, listed.priceCurrency ?? offer.priceCurrency) : undefined;
  return {
    price: now,
    ...(was && was.amount > now.amount && { sale: { originalPrice: was } }),
    availability: availability(offer.availability) ?? { inStock: true },
    ...(str(offer.sku) && { sku: str(offer.sku) }),
  };
}

function variantOf(product: Item, base: string, inherited: Item | undefined): Variant[] {
  const offers = list(product.offers ?? inherited?.offers).filter(
    (o): o is Item => !!o && typeof o === 'object',
  );
  const values: Record<string, string> = {};
  for (const key of ['color', 'size', 'material', 'pattern'])
    if (str(product[key])) values[key] = str(product[key])!;
  for (const p of list(product.additionalProperty))
    if (p && typeof p === 'object' && str((p as Item).name) && str((p as Item).value))
      values[str((p as Item).name)!] = str((p as Item).value)!;
  const common = {
    ...(str(product.productID ?? product['@id'] ?? product.gtin13 ?? product.gtin) && {
      id: str(product.productID ?? product['@id'] ?? product.gtin13 ?? product.gtin),
    }),
    ...(str(product.sku) && { sku: str(product.sku) }),
    ...(inherited && str(product.name) && { title: str(product.name) }),
    ...(Object.keys(values).length > 0 && { values }),
    ...(images(product.image, base) && { images: images(product.image, base) }),
  };
  const read = offers.map(fromOffer).filter((o) => o !== undefined);
  if (read.length === 0) return [{ ...common, availability: { inStock: true } }];
  return read.map((o) => ({ ...common, ...o, ...(common.sku && { sku: common.sku }) }));
}

function fromItem(item: Item, base: string): Product | undefined {
  const title = str(item.name);
  if (!title) return undefined;
  const category = list(item.category).map(str).filter(Boolean).join(' > ');
  const variants = isType(item, 'ProductGroup')
    ? list(item.hasVariant)
        .filter((v): v is Item => !!v && typeof v === 'object')
        .flatMap((v) => variantOf(v, base, item))
    : variantOf(item, base, undefined);
  return {
    title,
    ...(str(item.brand ?? item.manufacturer) && { brand: str(item.brand ?? item.manufacturer) }),
    ...(category && { category }),
    url: absolute(str(item.url), base) ?? base,
    ...(str(item.description) && { description: str(item.description) }),
    variants: variants.length > 0 ? variants : [{ availability: { inStock: true } }],
  };
}

/** The page's `<meta property|name=… content=…>`, lowercased names. */
function metas(tree: Root): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (node: Root | Element) => {
    for (const child of node.children as RootContent[]) {
      if (child.type !== 'element') continue;
      if (child.tagName === 'meta') {
        const name = String(child.properties.property ?? child.properties.name ?? '').toLowerCase();
        const content = child.properties.content;
        if (name && typeof content === 'string' && !out.has(name)) out.set(name, content);
      } else walk(child);
    }
  };
  walk(tree);
  return out;
}

function fromOpenGraph(meta: Map<string, string>, base: string): Product | undefined {
  if (!/^product/.test(meta.get('og:type') ?? '')) return undefined;
  const title = meta.get('og:title');
  if (!title) return undefined;
  const amount = meta.get('product:price:amount') ?? meta.get('og:price:amount');
  const p = amount
    ? price(amount, meta.get('product:price:currency') ?? meta.get('og:price:currency'))
    : undefined;
  const stock = meta.get('product:availability') ?? meta.get('og:availability');
  const image = absolute(meta.get('og:image'), base);
  return {
    title,
    ...(meta.get('product:brand') && { brand: meta.get('product:brand') }),
    ...(meta.get('product:category') && { category: meta.get('product:category') }),
    url: absolute(meta.get('og:url'), base) ?? base,
    ...(meta.get('og:description') && { description: meta.get('og:description') }),
    variants: [
      {
        ...(meta.get('product:retailer_item_id') && { sku: meta.get('product:retailer_item_id') }),
        ...(p && { price: p }),
        availability: stock
          ? { inStock: /^(in ?stock|instock|available|preorder)$/i.test(stock.trim()), text: stock.trim() }
          : { inStock: true },
        ...(image && { images: [{ url: image }] }),
      },
    ],
  };
}

const ADD_TO_CART =
  /\b(add to (cart|bag|basket|trolley)|buy (it )?now|in den warenkorb|ajouter au panier|añadir al carrito|aggiungi al carrello|in winkelwagen)\b/i;
const OUT_OF_STOCK =
  /\b(out of stock|sold out|currently unavailable|no longer available|ausverkauft|épuisé|agotado)\b/i;
const IN_STOCK = /\b(in stock|available now|ready to ship|ships (today|tomorrow|in \d+))\b/i;
const OPTION = /\b(size|colou?r|variant|style|material|width|length|capacity|flavou?r)\b/i;
/** Labels a product page gives the thing it sells. */
const PRODUCT_LABEL = /\b(sku|style|model|item|part|product code)\s?(#|no\.?|number)?\s?:/i;
const DISCOUNT = /\d+\s?% off\b|\bsave \S{0,3}\d/i;

/** The prices of `text` with where each stands. */
function pricesWithPlaces(text: string): { price: Price; start: number; end: number }[] {
  let from = 0;
  return findPrices(text).map((price) => {
    const start = text.indexOf(price.formatted!, from);
    from = start + price.formatted!.length;
    return { price, start, end: from };
  });
}

function elements(node: Root | Element, test: (el: Element) => boolean, out: Element[] = []): Element[] {
  for (const child of node.children as RootContent[]) {
    if (child.type !== 'element') continue;
    if (test(child)) out.push(child);
    elements(child, test, out);
  }
  return out;
}

/**
 * Without markup: a product when the page shows a price near its title and a way to buy it
 * (an add-to-cart button or form) or words about its stock. The title is its first heading (or
 * og:title, or the document's title); the first price after the heading is the price; a select
 * named like an option (size, colour, …) gives one variant per choice.
 */
function fromEvidence(raw: Root, main: Root, meta: Map<string, string>, base: string): Product | undefined {
  const heading =
    elements(main, (el) => el.tagName === 'h1')[0] ?? elements(raw, (el) => el.tagName === 'h1')[0];
  const title =
    (heading && toText(heading).replace(/\s+/g, ' ').trim()) ||
    meta.get('og:title') ||
    (elements(raw, (el) => el.tagName === 'title')[0] &&
      toText(elements(raw, (el) => el.tagName === 'title')[0]!).trim());
  if (!title) return undefined;
  // The page as a reader sees it, from its title on: the buy box sits near the title, and main
  // content extraction may have left it out.
  const page = toText(raw).replace(/\s+/g, ' ');
  const at = page.indexOf(title);
  const region = (at >= 0 ? page.slice(at) : toText(main).replace(/\s+/g, ' ')).slice(
    0,
    limits.productEvidenceChars,
  );
  const prices = pricesWithPlaces(region);
  const buyable =
    ADD_TO_CART.test(region) ||
    elements(
      raw,
      (el) =>
        (el.tagName === 'button' && ADD_TO_CART.test(toText(el))) ||
        (el.tagName === 'input' && ADD_TO_CART.test(String(el.properties.value ?? ''))) ||
        (el.tagName === 'form' && /cart|basket|checkout/i.test(String(el.properties.action ?? ''))) ||
        (['input', 'select'].includes(el.tagName) &&
          /^(qty|quantity)\b/i.test(String(el.properties.name ?? ''))),
    ).length > 0;
  const gone = OUT_OF_STOCK.exec(region);
  const stocked = IN_STOCK.exec(region);
  const traded = PRODUCT_LABEL.test(region) || DISCOUNT.test(region);
  if (prices.length === 0 || (!buyable && !gone && !stocked && !traded)) return undefined;
  const stock = gone
    ? { inStock: false, text: gone[0] }
    : stocked
      ? { inStock: true, text: stocked[0] }
      : { inStock: true };
  const [first, second] = prices;
  // Two prices side by side ("$116.97 $145", "<s>£20</s> £15") are a sale: the lower is paid.
  const paired = second && second.start - first!.end <= 30 && second.price.amount !== first!.price.amount;
  const [now, was] = paired
    ? first!.price.amount < second.price.amount
      ? [first!.price, second.price]
      : [second.price, first!.price]
    : [first!.price, undefined];
  const base1: Variant = { price: now, ...(was && { sale: { originalPrice: was } }), availability: stock };
  const selects = elements(
    raw,
    (el) =>
      el.tagName === 'select' &&
      OPTION.test(`${el.properties.name ?? ''} ${el.properties.id ?? ''} ${el.properties.ariaLabel ?? ''}`),
  );
  const select = selects.length === 1 ? selects[0]! : undefined;
  const label =
    select && (OPTION.exec(`${select.properties.name ?? ''} ${select.properties.id ?? ''}`)?.[0] ?? 'option');
  const choices = select
    ? elements(select, (el) => el.tagName === 'option' && el.properties.value !== '')
        .map((o) => toText(o).replace(/\s+/g, ' ').trim())
        .filter((t) => t && !/^(select|choose|pick)\b/i.test(t))
    : [];
  return {
    title,
    url: absolute(meta.get('og:url'), base) ?? base,
    ...(meta.get('og:description') && { description: meta.get('og:description') }),
    variants:
      choices.length > 1 && choices.length <= 50
        ? choices.map((choice) => ({ ...base1, title: choice, values: { [label!.toLowerCase()]: choice } }))
        : [base1],
  };
}

/**
 * The page's product: schema.org Product (or ProductGroup with its variants) in JSON-LD,
 * microdata or RDFa first; else Open Graph's product tags; else the page's own evidence.
 * `raw` is the page as fetched (scripts and all), `main` what the answer's Markdown is made from.
 */
export function readProduct(
  raw: Root,
  main: Root,
  pageUrl: string,
): { product: Product; source: ProductSource } | undefined {
  const items = structuredItems(raw);
  const candidates = items.filter((i) => isType(i, 'ProductGroup') || isType(i, 'Product'));
  // The one with offers (the page's product, not a related one listed beside it), first.
  const ordered = [...candidates].sort(
    (a, b) =>
      Number(b.offers !== undefined || b.hasVariant !== undefined) -
      Number(a.offers !== undefined || a.hasVariant !== undefined),
  );
  for (const item of ordered) {
    const product = fromItem(item, pageUrl);
    if (product) return { product, source: 'schema.org' };
  }
  const meta = metas(raw);
  const og = fromOpenGraph(meta, pageUrl);
  if (og) return { product: og, source: 'open-graph' };
  const evidence = fromEvidence(raw, main, meta, pageUrl);
  return evidence && { product: evidence, source: 'evidence' };
}
