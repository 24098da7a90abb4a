import type { ElementContent } from 'hast';
import { type FrameContent, SHAPES } from '../odf/frames.ts';
import { append, el } from '../odf/hast.ts';
import { InlineWalker, plainText } from '../odf/inline.ts';
import type { OdfStyles } from '../odf/styles.ts';
import { cellContent, convertTable, TRUNCATED_REPEATS_WARNING } from '../odf/table.ts';
import { child, type XmlElement } from '../package/xml.ts';
import { TextBlocks } from './text-blocks.ts';

/**
 * One presentation page (draw:page) in reading order: the title frame first, the other
 * presentation placeholders (outline, subtitle, ...) next, then the remaining shapes top to
 * bottom and left to right by svg:y / svg:x. Groups (draw:g) are placed as one shape.
 */

/** Placeholder classes that are page furniture or previews, not content. */
const FURNITURE = new Set(['page-number', 'page', 'handout']);
const MARGINALIA = new Set(['header', 'footer', 'date-time']);

const CM: Record<string, number> = { cm: 1, mm: 0.1, in: 2.54, pt: 2.54 / 72, pc: 2.54 / 6, px: 2.54 / 96 };

function cm(value: string | undefined): number | undefined {
  const m = value ? /^(-?\d*\.?\d+)\s*(cm|mm|in|pt|pc|px)$/.exec(value.trim()) : null;
  return m ? Number(m[1]) * CM[m[2]!]! : undefined;
}

interface Placed {
  rank: number;
  x: number;
  y: number;
  blocks: ElementContent[];
}

export interface PageContent {
  title: string;
  blocks: ElementContent[];
  notes: ElementContent[];
}

/** Few words on one line: what a title says. */
const MAX_GUESSED_TITLE_WORDS = 15;

export class PageWalker {
  private readonly frames: FrameContent;
  private readonly text: TextBlocks;
  private readonly warnings: string[];
  private truncatedTable = false;
  private readonly charts = new Set<XmlElement>();

  constructor(styles: OdfStyles, frames: FrameContent, warnings: string[]) {
    this.frames = frames;
    this.warnings = warnings;
    const inline = new InlineWalker(styles, {
      // A picture anchored in a paragraph stays in its line.
      element: (node, out) => {
        if (node.name !== 'draw:frame') return false;
        const picture = frames.picture(node);
        if (picture) out.push(picture);
        return true;
      },
    });
    this.text = new TextBlocks(styles, inline, (node) => this.shape(node));
  }

  page(page: XmlElement): PageContent {
    let title = '';
    const placed: Placed[] = [];
    for (const node of page.children) {
      if (typeof node === 'string') continue;
      const cls = node.attrs['presentation:class'];
      if (cls === 'title' && !title) {
        const box = child(node, 'draw:text-box');
        title = box ? this.plain(box) : '';
        if (title) continue;
      }
      if (cls && FURNITURE.has(cls)) continue;
      const blocks = this.shape(node);
      if (blocks.length === 0) continue;
      const rank = !cls ? 2 : cls === 'title' ? 0 : MARGINALIA.has(cls) ? 3 : 1;
      placed.push({ rank, ...this.position(node), blocks });
    }
    placed.sort((a, b) => a.rank - b.rank || a.y - b.y || a.x - b.x);
    if (!title) title = this.guessTitle(placed);
    const blocks: ElementContent[] = [];
    for (const p of placed) append(blocks, p.blocks);
    return { title, blocks, notes: this.notes(page) };
  }

  /**
   * Pages converted from other formats sometimes lose their placeholder classes: then the
   * topmost shape, when it is a single short paragraph above other content, is the title.
   */
  private guessTitle(placed: Placed[]): string {
    const first = placed[0];
    if (!first || placed.length < 2 || first.rank !== 2 || first.blocks.length !== 1) return '';
    const block = first.blocks[0]!;
    if (block.type !== 'element' || block.tagName !== 'p') return '';
    const text = plainText(block.children).replace(/\s+/g, ' ').trim();
    if (!text || text.split(' ').length > MAX_GUESSED_TITLE_WORDS) return '';
    if (placed.some((p) => p !== first && p.y <= first.y)) return '';
    placed.shift();
    return text;
  }

  private notes(page: XmlElement): ElementContent[] {
    const notes = child(page, 'presentation:notes');
    const out: ElementContent[] = [];
    for (const node of notes?.children ?? []) {
      if (typeof node === 'string') continue;
      const cls = node.attrs['presentation:class'];
      if (cls === 'notes' || (!cls && SHAPES.has(node.name))) append(out, this.shape(node));
    }
    return out;
  }

  private position(node: XmlElement): { x: number; y: number } {
    const x = cm(node.attrs['svg:x']);
    const y = cm(node.attrs['svg:y']);
    if (x !== undefined && y !== undefined) return { x, y };
    // A group has no position of its own: its topmost, leftmost member's.
    let best = { x: Number.POSITIVE_INFINITY, y: Number.POSITIVE_INFINITY };
    for (const c of node.children) {
      if (typeof c === 'string') continue;
      const cx = cm(c.attrs['svg:x']);
      const cy = cm(c.attrs['svg:y']);
      if (cx !== undefined && cy !== undefined && (cy < best.y || (cy === best.y && cx < best.x)))
        best = { x: cx, y: cy };
    }
    return Number.isFinite(best.y) ? best : { x: 0, y: 0 };
  }

  private plain(box: XmlElement): string {
    const parts: string[] = [];
    for (const block of this.text.blocks(box)) {
      if (block.type === 'element') parts.push(plainText(block.tagName === 'p' ? block.children : [block]));
    }
    return parts.join(' ').replace(/\s+/g, ' ').trim();
  }

  /** Any shape's blocks: text, pictures, tables, charts, formulas, groups. */
  private shape(node: XmlElement): ElementContent[] {
    switch (node.name) {
      case 'draw:frame':
        return this.frame(node);
      case 'draw:g': {
        const placed: Placed[] = [];
        for (const c of node.children) {
          if (typeof c === 'string') continue;
          const blocks = this.shape(c);
          if (blocks.length > 0) placed.push({ rank: 0, ...this.position(c), blocks });
        }
        placed.sort((a, b) => a.y - b.y || a.x - b.x);
        const out: ElementContent[] = [];
        for (const p of placed) append(out, p.blocks);
        return out;
      }
      case 'draw:a':
        return node.children.flatMap((c) => (typeof c === 'string' ? [] : this.shape(c)));
      case 'table:table':
        return [this.table(node)];
      default:
        return SHAPES.has(node.name) ? this.text.blocks(node) : [];
    }
  }

  private frame(frame: XmlElement): ElementContent[] {
    const out: ElementContent[] = [];
    const box = child(frame, 'draw:text-box');
    if (box) return this.text.blocks(box);
    const table = child(frame, 'table:table');
    if (table) out.push(this.table(table));
    const object = child(frame, 'draw:object') ?? child(frame, 'draw:object-ole');
    const embedded = object && this.frames.object(object);
    if (embedded?.kind === 'formula') {
      const code = el('code', { className: ['language-math', 'math-display'] }, [
        { type: 'text', value: embedded.latex },
      ]);
      out.push(el('pre', {}, [code]));
      return out;
    }
    // A table's preview picture only repeats the table.
    const picture = table ? undefined : this.frames.picture(frame);
    if (picture) out.push(el('p', {}, [picture]));
    // Each chart's table is shown once, however many frames point to its object.
    if (embedded?.kind === 'chart' && !this.charts.has(embedded.table)) {
      this.charts.add(embedded.table);
      if (embedded.title) out.push(el('p', {}, [{ type: 'text', value: embedded.title }]));
      out.push(this.table(embedded.table));
    }
    return out;
  }

  private table(node: XmlElement): ElementContent {
    const { table, truncated } = convertTable(node, (cell) => cellContent(this.text.blocks(cell)));
    if (truncated && !this.truncatedTable) {
      this.truncatedTable = true;
      this.warnings.push(TRUNCATED_REPEATS_WARNING);
    }
    return table;
  }
}
