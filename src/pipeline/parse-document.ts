import type { Root } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { parse as parse5 } from 'parse5';
import { converterFor } from '../convert/index.ts';
import type { FormatId } from '../detect/formats.ts';
import type { MetadataValue } from '../document/model.ts';
import { enrichInWorker, type ModelInput } from '../enrich/in-worker.ts';
import type { JsonValue } from '../enrich/json.ts';
import { type Menu, readMenu } from '../enrich/menu/menu.ts';
import type { EnrichPlan } from '../enrich/plan.ts';
import { type Product, readProduct } from '../enrich/product/product.ts';
import type { AttributesFormat, ParseOptions, PdfParserOptions } from '../options/parse-options.ts';
import { type AttributeValues, selectAttributes } from '../render/attributes.ts';
import { renderHtml } from '../render/html.ts';
import { collectImages } from '../render/images.ts';
import { collectLinks } from '../render/links.ts';
import { renderMarkdown } from '../render/markdown.ts';
import {
  blocksOutput,
  joinWithMarkers,
  type PageBlocks,
  type PageMarkdown,
  pagesOutput,
  type RenderMarkdown,
  renderByPage,
} from '../render/pages.ts';
import { transformDocument } from '../transform/index.ts';
import { type ModelRedaction, redactDocument, redactionText } from '../transform/pii/index.ts';
import { showPlaceholders } from '../transform/pii/placeholders.ts';
import { carryPicturesOnce } from '../transform/repeated-pictures.ts';
import { AnswerBudget, chars } from './answer-budget.ts';

export interface ParseJob {
  bytes: Uint8Array;
  filename: string;
  contentType: string | undefined;
  format: FormatId;
  options: ParseOptions;
  /** Notes from before conversion (a relabelled upload), passed on as `warning`. */
  warnings: string[];
  /** How summary and json are made, when asked for (decided by the API process, which knows the model). */
  enrich?: EnrichPlan;
  /** Where the bytes were fetched from (scrape); an upload has none and gets a synthetic URL. */
  origin?: PageOrigin;
  /** `redactPII` mode accurate with a language model: which step this conversion is. */
  piiModel?: ModelRedaction;
  /** The PDF pages the team's credits paid for (the options' maxPages is cut to it). */
  paidPages?: number;
}

/** A fetched page's addresses and answer, for its metadata; `url` is also its base URL. */
export interface PageOrigin {
  /** The URL the caller asked for. */
  sourceURL: string;
  /** The URL the bytes came from, after redirects. */
  url: string;
  statusCode: number;
  /** The origin's Content-Type, when it sent one. */
  contentType: string | undefined;
}

/** The envelope's `data`, less what only the HTTP layer knows (concurrency figures). */
export interface ParseData {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  /** Scrape's `attributes` format: per selector, the attribute's values. */
  attributes?: AttributeValues[];
  /** Each physical page's Markdown (PDF parser option `pages`). */
  pages?: PageMarkdown[];
  /** Each page's layout blocks (PDF parser option `blocks`). */
  blocks?: PageBlocks[];
  summary?: string | null;
  json?: JsonValue | null;
  answer?: string | null;
  highlights?: string | null;
  /** Scrape's `product` and `menu` formats; after `warning`, where the contract lists them. */
  product?: Product | null;
  menu?: Menu | null;
  metadata: {
    [key: string]: MetadataValue | number;
    sourceURL: string;
    url: string;
    statusCode: number;
    contentType: string;
  };
  warning?: string;
}

/** The work a conversion did, for metrics (and credits): pages of a paged document, pages OCR'd. */
export interface Usage {
  pages: number;
  ocrPages: number;
}

/** A parse's data, and what the API process's model calls read when they are to make summary or json. */
export interface ParsedDocument extends ParseData {
  /** Not part of the answer (nor is `usage`): the worker takes it out before serialising. */
  modelInput?: ModelInput;
  usage: Usage;
}

/**
 * The address an upload is known by. It is absolute so that relative references can be
 * made absolute, and under the reserved `.invalid` domain (RFC 2606) so that nobody mistakes
 * it for a place the file can be fetched from.
 */
export function uploadUrl(filename: string): string {
  return `https://uploads.quire.invalid/${encodeURIComponent(filename)}`;
}

/** convert → transform: the document and its transformed tree, for one upload. */
async function convertAndTransform(job: ParseJob) {
  const convert = converterFor(job.format);
  if (!convert) throw new Error(`no converter registered for ${job.format}`);
  const url = job.origin?.url ?? uploadUrl(job.filename);
  const doc = await convert({
    bytes: job.bytes,
    filename: job.filename,
    contentType: job.contentType,
    format: job.format,
    url,
    fetched: job.origin !== undefined,
    options: job.options,
  });
  carryPicturesOnce(doc.tree);
  return { doc, url, tree: transformDocument(doc, job.options) };
}

/**
 * The first step of `accurate` redaction with a model: the text the redaction would read, for
 * the API process to send to the model. Nothing is rendered.
 */
export async function textToRedact(
  job: ParseJob,
  maxChars: number,
): Promise<{ text: string; textChars: number }> {
  const { doc, tree } = await convertAndTransform(job);
  return redactionText(tree, doc, maxChars);
}

/**
 * The `product` format: read from the page as fetched (its scripts hold the JSON-LD) and from
 * its main content; null, with upstream's warning, when it is no product page.
 */
function productOf(raw: Root | undefined, main: Root, url: string, warnings: string[]): Product | null {
  if (raw === undefined) {
    warnings.push(
      'product: only HTML pages are read for a product; this document is not one, so product is null.',
    );
    return null;
  }
  const found = readProduct(raw, main, url);
  if (!found) {
    warnings.push('No product found on this page; it does not appear to be a product page.');
    return null;
  }
  if (found.source === 'evidence')
    warnings.push(
      'product: the page has no schema.org or Open Graph product markup, so the product was read from its text (a price after its title, with an add-to-cart button or words about its stock); check it.',
    );
  return found.product;
}

/** The `menu` format: always a menu object, `isMenu` false for a page that is not one (and a warning). */
function menuOf(
  raw: Root | undefined,
  main: Root,
  url: string,
  title: MetadataValue | undefined,
  warnings: string[],
): Menu | null {
  if (raw === undefined) {
    warnings.push('menu: only HTML pages are read for a menu; this document is not one, so menu is null.');
    return null;
  }
  const menu = readMenu(raw, main, url, typeof title === 'string' ? title : undefined);
  if (!menu.isMenu) warnings.push('No menu found on this page; it does not appear to be a menu page.');
  return menu;
}

/**
 * convert → transform → render → enrich, for one upload. Runs inside a conversion worker; the
 * HTTP layer has already validated the options and decided the format.
 */
export async function parseDocument(job: ParseJob): Promise<ParsedDocument> {
  const { doc, url, tree } = await convertAndTransform(job);
  // PII redaction: on the tree, before anything is rendered from it (and on the metadata and page blocks).
  const redaction = await redactDocument(tree, job.options.redactPII, doc, job.piiModel);
  const wanted = new Set(job.options.formats.map((f) => f.type));
  const { removeBase64Images } = job.options;

  const tagged = redaction.placeholders;
  const render: RenderMarkdown = (root) => {
    const markdown = renderMarkdown(root, { removeBase64Images, source: doc.kind });
    return tagged ? showPlaceholders(markdown) : markdown;
  };
  // Per-page outputs: for paged documents only (a PDF converted with them asked for).
  const pdf = job.options.parsers.find((p): p is PdfParserOptions => p.type === 'pdf');
  const paged = doc.pages && pdf ? { pages: doc.pages, options: pdf } : undefined;
  let byPage: Map<number, string> | undefined;

  // Outputs first and metadata last, the order the hosted service answers in; each counted
  // against the answer's budget as it is made.
  const budget = new AnswerBudget();
  const outputs: Omit<ParseData, 'metadata'> = {};
  if (wanted.has('markdown')) {
    if (paged?.options.pageMarkers) {
      byPage = renderByPage(tree, render);
      outputs.markdown = budget.add('markdown', joinWithMarkers(byPage), chars);
    } else outputs.markdown = budget.add('markdown', render(tree), chars);
  }
  if (wanted.has('html')) outputs.html = budget.add('html', renderHtml(tree), chars);
  if (wanted.has('rawHtml'))
    outputs.rawHtml = budget.add('rawHtml', doc.rawHtml ?? renderHtml(doc.tree), chars);
  if (wanted.has('links')) outputs.links = budget.add('links', collectLinks(tree), chars);
  if (wanted.has('images')) outputs.images = budget.add('images', collectImages(tree), chars);
  const attributes = job.options.formats.find((f): f is AttributesFormat => f.type === 'attributes');
  if (attributes && attributes.selectors.length > 0) {
    const found = selectAttributes(tree, attributes.selectors);
    outputs.attributes = budget.add('attributes', found, (a) => chars(a.flatMap((entry) => entry.values)));
  }
  if (paged && (paged.options.pages || paged.options.pageMarkdown)) {
    const pages = pagesOutput(paged.pages, byPage ?? renderByPage(tree, render));
    outputs.pages = budget.add('pages', pages, (p) => chars(p.map((page) => page.markdown)));
  }
  if (paged?.options.blocks) {
    const blocks = blocksOutput(paged.pages, tree, outputs.markdown, render);
    outputs.blocks = budget.add('blocks', blocks, (b) => JSON.stringify(b).length);
  }
  // Enrich (summary, json): the offline methods run here, on the tree; for a model, the Markdown
  // it reads goes back to the API process, which makes the calls.
  const enriched = job.enrich
    ? enrichInWorker(job.enrich, tree, doc.metadata, () => outputs.markdown ?? render(tree))
    : undefined;
  Object.assign(outputs, enriched?.outputs);
  const data: ParsedDocument = {
    usage: {
      pages: typeof doc.metadata.numPages === 'number' ? doc.metadata.numPages : 0,
      ocrPages: doc.ocrPages ?? 0,
    },
    ...outputs,
    metadata: {
      ...doc.metadata,
      sourceURL: job.origin?.sourceURL ?? job.filename,
      url,
      statusCode: job.origin?.statusCode ?? 200,
      contentType: job.origin?.contentType ?? doc.contentType,
    },
  };
  const warnings = [...job.warnings, ...doc.warnings, ...redaction.warnings, ...(enriched?.warnings ?? [])];
  const total = doc.metadata.totalPages;
  if (job.paidPages !== undefined && typeof total === 'number' && total > job.paidPages)
    warnings.push(
      `The team's credits paid for ${job.paidPages} of the document's ${total} pages; the rest were not parsed.`,
    );
  // The page as fetched, scripts and all (schema.org's JSON-LD is in them), read once for both.
  const raw =
    (wanted.has('product') || wanted.has('menu')) && doc.rawHtml !== undefined
      ? (fromParse5(parse5(doc.rawHtml)) as Root)
      : undefined;
  const product = wanted.has('product') ? productOf(raw, tree, url, warnings) : undefined;
  const menu = wanted.has('menu') ? menuOf(raw, tree, url, doc.metadata.title, warnings) : undefined;
  if (warnings.length > 0) data.warning = warnings.join(' ');
  if (product !== undefined) data.product = product;
  if (menu !== undefined) data.menu = menu;
  if (enriched?.modelInput) data.modelInput = enriched.modelInput;
  return data;
}
