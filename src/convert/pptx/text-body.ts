import type { Element, ElementContent } from 'hast';
import { ommlToLatex } from '../math/omml-to-latex.ts';
import { chooseAlternate } from '../package/alternate-content.ts';
import { ListBuilder } from '../package/list-builder.ts';
import { buildPhrasing, type Format, type Segment } from '../package/phrasing.ts';
import { child, type XmlElement, type XmlNode } from '../package/xml.ts';
import type { Deck, Part } from './deck.ts';

/**
 * DrawingML text (a:txBody) → blocks: paragraphs, and bulleted or numbered paragraphs as
 * nested lists. Whether a paragraph has a bullet comes from its own a:pPr, else the list
 * styles it inherits (the shape's a:lstStyle, its layout's and master's placeholders, the
 * master's text styles), else the default for the kind of shape.
 */

export interface TextContext {
  deck: Deck;
  part: Part;
  /** List styles from nearest to farthest. */
  lstStyles: readonly XmlElement[];
  /** Bullets when nothing says otherwise: body placeholders of a deck without masters. */
  defaultBullet: boolean;
}

interface Bullet {
  ordered: boolean;
  type: string | undefined;
  start: number;
}

/** buAutoNum schemes → `ol[type]`; arabic numbering needs none. */
function numberType(scheme: string): string | undefined {
  if (scheme.startsWith('alphaLc')) return 'a';
  if (scheme.startsWith('alphaUc')) return 'A';
  if (scheme.startsWith('romanLc')) return 'i';
  if (scheme.startsWith('romanUc')) return 'I';
  return undefined;
}

/** The bullet a paragraph-properties element states: null for buNone, undefined when silent. */
function statedBullet(pPr: XmlElement | undefined): Bullet | null | undefined {
  if (!pPr) return undefined;
  for (const c of pPr.children) {
    if (typeof c === 'string') continue;
    if (c.name === 'a:buNone') return null;
    if (c.name === 'a:buChar' || c.name === 'a:buBlip') return { ordered: false, type: undefined, start: 1 };
    if (c.name === 'a:buAutoNum') {
      const start = Number.parseInt(c.attrs.startAt ?? '1', 10) || 1;
      return { ordered: true, type: numberType(c.attrs.type ?? ''), start: Math.max(start, 1) };
    }
  }
  return undefined;
}

function bulletOf(pPr: XmlElement | undefined, level: number, ctx: TextContext): Bullet | null {
  const own = statedBullet(pPr);
  if (own !== undefined) return own;
  const name = `a:lvl${level + 1}pPr`;
  for (const style of ctx.lstStyles) {
    const stated = statedBullet(child(style, name));
    if (stated !== undefined) return stated;
  }
  return ctx.defaultBullet ? { ordered: false, type: undefined, start: 1 } : null;
}

function formatOf(rPr: XmlElement | undefined, ctx: TextContext): Format {
  if (!rPr) return {};
  const a = rPr.attrs;
  const baseline = Number(a.baseline ?? 0);
  const link = child(rPr, 'a:hlinkClick');
  return {
    href: link ? ctx.deck.link(ctx.part, link.attrs['r:id']) : undefined,
    bold: a.b === '1' || a.b === 'true',
    italic: a.i === '1' || a.i === 'true',
    strike: a.strike !== undefined && a.strike !== 'noStrike',
    sup: baseline > 0,
    sub: baseline < 0,
  };
}

function textIn(el: XmlElement): string {
  const t = child(el, 'a:t');
  return t ? t.children.filter((c): c is string => typeof c === 'string').join('') : '';
}

function mathCode(latex: string, display: boolean): Element {
  return {
    type: 'element',
    tagName: 'code',
    properties: { className: ['language-math', display ? 'math-display' : 'math-inline'] },
    children: [{ type: 'text', value: latex }],
  };
}

/** A paragraph's runs, line breaks, fields and equations as formatted segments. */
function segments(
  nodes: readonly XmlNode[],
  ctx: TextContext,
  out: Segment[],
  display: { count: number },
): void {
  for (const node of nodes) {
    if (typeof node === 'string') continue;
    switch (node.name) {
      case 'a:r':
      case 'a:fld': {
        // Vertical tabs are how PowerPoint writes soft line breaks inside imported text.
        const value = textIn(node).replace(/\v/g, '\n');
        if (value) out.push({ node: { type: 'text', value }, format: formatOf(child(node, 'a:rPr'), ctx) });
        break;
      }
      case 'a:br':
        out.push({ node: { type: 'element', tagName: 'br', properties: {}, children: [] }, format: {} });
        break;
      case 'mc:AlternateContent': {
        const chosen = chooseAlternate(node);
        if (chosen) segments(chosen.children, ctx, out, display);
        break;
      }
      case 'a14:m':
        segments(node.children, ctx, out, display);
        break;
      case 'm:oMathPara':
        for (const m of node.children) {
          if (typeof m === 'string' || m.name !== 'm:oMath') continue;
          const latex = ommlToLatex(m).trim();
          if (latex) {
            display.count++;
            out.push({ node: mathCode(latex, true), format: {} });
          }
        }
        break;
      case 'm:oMath': {
        const latex = ommlToLatex(node).trim();
        if (latex) out.push({ node: mathCode(latex, false), format: {} });
        break;
      }
      default:
      // a:pPr, a:endParaRPr: properties, no content.
    }
  }
}

function isBlank(nodes: readonly ElementContent[]): boolean {
  for (const n of nodes) {
    if (n.type === 'text' && n.value.trim() !== '') return false;
    if (n.type === 'element' && n.tagName !== 'br' && (n.tagName === 'code' || !isBlank(n.children)))
      return false;
  }
  return true;
}

/** One paragraph's content; display equations become blocks of their own. */
function paragraphBlocks(p: XmlElement, ctx: TextContext): { inline: ElementContent[]; blocks: Element[] } {
  const segs: Segment[] = [];
  const display = { count: 0 };
  segments(p.children, ctx, segs, display);
  if (display.count === 0) return { inline: buildPhrasing(segs), blocks: [] };
  // Display math stands between the paragraph's text before and after it.
  const blocks: Element[] = [];
  let run: Segment[] = [];
  const flush = (): void => {
    const inline = buildPhrasing(run);
    if (!isBlank(inline)) blocks.push({ type: 'element', tagName: 'p', properties: {}, children: inline });
    run = [];
  };
  for (const seg of segs) {
    const node = seg.node;
    if (
      node.type === 'element' &&
      node.tagName === 'code' &&
      String(node.properties.className).includes('math-display')
    ) {
      flush();
      blocks.push({ type: 'element', tagName: 'pre', properties: {}, children: [node] });
    } else run.push(seg);
  }
  flush();
  return { inline: [], blocks };
}

/** The paragraphs of a text body as blocks: plain paragraphs, lists, display equations. */
export function textBlocks(txBody: XmlElement, ctx: TextContext): ElementContent[] {
  const out: ElementContent[] = [];
  const lists = new ListBuilder();
  for (const p of txBody.children) {
    if (typeof p === 'string' || p.name !== 'a:p') continue;
    const { inline, blocks } = paragraphBlocks(p, ctx);
    if (blocks.length > 0) {
      lists.close();
      for (const b of blocks) out.push(b);
      continue;
    }
    if (isBlank(inline)) continue;
    const pPr = child(p, 'a:pPr');
    const level = Math.min(8, Math.max(0, Number.parseInt(pPr?.attrs.lvl ?? '0', 10) || 0));
    const bullet = bulletOf(pPr, level, ctx);
    if (!bullet) {
      lists.close();
      out.push({ type: 'element', tagName: 'p', properties: {}, children: inline });
      continue;
    }
    const created = lists.add({
      level,
      key: bullet.ordered ? `n${bullet.type ?? ''}` : 'b',
      ordered: bullet.ordered,
      type: bullet.type,
      value: bullet.start,
      restart: false,
      content: inline,
    });
    if (created) out.push(created);
  }
  return out;
}

/** A title's text on one line: its paragraphs and line breaks joined by spaces. */
export function plainTitle(txBody: XmlElement): string {
  const parts: string[] = [];
  const walk = (nodes: readonly XmlNode[]): void => {
    for (const n of nodes) {
      if (typeof n === 'string') continue;
      if (n.name === 'a:r' || n.name === 'a:fld') parts.push(textIn(n));
      else if (n.name === 'a:br') parts.push(' ');
      else if (n.name === 'a:p') {
        walk(n.children);
        parts.push(' ');
      }
    }
  };
  walk(txBody.children);
  return parts.join('').replace(/\s+/g, ' ').trim();
}
