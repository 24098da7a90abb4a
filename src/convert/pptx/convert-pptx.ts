import type { Element, ElementContent, Root } from 'hast';
import { formats } from '../../detect/formats.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { mainPart, readCoreProperties } from '../package/ooxml.ts';
import { child, childrenNamed, XmlBudget } from '../package/xml.ts';
import { openZip } from '../package/zip.ts';
import { Deck, type Part } from './deck.ts';
import { InheritanceCache } from './placeholders.ts';
import { SlideWalker } from './slide.ts';

/**
 * PPTX / PPTM (PresentationML) → document, slide by slide in presentation order.
 *
 * Each slide opens with a comment carrying its number (`<!-- Slide number: 3 -->`, the
 * markitdown convention: the number is kept without becoming words of the slide's text or
 * its heading) and its title as an h2, then its shapes in reading order, then its speaker
 * notes under a "Notes:" label. Hidden slides are converted too and marked hidden in that
 * comment: they are part of the deck's content, only not shown during a slide show.
 * Not read: slide masters' own decoration, comments, and VBA macros of PPTM files (never run,
 * never looked at). A slide that cannot be read costs only itself, with a warning.
 */

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0];

function contentTypeOf(format: string): string {
  return (
    formats.find((f) => f.id === format)?.mimeTypes[0] ?? formats.find((f) => f.id === 'pptx')!.mimeTypes[0]!
  );
}

function refuseOle(bytes: Uint8Array): void {
  if (!OLE_SIGNATURE.every((b, i) => bytes[i] === b)) return;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.includes(Buffer.from('EncryptedPackage', 'utf16le'))) {
    throw new ConversionError(
      'ENCRYPTED_DOCUMENT',
      'The PowerPoint file is password-protected (encrypted); remove the password and retry.',
    );
  }
  throw new ConversionError(
    'UNPARSABLE_DOCUMENT',
    'The file is an OLE compound file (PowerPoint 97-2003?), not a PPTX package; upload it as .ppt.',
  );
}

/** Slide parts in presentation order: p:sldIdLst through the relationships. */
function slidePaths(deck: Deck, presentation: Part): string[] {
  const list = child(presentation.root, 'p:sldIdLst');
  const paths = new Set<string>();
  for (const id of list ? childrenNamed(list, 'p:sldId') : []) {
    const rel = presentation.rels.get(id.attrs['r:id'] ?? '');
    // A listed slide whose part is missing keeps its number (converting it reports the loss);
    // a part listed twice is converted once, so that a list cannot multiply one big slide.
    if (rel && !rel.external && rel.type === 'slide') paths.add(rel.target);
  }
  if (paths.size > 0) return [...paths];
  // No usable list: every slide relationship, in the order of the slides' numbers.
  const number = (p: string): number => Number(/(\d+)\.xml$/.exec(p)?.[1] ?? 0);
  for (const rel of presentation.rels.values())
    if (rel.type === 'slide' && !rel.external && deck.zip.has(rel.target)) paths.add(rel.target);
  return [...paths].sort((a, b) => number(a) - number(b));
}

const FALLBACK_MAIN = 'ppt/presentation.xml';

/** A damaged package-level part (its relationships, its properties) costs a warning, not the deck. */
function recovering<T>(read: () => T, fallback: T, warnings: string[]): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof ConversionError) || err.code !== 'UNPARSABLE_DOCUMENT') throw err;
    warnings.push(err.message);
    return fallback;
  }
}

function el(tagName: string, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties: {}, children };
}

function convertSlide(deck: Deck, cache: InheritanceCache, path: string, number: number): ElementContent[] {
  const part = deck.part(path);
  if (!part) throw new Error(deck.zip.has(path) ? 'the part is damaged' : 'the part is missing');
  if (part.root.name !== 'p:sld') throw new Error(`the part is a ${part.root.name}, not a slide`);
  const hidden = part.root.attrs.show === '0' || part.root.attrs.show === 'false';
  const out: ElementContent[] = [
    { type: 'comment', value: ` Slide number: ${number}${hidden ? ' (hidden)' : ''} ` },
  ];
  const { title, blocks } = new SlideWalker(deck, part, cache.forSlide(part), false).content();
  if (title) out.push(el('h2', [{ type: 'text', value: title }]));
  for (const b of blocks) out.push(b);
  const notesPart = deck.relatedOfType(part, 'notesSlide');
  if (notesPart && deck.firstShowing(notesPart)) {
    const notes = new SlideWalker(deck, notesPart, cache.forSlide(notesPart), true).content().blocks;
    if (notes.length > 0) {
      out.push(el('p', [el('strong', [{ type: 'text', value: 'Notes:' }])]));
      for (const b of notes) out.push(b);
    }
  }
  return out;
}

export const convertPptx: Converter = (input) => {
  refuseOle(input.bytes);
  const zip = openZip(input.bytes);
  const budget = new XmlBudget();
  const warnings: string[] = [];
  const deck = new Deck(zip, budget, warnings);
  const mainPath = recovering(() => mainPart(zip, budget, FALLBACK_MAIN), FALLBACK_MAIN, warnings);
  if (!zip.has(mainPath))
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The package has no presentation part (ppt/presentation.xml).',
    );
  // A presentation part too damaged to read still has relationships naming the slides.
  const presentation = deck.part(mainPath) ?? {
    path: mainPath,
    root: { name: 'p:presentation', attrs: {}, children: [] },
    rels: deck.relationships(mainPath),
  };
  if (presentation.root.name !== 'p:presentation')
    throw new ConversionError('UNPARSABLE_DOCUMENT', `${mainPath} is not a PowerPoint presentation part.`);

  const cache = new InheritanceCache(deck);
  const tree: Root = { type: 'root', children: [] };
  slidePaths(deck, presentation).forEach((path, i) => {
    try {
      for (const node of convertSlide(deck, cache, path, i + 1)) tree.children.push(node);
    } catch (err) {
      if (err instanceof ConversionError && err.code !== 'UNPARSABLE_DOCUMENT') throw err;
      const why = err instanceof Error ? err.message : String(err);
      warnings.push(`Slide ${i + 1} (${path}) could not be read and was left out: ${why}.`);
    }
  });

  return {
    kind: 'document',
    tree,
    metadata: recovering(() => readCoreProperties(zip, budget), {}, warnings),
    contentType: contentTypeOf(input.format),
    baseUrl: input.url,
    warnings,
  };
};
