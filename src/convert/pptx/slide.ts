import type { Element, ElementContent } from 'hast';
import { chooseAlternate } from '../package/alternate-content.ts';
import { child, descendant, type XmlElement } from '../package/xml.ts';
import type { Deck, Part } from './deck.ts';
import { chartBlocks, diagramBlocks } from './graphic-frame.ts';
import {
  type Inheritance,
  isTitle,
  MARGINAL,
  type PlaceholderId,
  type Position,
  placeholderOf,
  positionOf,
} from './placeholders.ts';
import { drawingTable } from './table.ts';
import { plainTitle, type TextContext, textBlocks } from './text-body.ts';

/**
 * The shapes of one slide (p:spTree) in reading order: the title placeholder first, other
 * placeholders next, then the remaining shapes top to bottom and left to right. A group is
 * placed as one shape and its members ordered among themselves.
 */

/** Slide numbers and (in notes) slide thumbnails are never content. */
const FURNITURE = new Set(['sldNum', 'sldImg']);

interface Placed {
  rank: number;
  position: Position;
  blocks: ElementContent[];
}

const ORIGIN: Position = { x: 0, y: 0 };

export interface SlideContent {
  title: string;
  blocks: ElementContent[];
}

function el(tagName: string, children: ElementContent[], properties: Element['properties'] = {}): Element {
  return { type: 'element', tagName, properties, children };
}

/** A picture's description or title; names ("Picture 3") say nothing and are left out. */
function altOf(shape: XmlElement): string {
  const cNvPr = descendant(shape, 'p:cNvPr');
  return (cNvPr?.attrs.descr || cNvPr?.attrs.title || '').replace(/\s+/g, ' ').trim();
}

export class SlideWalker {
  private readonly deck: Deck;
  private readonly part: Part;
  private readonly inheritance: Inheritance;
  /** Notes pages show only their body placeholder's text. */
  private readonly notes: boolean;
  private title: string | undefined;

  constructor(deck: Deck, part: Part, inheritance: Inheritance, notes: boolean) {
    this.deck = deck;
    this.part = part;
    this.inheritance = inheritance;
    this.notes = notes;
  }

  content(): SlideContent {
    const tree = child(child(this.part.root, 'p:cSld') ?? this.part.root, 'p:spTree');
    const blocks = tree ? this.shapes(tree) : [];
    return { title: this.title ?? '', blocks };
  }

  /** The members of a shape tree or group, in reading order. */
  private shapes(tree: XmlElement): ElementContent[] {
    const placed: Placed[] = [];
    this.collect(tree.children, placed);
    // Array.prototype.sort is stable: equal positions keep document order.
    placed.sort((a, b) => a.rank - b.rank || a.position.y - b.position.y || a.position.x - b.position.x);
    const out: ElementContent[] = [];
    for (const p of placed) for (const b of p.blocks) out.push(b);
    return out;
  }

  private collect(nodes: XmlElement['children'], placed: Placed[]): void {
    for (const node of nodes) {
      if (typeof node === 'string') continue;
      if (node.name === 'mc:AlternateContent') {
        const chosen = chooseAlternate(node);
        if (chosen) this.collect(chosen.children, placed);
        continue;
      }
      const ph = placeholderOf(node);
      // Dates, footers and headers count when typed in (runs), not when they are only fields.
      if (ph && (FURNITURE.has(ph.type) || (MARGINAL.has(ph.type) && !descendant(node, 'a:r')))) continue;
      if (this.notes && ph?.type !== 'body') continue;
      const inherited = this.inheritance.resolve(ph);
      const own = positionOf(child(node, 'p:spPr') ?? child(node, 'p:grpSpPr') ?? child(node, 'p:xfrm'));
      const position = own ?? inherited.position ?? ORIGIN;
      const rank = !ph ? 2 : isTitle(ph.type) ? 0 : MARGINAL.has(ph.type) ? 3 : 1;
      let blocks: ElementContent[];
      switch (node.name) {
        case 'p:sp':
          blocks = this.shape(node, ph, inherited.lstStyles);
          break;
        case 'p:grpSp':
          blocks = this.shapes(node);
          break;
        case 'p:pic':
          blocks = this.picture(node);
          break;
        case 'p:graphicFrame':
          blocks = this.graphicFrame(node);
          break;
        default:
          // Connectors, ink (p:contentPart), properties: nothing to read.
          continue;
      }
      if (blocks.length > 0) placed.push({ rank, position, blocks });
    }
  }

  private textContext(
    ph: PlaceholderId | undefined,
    lstStyles: readonly XmlElement[],
    own: XmlElement | undefined,
  ): TextContext {
    return {
      deck: this.deck,
      part: this.part,
      lstStyles: own ? [own, ...lstStyles] : lstStyles,
      defaultBullet: !this.notes && this.inheritance.bare && (ph?.type === 'obj' || ph?.type === 'body'),
    };
  }

  private shape(
    node: XmlElement,
    ph: PlaceholderId | undefined,
    lstStyles: readonly XmlElement[],
  ): ElementContent[] {
    const body = child(node, 'p:txBody');
    if (!body) return [];
    if (ph && isTitle(ph.type) && this.title === undefined && !this.notes) {
      const title = plainTitle(body);
      if (title) {
        this.title = title;
        return [];
      }
    }
    return textBlocks(body, this.textContext(ph, lstStyles, child(body, 'a:lstStyle')));
  }

  private picture(node: XmlElement): ElementContent[] {
    const blip = descendant(child(node, 'p:blipFill') ?? node, 'a:blip');
    // Linked pictures keep their link, as in DOCX: the description is what still says something.
    const src =
      blip &&
      (this.deck.image(this.part, blip.attrs['r:embed']) ?? this.deck.link(this.part, blip.attrs['r:link']));
    if (!src) return [];
    return [el('p', [el('img', [], { src, alt: altOf(node) })])];
  }

  private graphicFrame(node: XmlElement): ElementContent[] {
    const data = descendant(node, 'a:graphicData');
    if (!data) return [];
    const tbl = child(data, 'a:tbl');
    if (tbl) {
      const ctx = this.textContext(undefined, [], undefined);
      return [drawingTable(tbl, (txBody) => textBlocks(txBody, ctx))];
    }
    const chart = child(data, 'c:chart');
    if (chart) {
      const part = this.deck.related(this.part, chart.attrs['r:id']);
      return part && this.deck.firstShowing(part) ? chartBlocks(part, this.deck.warnings) : [];
    }
    const relIds = child(data, 'dgm:relIds');
    if (relIds) return diagramBlocks(this.deck, this.part, relIds);
    // Embedded objects and others: the picture PowerPoint shows in their place, else the
    // frame's description, the only words left for an object Quire does not read.
    const pic = descendant(data, 'p:pic');
    const blocks = pic ? this.picture(pic) : [];
    const alt = blocks.length === 0 ? altOf(node) : '';
    return alt ? [el('p', [{ type: 'text', value: alt }])] : blocks;
  }
}
