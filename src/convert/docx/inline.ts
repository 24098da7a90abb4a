import type { Element, ElementContent } from 'hast';
import { ommlToLatex } from '../math/omml-to-latex.ts';
import { chooseAlternate } from '../package/alternate-content.ts';
import type { Format, Segment } from '../package/phrasing.ts';
import { child, isElement, type XmlElement, type XmlNode } from '../package/xml.ts';
import type { DocxContext } from './context.ts';
import { beginField, fieldHref } from './fields.ts';
import { drawing, type GraphicsSink, vml } from './graphics.ts';
import { type RunProps, readRunProps } from './run-props.ts';
import { mapSymbolText, symbolChar } from './symbols.ts';

/** An equation found in a paragraph, placed among the segments. */
export interface MathItem {
  math: string;
  display: boolean;
}

const MAX_OPEN_FIELDS = 32;

export type InlineItem = Segment | MathItem;

/** Everything one paragraph holds, before it is shaped into a block. */
export interface ParagraphContent {
  items: InlineItem[];
  /** Text-box content, shown after the paragraph that anchors it. */
  floating: ElementContent[];
  /** Floating pictures, shown before the paragraph that anchors them. */
  leading: ElementContent[];
  /** The first bookmark's name, kept as the block's id so internal links resolve. */
  bookmark: string | undefined;
}

interface State {
  ctx: DocxContext;
  out: ParagraphContent;
  base: RunProps;
}

export function isMath(item: InlineItem): item is MathItem {
  return 'math' in item;
}

/** Reads the runs, links, fields, equations and drawings of a paragraph (or run container). */
export function collectInline(p: XmlElement, ctx: DocxContext, base: RunProps): ParagraphContent {
  const out: ParagraphContent = { items: [], floating: [], leading: [], bookmark: undefined };
  walk(p.children, { ctx, out, base }, undefined);
  // An instruction never legitimately runs past its paragraph; dropping leftovers keeps a
  // damaged field from hiding the rest of the document.
  const fields = ctx.fields;
  for (let i = fields.length - 1; i >= 0; i--) if (!fields[i]!.inResult) fields.splice(i, 1);
  return out;
}

function inInstruction(ctx: DocxContext): boolean {
  for (const f of ctx.fields) if (!f.inResult) return true;
  return false;
}

function currentHref(ctx: DocxContext, href: string | undefined): string | undefined {
  for (let i = ctx.fields.length - 1; i >= 0; i--) {
    const f = ctx.fields[i]!;
    if (f.href !== undefined) return f.href;
  }
  return href;
}

function hyperlinkHref(el: XmlElement, ctx: DocxContext): string | undefined {
  const id = el.attrs['r:id'];
  const anchor = el.attrs['w:anchor'];
  const rel = id ? ctx.part.rels.get(id) : undefined;
  const target = rel?.external ? rel.target : '';
  if (anchor) return `${target}#${anchor}`;
  return target || undefined;
}

function checkboxInput(checked: boolean): Element {
  return {
    type: 'element',
    tagName: 'input',
    properties: { type: 'checkbox', checked, disabled: true },
    children: [],
  };
}

/** w14:checkbox content control: its state, or undefined when the control is something else. */
function sdtCheckbox(sdt: XmlElement): boolean | undefined {
  const pr = child(sdt, 'w:sdtPr');
  const box = pr && child(pr, 'w14:checkbox');
  if (!box) return undefined;
  const v = child(box, 'w14:checked')?.attrs['w14:val'];
  return v === '1' || v === 'true';
}

function walk(nodes: readonly XmlNode[], s: State, href: string | undefined): void {
  for (const node of nodes) {
    if (!isElement(node)) continue;
    switch (node.name) {
      case 'w:r':
        run(node, s, href);
        break;
      case 'w:hyperlink':
        walk(node.children, s, hyperlinkHref(node, s.ctx) ?? href);
        break;
      case 'w:fldSimple':
        walk(node.children, s, fieldHref(node.attrs['w:instr'] ?? '') ?? href);
        break;
      case 'w:sdt': {
        const checked = sdtCheckbox(node);
        if (checked !== undefined) s.out.items.push({ node: checkboxInput(checked), format: {} });
        else walk(child(node, 'w:sdtContent')?.children ?? [], s, href);
        break;
      }
      case 'w:ins':
      case 'w:moveTo':
      case 'w:smartTag':
      case 'w:customXml':
      case 'w:dir':
      case 'w:bdo':
        walk(node.children, s, href);
        break;
      case 'mc:AlternateContent': {
        const chosen = chooseAlternate(node);
        if (chosen) walk(chosen.children, s, href);
        break;
      }
      case 'm:oMathPara':
        for (const m of node.children) {
          if (isElement(m) && m.name === 'm:oMath') math(m, s, true);
        }
        break;
      case 'm:oMath':
        math(node, s, false);
        break;
      case 'w:bookmarkStart': {
        const name = node.attrs['w:name'];
        if (s.out.bookmark === undefined && name && name !== '_GoBack') s.out.bookmark = name;
        break;
      }
      default:
      // w:del, w:moveFrom (deleted text), comments, proofing marks, w:pPr: nothing to show.
    }
  }
}

function math(el: XmlElement, s: State, display: boolean): void {
  if (inInstruction(s.ctx)) return;
  const tex = ommlToLatex(el).trim();
  if (tex) s.out.items.push({ math: tex, display });
}

function noteRef(kind: 'footnote' | 'endnote', id: string, s: State): void {
  const label = s.ctx.noteRef(kind, id);
  if (label === undefined) return;
  const a: Element = {
    type: 'element',
    tagName: 'a',
    properties: { href: `#fn-${label}`, id: `fnref-${label}`, dataFootnoteRef: true },
    children: [{ type: 'text', value: label }],
  };
  s.out.items.push({ node: { type: 'element', tagName: 'sup', properties: {}, children: [a] }, format: {} });
}

function run(r: XmlElement, s: State, href: string | undefined): void {
  const { ctx } = s;
  const rPr = child(r, 'w:rPr');
  const rStyle = rPr && child(rPr, 'w:rStyle')?.attrs['w:val'];
  const props: RunProps = { ...s.base, ...ctx.styles.character(rStyle), ...readRunProps(rPr) };
  const fonts = rPr && child(rPr, 'w:rFonts');
  const font = fonts?.attrs['w:ascii'] ?? fonts?.attrs['w:hAnsi'];
  let format: Format | undefined;
  const text = (value: string): void => {
    if (props.hidden || !value || inInstruction(ctx)) return;
    format ??= {
      href: currentHref(ctx, href),
      bold: props.bold,
      italic: props.italic,
      strike: props.strike,
      sup: props.vertAlign === 'sup',
      sub: props.vertAlign === 'sub',
      code: props.mono,
    };
    s.out.items.push({ node: { type: 'text', value }, format });
  };
  const element = (node: ElementContent): void => {
    if (inInstruction(ctx)) return;
    s.out.items.push({ node, format: { href: currentHref(ctx, href) } });
  };
  runContent(r.children, s, text, element, font);
}

function runContent(
  nodes: readonly XmlNode[],
  s: State,
  text: (value: string) => void,
  element: (node: ElementContent) => void,
  font: string | undefined,
): void {
  const { ctx } = s;
  for (const c of nodes) {
    if (!isElement(c)) continue;
    switch (c.name) {
      case 'w:t': {
        const value = c.children.filter((x): x is string => typeof x === 'string').join('');
        text(font ? mapSymbolText(font, value) : value);
        break;
      }
      case 'w:tab':
      case 'w:ptab':
        text('\t');
        break;
      case 'w:br':
      case 'w:cr': {
        const type = c.attrs['w:type'];
        // Page and column breaks are layout, not content.
        if (type !== 'page' && type !== 'column')
          element({ type: 'element', tagName: 'br', properties: {}, children: [] });
        break;
      }
      case 'w:noBreakHyphen':
        text('-');
        break;
      case 'w:sym':
        text(symbolChar(c.attrs['w:font'], Number.parseInt(c.attrs['w:char'] ?? '', 16) || 0x20));
        break;
      case 'w:fldChar': {
        const type = c.attrs['w:fldCharType'];
        if (type === 'begin') {
          const field = beginField(c);
          if (field.checkbox !== undefined) element(checkboxInput(field.checkbox));
          // Real fields nest a few deep; a runaway stack (begins without ends) is capped.
          if (ctx.fields.length >= MAX_OPEN_FIELDS) ctx.fields.shift();
          ctx.fields.push(field);
        } else if (type === 'separate') {
          const top = ctx.fields[ctx.fields.length - 1];
          if (top && !top.inResult) {
            top.inResult = true;
            top.href = fieldHref(top.instruction);
          }
        } else if (type === 'end') ctx.fields.pop();
        break;
      }
      case 'w:instrText': {
        const top = ctx.fields[ctx.fields.length - 1];
        if (top && !top.inResult) top.instruction += c.children.filter((x) => typeof x === 'string').join('');
        break;
      }
      case 'w:drawing':
      case 'w:pict':
      case 'w:object': {
        if (inInstruction(ctx)) break;
        const sink: GraphicsSink = { inline: [], before: s.out.leading, blocks: s.out.floating };
        if (c.name === 'w:drawing') drawing(c, ctx, sink);
        else vml(c, ctx, sink);
        for (const node of sink.inline) element(node);
        break;
      }
      case 'mc:AlternateContent': {
        const chosen = chooseAlternate(c);
        if (chosen) runContent(chosen.children, s, text, element, font);
        break;
      }
      case 'w:footnoteReference':
      case 'w:endnoteReference':
        if (!inInstruction(ctx) && c.attrs['w:id'] !== undefined) {
          noteRef(c.name === 'w:footnoteReference' ? 'footnote' : 'endnote', c.attrs['w:id'], s);
        }
        break;
      case 'w:ruby': {
        const base = child(c, 'w:rubyBase');
        if (base) walk(base.children, s, undefined);
        break;
      }
      default:
      // w:delText, w:footnoteRef (the note's own number), separators, comment marks: nothing.
    }
  }
}
