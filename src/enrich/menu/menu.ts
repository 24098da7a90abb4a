import type { Root } from 'hast';
import { type Outline, outline } from '../outline.ts';
import { findPrices, type Price, parseAmount } from '../product/price.ts';
import { type Item, isType, itemList, itemText, structuredItems } from '../structured-data.ts';

/** The contract's menu object. */
export interface Menu {
  isMenu: boolean;
  confidence: number;
  merchant: { name: string; type?: string };
  currency?: string;
  sections: MenuSection[];
  sourceUrl: string | null;
}

export interface MenuSection {
  id: string;
  name: string;
  description: string | null;
  items: MenuItem[];
}

export interface MenuItem {
  id: string;
  name: string;
  description: string | null;
  images: { url: string; alt: string | null }[];
  price?: Price;
  availability: { inStock: boolean; text: string | null };
  dietary: string[];
  calories: number | null;
  optionGroups: Record<string, unknown>[];
  identifiers: { merchantItemId?: string };
  url: string | null;
  sourceUrl: string | null;
}

const str = itemText;
const objects = (v: unknown): Item[] => itemList(v).filter((x): x is Item => !!x && typeof x === 'object');

/** schema.org RestrictedDiet names as plain words: "VeganDiet" is "vegan". */
const dietName = (diet: string) =>
  (diet.split(/[/#:]/).pop() ?? diet)
    .replace(/Diet$/, '')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();

function schemaItem(item: Item, id: string, pageUrl: string): MenuItem {
  const offer = objects(item.offers)[0];
  const amount = offer && parseAmount(str(offer.price) ?? '');
  const currency = str(offer?.priceCurrency);
  const calories = parseAmount((str(objects(item.nutrition)[0]?.calories) ?? '').replace(/[^\d.,]/g, ''));
  const image = str(item.image);
  return {
    id,
    name: str(item.name)!,
    description: str(item.description) ?? null,
    images: image ? [{ url: new URL(image, pageUrl).href, alt: null }] : [],
    ...(amount !== undefined && { price: { amount, ...(currency && { currency }) } }),
    availability: {
      inStock: !/OutOfStock|SoldOut|Discontinued/.test(str(offer?.availability) ?? ''),
      text: null,
    },
    dietary: [item.suitableForDiet]
      .flat()
      .filter((d): d is string => typeof d === 'string')
      .map(dietName),
    calories: calories ?? null,
    optionGroups: [],
    identifiers: str(item.identifier ?? item.sku) ? { merchantItemId: str(item.identifier ?? item.sku) } : {},
    url: null,
    sourceUrl: pageUrl,
  };
}

function schemaSections(menu: Item, pageUrl: string): MenuSection[] {
  const sections: MenuSection[] = [];
  const add = (section: Item, name: string | undefined) => {
    const index = sections.length;
    const items = objects(section.hasMenuItem)
      .filter((i) => str(i.name))
      .map((i, n) => schemaItem(i, `s${index}-i${n}`, pageUrl));
    if (items.length > 0)
      sections.push({
        id: `s${index}`,
        name: name ?? 'Menu',
        description: str(section.description) ?? null,
        items,
      });
    for (const nested of objects(section.hasMenuSection)) add(nested, str(nested.name));
  };
  add(menu, undefined);
  return sections;
}

/** Marks menus print beside a dish, as the words the `dietary` list uses. */
const DIETARY: [RegExp, string][] = [
  [/\(vg\)|\bvegan\b|🌱/i, 'vegan'],
  [/\(v\)|\bvegetarian\b/i, 'vegetarian'],
  [/\(gf\)|\bgluten[- ]free\b/i, 'gluten-free'],
  [/\(df\)|\bdairy[- ]free\b/i, 'dairy-free'],
  [/\bnut[- ]free\b/i, 'nut-free'],
  [/🌶|\bspicy\b|\(s\)/i, 'spicy'],
];

/** A menu line's price: with a currency where it shows one, else a bare amount ending the line. */
function linePrice(line: string): { price: Price; at: number } | undefined {
  const [priced] = findPrices(line);
  if (priced?.formatted) return { price: priced, at: line.indexOf(priced.formatted) };
  const bare = /(?:^|[\s.…·_-])(\d{1,4}(?:[.,]\d{2})?)\s*$/.exec(line);
  const amount = bare && parseAmount(bare[1]!);
  return amount !== undefined && amount !== null
    ? { price: { amount, formatted: bare![1] }, at: bare!.index }
    : undefined;
}

/** "Margherita ........ 9.50": the name without the leader dots and the price. */
const nameBefore = (line: string, at: number) =>
  line
    .slice(0, at)
    .replace(/[\s.…·_-]+$/, '')
    .trim();

/**
 * Without schema.org: the page's own structure. Headings open sections; a list item, paragraph
 * or table row that holds a price is an item, its first line (or cell) without the price its
 * name, the rest its description. A page with fewer than three priced items is not a menu.
 */
function evidenceMenu(doc: Outline, pageUrl: string): MenuSection[] {
  const sections: MenuSection[] = [];
  let current: MenuSection | undefined;
  const section = (name: string) => {
    current = { id: `s${sections.length}`, name, description: null, items: [] };
    sections.push(current);
  };
  const addItem = (name: string, description: string, price: Price, whole: string) => {
    if (!current) section('Menu');
    const s = current!;
    s.items.push({
      id: `${s.id}-i${s.items.length}`,
      name,
      description: description || null,
      images: [],
      price,
      availability: { inStock: !/\bsold out\b|\bunavailable\b/i.test(whole), text: null },
      dietary: DIETARY.filter(([re]) => re.test(whole)).map(([, d]) => d),
      calories: Number(/(\d{2,4})\s?k?cal\b/i.exec(whole)?.[1]) || null,
      optionGroups: [],
      identifiers: {},
      url: null,
      sourceUrl: pageUrl,
    });
  };
  for (const block of doc.blocks) {
    if (block.kind === 'heading') section(block.text);
    else if (block.kind === 'text') {
      const lines = block.text.split('\n');
      const at = lines.findIndex((l) => linePrice(l));
      if (at < 0) continue;
      const found = linePrice(lines[at]!)!;
      const named = nameBefore(lines[at]!, found.at);
      const name = at === 0 ? named : lines[0]!;
      const rest = lines.filter((_, i) => i !== 0 && i !== at);
      if (at !== 0 && named) rest.unshift(named);
      if (name && name.length <= 120) addItem(name, rest.join(' '), found.price, block.text);
    } else {
      for (const row of block.rows) {
        if (row.header) continue;
        const priceCell = row.cells.findIndex((c) => linePrice(c));
        if (priceCell <= 0) continue;
        const found = linePrice(row.cells[priceCell]!)!;
        const others = row.cells.filter((_, i) => i !== priceCell && i !== 0).filter(Boolean);
        addItem(row.cells[0]!, others.join(' '), found.price, row.cells.join(' '));
      }
    }
  }
  return sections.filter((s) => s.items.length > 0);
}

/**
 * The page's menu: schema.org `Menu` (or a restaurant's `hasMenu`) in JSON-LD, microdata or
 * RDFa first; else its own structure. Always an answer: `isMenu` false, with a low confidence
 * and no sections, for a page that is not a menu.
 */
export function readMenu(raw: Root, main: Root, pageUrl: string, title: string | undefined): Menu {
  const items = structuredItems(raw);
  const place = items.find((i) => i.hasMenu !== undefined);
  const menu =
    items.find((i) => isType(i, 'Menu')) ??
    objects(place?.hasMenu).find((m) => isType(m, 'Menu') || m.hasMenuSection || m.hasMenuItem);
  const merchantName = str(place?.name) ?? title ?? new URL(pageUrl).hostname;
  const merchantType = place ? str(place['@type']) : undefined;
  const merchant = { name: merchantName, ...(merchantType && { type: merchantType }) };
  const schema = menu ? schemaSections(menu, pageUrl) : [];
  const sections = schema.length > 0 ? schema : evidenceMenu(outline(main), pageUrl);
  const all = sections.flatMap((s) => s.items);
  const currencies = new Set(all.map((i) => i.price?.currency).filter(Boolean));
  const currency = currencies.size === 1 ? [...currencies][0] : undefined;
  if (currency) for (const i of all) if (i.price && !i.price.currency) i.price.currency = currency;
  const count = all.length;
  const isMenu = schema.length > 0 || count >= 3;
  // Markup says so outright; structure grows more certain with every priced item found.
  const confidence =
    schema.length > 0 ? 0.95 : isMenu ? Math.min(0.9, 0.5 + 0.04 * count) : Math.min(0.3, 0.1 * count);
  return {
    isMenu,
    confidence: Math.round(confidence * 100) / 100,
    merchant,
    ...(currency && { currency }),
    sections: isMenu ? sections : [],
    sourceUrl: pageUrl,
  };
}
