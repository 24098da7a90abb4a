import { child, type XmlElement } from '../package/xml.ts';
import type { Deck, Part } from './deck.ts';

/**
 * What a slide's placeholder inherits from its layout and master (ECMA-376 §19.3.1.36):
 * position, when the slide does not move it, and list styles, which say whether paragraphs
 * carry bullets or numbers.
 */

export interface Position {
  x: number;
  y: number;
}

/** A placeholder as a layout or master defines it. */
interface Template {
  position: Position | undefined;
  lstStyle: XmlElement | undefined;
}

/** The placeholders of one layout or master, by idx and by type. */
interface Templates {
  byIdx: Map<string, Template>;
  byType: Map<string, Template>;
}

/** A slide placeholder's identity: its type (`title`, `body`, ...) and idx. */
export interface PlaceholderId {
  type: string;
  idx: string | undefined;
}

/** Inherited facts for one shape: its position and the list styles from nearest to farthest. */
export interface Inherited {
  position: Position | undefined;
  lstStyles: XmlElement[];
}

/** Dates, footers, headers and slide numbers: marginal placeholders. */
export const MARGINAL: ReadonlySet<string> = new Set(['dt', 'ftr', 'hdr', 'sldNum']);

/** Layout and master placeholder types are matched up through these families. */
function family(type: string): string {
  if (type === 'ctrTitle' || type === 'title') return 'title';
  if (type === 'subTitle' || type === 'obj' || type === 'body') return 'body';
  return type;
}

export function isTitle(type: string): boolean {
  return type === 'title' || type === 'ctrTitle';
}

/** The offset of a shape's properties (p:spPr, p:grpSpPr: their a:xfrm) or of a frame's own p:xfrm. */
export function positionOf(spPr: XmlElement | undefined): Position | undefined {
  const xfrm = spPr?.name === 'p:xfrm' ? spPr : spPr && child(spPr, 'a:xfrm');
  const off = xfrm && child(xfrm, 'a:off');
  if (!off) return undefined;
  const x = Number(off.attrs.x);
  const y = Number(off.attrs.y);
  return Number.isFinite(x) && Number.isFinite(y) ? { x, y } : undefined;
}

/** The p:ph of a shape's non-visual properties (p:nvSpPr, p:nvPicPr, p:nvGraphicFramePr). */
export function placeholderOf(shape: XmlElement): PlaceholderId | undefined {
  for (const c of shape.children) {
    if (typeof c === 'string' || !c.name.startsWith('p:nv')) continue;
    const ph = child(child(c, 'p:nvPr') ?? c, 'p:ph');
    if (ph) return { type: ph.attrs.type ?? 'obj', idx: ph.attrs.idx };
    return undefined;
  }
  return undefined;
}

function readTemplates(part: Part): Templates {
  const byIdx = new Map<string, Template>();
  const byType = new Map<string, Template>();
  const tree = child(child(part.root, 'p:cSld') ?? part.root, 'p:spTree');
  for (const shape of tree?.children ?? []) {
    if (typeof shape === 'string') continue;
    const ph = placeholderOf(shape);
    if (!ph) continue;
    const body = child(shape, 'p:txBody');
    const template: Template = {
      position: positionOf(child(shape, 'p:spPr') ?? child(shape, 'p:xfrm')),
      lstStyle: body && child(body, 'a:lstStyle'),
    };
    if (ph.idx !== undefined && !byIdx.has(ph.idx)) byIdx.set(ph.idx, template);
    const key = family(ph.type);
    if (!byType.has(key)) byType.set(key, template);
  }
  return { byIdx, byType };
}

/** The layout and master of one slide, and how its shapes inherit from them. */
export class Inheritance {
  private readonly layout: Templates | undefined;
  private readonly master: Templates | undefined;
  /** The master's p:txStyles: titleStyle, bodyStyle, otherStyle. */
  private readonly txStyles: XmlElement | undefined;

  constructor(
    layout: Templates | undefined,
    master: Templates | undefined,
    txStyles: XmlElement | undefined,
  ) {
    this.layout = layout;
    this.master = master;
    this.txStyles = txStyles;
  }

  /** What a shape inherits; `ph` undefined for shapes that are not placeholders. */
  resolve(ph: PlaceholderId | undefined): Inherited {
    const lstStyles: XmlElement[] = [];
    let position: Position | undefined;
    if (ph) {
      for (const templates of [this.layout, this.master]) {
        if (!templates) continue;
        // Layouts match by idx first; masters have one placeholder per type.
        const t =
          (templates === this.layout && ph.idx !== undefined ? templates.byIdx.get(ph.idx) : undefined) ??
          templates.byType.get(family(ph.type));
        if (!t) continue;
        position ??= t.position;
        if (t.lstStyle) lstStyles.push(t.lstStyle);
      }
    }
    // Footers, dates and slide numbers take the master's otherStyle, like shapes that are no placeholder.
    const styleName =
      !ph || MARGINAL.has(ph.type) ? 'p:otherStyle' : isTitle(ph.type) ? 'p:titleStyle' : 'p:bodyStyle';
    const master = this.txStyles && child(this.txStyles, styleName);
    if (master) lstStyles.push(master);
    return { position, lstStyles };
  }

  /** True when the master says nothing about list styles (a package without masters). */
  get bare(): boolean {
    return this.txStyles === undefined;
  }
}

/** Layouts and masters read once per deck, however many slides use them. */
export class InheritanceCache {
  private readonly deck: Deck;
  private readonly templates = new Map<string, Templates>();

  constructor(deck: Deck) {
    this.deck = deck;
  }

  private of(part: Part | undefined): Templates | undefined {
    if (!part) return undefined;
    let t = this.templates.get(part.path);
    if (!t) {
      t = readTemplates(part);
      this.templates.set(part.path, t);
    }
    return t;
  }

  /** Inheritance for a slide (or notes slide: its notes master plays both roles). */
  forSlide(slide: Part): Inheritance {
    const layout = this.deck.relatedOfType(slide, 'slideLayout');
    const master =
      (layout && this.deck.relatedOfType(layout, 'slideMaster')) ??
      this.deck.relatedOfType(slide, 'notesMaster');
    const txStyles = master && child(master.root, 'p:txStyles');
    return new Inheritance(this.of(layout), this.of(master), txStyles);
  }
}
