import type { Element, ElementContent } from 'hast';
import { chooseAlternate } from '../package/alternate-content.ts';
import { ListBuilder, type ListEntry } from '../package/list-builder.ts';
import { buildPhrasing, type Segment } from '../package/phrasing.ts';
import { child, isElement, type XmlElement, type XmlNode } from '../package/xml.ts';
import type { DocxContext } from './context.ts';
import { collectInline, type InlineItem, isMath, type MathItem } from './inline.ts';
import { outlineLevel } from './styles.ts';
import { CHECKED_BOX, symbolChar, UNCHECKED_BOX } from './symbols.ts';
import { table } from './tables.ts';

const ROMAN_ALPHA: Record<string, string> = {
  upperRoman: 'I',
  lowerRoman: 'i',
  upperLetter: 'A',
  lowerLetter: 'a',
};

function el(tagName: string, children: ElementContent[], properties: Element['properties'] = {}): Element {
  return { type: 'element', tagName, properties, children };
}

function mathElement(item: MathItem, display: boolean): Element {
  const code = el('code', [{ type: 'text', value: item.math }], {
    className: ['language-math', display ? 'math-display' : 'math-inline'],
  });
  return display ? el('pre', [code]) : code;
}

/** Inline math as a segment, so it sits in the phrasing like any other element. */
function asSegment(item: InlineItem): Segment {
  return isMath(item) ? { node: mathElement(item, false), format: {} } : item;
}

/** A heading segment: not bold (the heading is), and on one line (Markdown headings cannot break). */
function headingSegment(seg: Segment): Segment {
  const node: Segment['node'] =
    seg.node.type === 'element' && seg.node.tagName === 'br' ? { type: 'text', value: ' ' } : seg.node;
  return node !== seg.node || seg.format.bold ? { node, format: { ...seg.format, bold: false } } : seg;
}

function isVisible(item: InlineItem): boolean {
  if (isMath(item)) return true;
  const node = item.node;
  if (node.type === 'text') return node.value.trim() !== '';
  return node.type === 'element' && node.tagName !== 'br';
}

/** Plain text of a code paragraph: line breaks as newlines, tabs kept. */
function codeText(items: readonly InlineItem[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (isMath(item)) parts.push(item.math);
    else if (item.node.type === 'text') parts.push(item.node.value);
    else if (item.node.type === 'element' && item.node.tagName === 'br') parts.push('\n');
  }
  return parts.join('');
}

/** A paragraph typed in a monospace font throughout is code, whatever its style says. */
function allMonospace(items: readonly InlineItem[]): boolean {
  let text = false;
  for (const item of items) {
    if (isMath(item)) return false;
    const node = item.node;
    if (node.type === 'text') {
      if (!item.format.code && node.value.trim() !== '') return false;
      if (node.value.trim() !== '') text = true;
    } else if (node.type === 'element' && node.tagName !== 'br') return false;
  }
  return text;
}

/** A leading ☐/☒ glyph typed as text is a task checkbox: its state, and the glyph removed. */
function leadingCheckbox(items: InlineItem[]): boolean | undefined {
  const first = items.find(isVisible);
  if (!first || isMath(first)) return undefined;
  const node = first.node;
  if (node.type === 'element' && node.tagName === 'input') {
    items.splice(items.indexOf(first), 1);
    return node.properties.checked === true;
  }
  if (node.type !== 'text') return undefined;
  const text = node.value.trimStart();
  const glyph = text[0] ?? '';
  const checked = CHECKED_BOX.has(glyph) ? true : UNCHECKED_BOX.has(glyph) ? false : undefined;
  if (checked === undefined) return undefined;
  items[items.indexOf(first)] = {
    node: { type: 'text', value: text.slice(1).trimStart() },
    format: first.format,
  };
  return checked;
}

function checkbox(checked: boolean): Element {
  return el('input', [], { type: 'checkbox', checked, disabled: true });
}

function indented(pPr: XmlElement | undefined): boolean {
  const ind = pPr && child(pPr, 'w:ind');
  return Number(ind?.attrs['w:left'] ?? ind?.attrs['w:start'] ?? 0) > 0;
}

/**
 * The body walker: paragraphs, tables and content controls → blocks. Consecutive list
 * paragraphs become nested lists, consecutive code paragraphs one code block, consecutive
 * quote paragraphs one blockquote. Used for the body, table cells, text boxes and notes.
 */
export function walkBlocks(
  nodes: readonly XmlNode[],
  ctx: DocxContext,
  where: 'flow' | 'cell' = 'flow',
): ElementContent[] {
  const out: ElementContent[] = [];
  const lists = new ListBuilder();
  let code: string[] | undefined;
  let quote: Element | undefined;
  let dropCap: InlineItem[] = [];

  const settle = (keep: 'list' | 'code' | 'quote' | 'none'): void => {
    if (keep !== 'code' && code) {
      out.push(el('pre', [el('code', [{ type: 'text', value: code.join('\n') }])]));
      code = undefined;
    }
    if (keep !== 'quote') quote = undefined;
    if (keep !== 'list') lists.close();
  };

  const addItem = (
    phrasing: ElementContent[],
    checked: boolean | undefined,
    entry: Omit<ListEntry, 'content'>,
  ): void => {
    if (checked !== undefined) phrasing.unshift(checkbox(checked), { type: 'text', value: ' ' });
    settle('list');
    const created = lists.add({ ...entry, content: phrasing });
    if (created) out.push(created);
  };

  const paragraph = (p: XmlElement): void => {
    const pPr = child(p, 'w:pPr');
    const style = ctx.styles.paragraph(pPr && child(pPr, 'w:pStyle')?.attrs['w:val']);
    const direct = outlineLevel(pPr);
    let heading = direct !== undefined && direct < 9 ? direct + 1 : style.heading;
    // A monospace document default is the document's typeface, not a sign of code.
    const base = { ...ctx.styles.defaults, mono: false, ...style.run };
    // A heading is emphasised by being one: its style's bold and italic are not repeated inline.
    if (heading !== undefined) base.bold = base.italic = false;
    const content = collectInline(p, ctx, base);
    const items = content.items;
    // A drop cap is its own framed paragraph holding the first letter of the next one.
    const frame = pPr && child(pPr, 'w:framePr');
    const cap = frame?.attrs['w:dropCap'];
    if (cap === 'drop' || cap === 'margin') {
      dropCap.push(...items);
      return;
    }
    if (dropCap.length > 0) {
      items.unshift(...dropCap);
      dropCap = [];
    }
    if (content.leading.length > 0) {
      settle('none');
      out.push(...content.leading);
    }
    const floating = (): void => {
      if (content.floating.length === 0) return;
      settle('none');
      out.push(...content.floating);
    };
    if (!items.some(isVisible)) {
      // An empty line inside a code block is part of the code.
      if (code && style.code) code.push('');
      floating();
      return;
    }

    const numPr = pPr && child(pPr, 'w:numPr');
    const numId = (numPr && child(numPr, 'w:numId')?.attrs['w:val']) ?? style.numbering?.numId;
    const ilvlAttr = numPr && child(numPr, 'w:ilvl')?.attrs['w:val'];
    const ilvl = ilvlAttr !== undefined ? Number(ilvlAttr) || 0 : (style.numbering?.ilvl ?? 0);
    const id = content.bookmark;

    if (heading !== undefined) {
      heading = heading === 0 ? 1 : Math.min(6, heading + (ctx.shiftHeadings ? 1 : 0));
      const phrasing = buildPhrasing(items.map((i) => headingSegment(asSegment(i))));
      settle('none');
      out.push(el(`h${heading}`, phrasing, id ? { id } : {}));
      floating();
      return;
    }

    const listed = numId !== undefined && numId !== '0' && ctx.numbering.level(numId, ilvl) !== undefined;
    // In a table cell or a list a monospace value (a number, a file name) stays inline code.
    if (!listed && (style.code || (where === 'flow' && allMonospace(items)))) {
      settle('code');
      code ??= [];
      code.push(codeText(items));
      floating();
      return;
    }

    const level = numId !== undefined && numId !== '0' ? ctx.numbering.next(numId, ilvl) : undefined;
    let checked = leadingCheckbox(items);
    if (level && level.level.format !== 'none') {
      const compound = level.compound;
      const ordered = level.level.format !== 'bullet' && compound === undefined;
      if (!ordered && checked === undefined) {
        const glyph = symbolChar(level.level.font, level.level.text.codePointAt(0) ?? 0x20);
        if (CHECKED_BOX.has(glyph)) checked = true;
        else if (UNCHECKED_BOX.has(glyph)) checked = false;
      }
      const phrasing = buildPhrasing(items.map(asSegment));
      if (compound) phrasing.unshift({ type: 'text', value: `${compound} ` });
      addItem(phrasing, checked, {
        level: Math.min(Math.max(ilvl, 0), 8),
        key: level.key,
        ordered,
        type: ordered ? ROMAN_ALPHA[level.level.format] : undefined,
        value: level.value,
        restart: level.restarted,
      });
      floating();
      return;
    }
    if (checked !== undefined) {
      // A check box typed at the start of a plain paragraph makes it a task item.
      addItem(buildPhrasing(items.map(asSegment)), checked, {
        level: 0,
        key: lists.bulletKeyAt(0) ?? 'task',
        ordered: false,
        type: undefined,
        value: 1,
        restart: false,
      });
      floating();
      return;
    }

    const blocks = paragraphBlocks(items, id);
    // An indented paragraph right after a list item (or one whose numbering was switched
    // off) continues that item, as Word shows it.
    if (lists.open && (indented(pPr) || numId === '0' || level)) {
      for (const b of blocks) lists.appendToItem(b);
      floating();
      return;
    }
    if (style.quote) {
      settle('quote');
      if (!quote) {
        quote = el('blockquote', []);
        out.push(quote);
      }
      quote.children.push(...blocks);
    } else {
      settle('none');
      out.push(...blocks);
    }
    floating();
  };

  const visit = (list: readonly XmlNode[]): void => {
    for (const node of list) {
      if (!isElement(node)) continue;
      switch (node.name) {
        case 'w:p':
          paragraph(node);
          break;
        case 'w:tbl': {
          settle('none');
          const t = table(node, ctx);
          if (t.children.length > 0) out.push(t);
          break;
        }
        case 'w:sdt':
          visit(child(node, 'w:sdtContent')?.children ?? []);
          break;
        case 'w:customXml':
        case 'w:ins':
        case 'w:moveTo':
        case 'w:smartTag':
          visit(node.children);
          break;
        case 'mc:AlternateContent': {
          const chosen = chooseAlternate(node);
          if (chosen) visit(chosen.children);
          break;
        }
        default:
        // w:sectPr, bookmarks, w:del/w:moveFrom (deleted), w:altChunk (imported files): nothing.
      }
    }
  };

  visit(nodes);
  settle('none');
  return out;
}

/**
 * A paragraph's blocks: normally one `p`; display equations split it, and a paragraph that
 * holds nothing but equations shows each one as a display equation.
 */
function paragraphBlocks(items: InlineItem[], id: string | undefined): ElementContent[] {
  const onlyMath = items.every((i) => isMath(i) || !isVisible(i));
  const blocks: ElementContent[] = [];
  let run: Segment[] = [];
  const flush = (): void => {
    if (run.some((s) => isVisible(s))) {
      const p = el('p', buildPhrasing(run), blocks.length === 0 && id ? { id } : {});
      blocks.push(p);
    }
    run = [];
  };
  for (const item of items) {
    if (isMath(item) && (item.display || onlyMath)) {
      flush();
      blocks.push(mathElement(item, true));
    } else run.push(asSegment(item));
  }
  flush();
  return blocks;
}
