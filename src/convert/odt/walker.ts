import type { Element, ElementContent } from 'hast';
import { FrameContent, SHAPES } from '../odf/frames.ts';
import { append, el } from '../odf/hast.ts';
import { InlineWalker, plainText } from '../odf/inline.ts';
import { type OdfStyles, PLAIN } from '../odf/styles.ts';
import { cellContent, convertTable, TRUNCATED_REPEATS_WARNING } from '../odf/table.ts';
import { child, type XmlBudget, type XmlElement } from '../package/xml.ts';
import type { ZipPackage } from '../package/zip.ts';
import { type Context, FLOW, NESTED } from './context.ts';
import { convertIndex, INDEX_BODIES } from './indexes.ts';
import { convertList, isList, joinContinuation, type ListDeps } from './lists.ts';
import { Notes } from './notes.ts';
import { ListNumbering } from './numbering.ts';
import { paragraphKind } from './paragraph-kind.ts';

/** Declarations and bookkeeping with nothing to show. */
const SKIPPED_BLOCKS = new Set([
  'text:tracked-changes', // deleted text lives here; insertions are already in the body
  'text:sequence-decls',
  'text:variable-decls',
  'text:user-field-decls',
  'text:dde-connection-decls',
  'text:alphabetical-index-auto-mark-file',
  'text:index-source', // an index's template, not its content
  'text:soft-page-break',
  'office:forms',
  'office:annotation',
  'table:calculation-settings',
  'table:content-validations',
  'table:label-ranges',
]);

/** True when phrasing content shows nothing: no text, no picture. */
function isBlank(nodes: readonly ElementContent[]): boolean {
  for (const node of nodes) {
    if (node.type === 'text') {
      if (node.value.trim() !== '') return false;
    } else if (node.type === 'element') {
      if (node.tagName === 'img' || node.tagName === 'sup') return false;
      if (!isBlank(node.children)) return false;
    }
  }
  return true;
}

/** A paragraph holding one inline formula and nothing else is a display formula. */
function isOnlyMath(nodes: readonly ElementContent[]): boolean {
  let math = 0;
  for (const node of nodes) {
    if (node.type === 'text' && node.value.trim() === '') continue;
    if (node.type !== 'element' || node.tagName !== 'code') return false;
    const cls = node.properties.className;
    if (!Array.isArray(cls) || !cls.includes('math-inline')) return false;
    math++;
  }
  return math === 1;
}

function lastListIn(blocks: readonly ElementContent[]): Element | undefined {
  const last = blocks[blocks.length - 1];
  return isList(last) ? last : undefined;
}

/** Consecutive code paragraphs become one code block, consecutive quotations one quote. */
type Group = { kind: 'code'; lines: string[]; code: Element } | { kind: 'quote'; quote: Element } | undefined;

export interface WalkerOptions {
  styles: OdfStyles;
  zip: ZipPackage | undefined;
  budget: XmlBudget;
  warnings: string[];
}

/** Walks an ODF text body (office:text, a table cell, a note, a text box) into hast blocks. */
export class OdtWalker {
  private readonly styles: OdfStyles;
  private readonly frames: FrameContent;
  private readonly warnings: string[];
  private readonly inline: InlineWalker;
  private readonly notes = new Notes();
  private readonly listDeps: ListDeps;
  /** Headings from outline levels; shifted down one when the document has a Title paragraph. */
  private readonly headings: Element[] = [];
  private hasTitle = false;
  /** Blocks met inside the paragraph being converted (text boxes, charts), placed after it. */
  private pending: ElementContent[] | undefined;
  private truncatedTable = false;
  /** The default paragraph style's left margin: indentation is measured from it. */
  private readonly baseMarginCm: number;

  constructor(opts: WalkerOptions) {
    this.styles = opts.styles;
    this.frames = new FrameContent(opts.zip, opts.budget, opts.warnings);
    this.listDeps = {
      styles: opts.styles,
      numbering: new ListNumbering(),
      blocks: (container, ctx) => this.blocks(container, ctx),
    };
    this.warnings = opts.warnings;
    this.baseMarginCm = opts.styles.resolve('paragraph', 'Standard')?.marginLeftCm ?? 0;
    this.inline = new InlineWalker(opts.styles, { element: (node, out) => this.inlineElement(node, out) });
  }

  /** The document's blocks, headings levelled under the title when there is one. */
  document(body: XmlElement): ElementContent[] {
    const blocks = this.blocks(body, FLOW);
    if (this.hasTitle) {
      for (const h of this.headings) h.tagName = `h${Math.min(6, Number(h.tagName.slice(1)) + 1)}`;
    }
    const notes = this.notes.section();
    if (notes) blocks.push(notes);
    return blocks;
  }

  private blocks(container: XmlElement, ctx: Context): ElementContent[] {
    const out: ElementContent[] = [];
    let group: Group;
    const close = (): void => {
      if (group?.kind === 'code') {
        while (group.lines.length > 0 && group.lines[group.lines.length - 1]!.trim() === '')
          group.lines.pop();
        group.code.children = [{ type: 'text', value: group.lines.join('\n') }];
      }
      group = undefined;
    };
    // The list just emitted, while nothing else has followed it.
    let lastList: Element | undefined;
    for (const node of container.children) {
      if (typeof node === 'string' || SKIPPED_BLOCKS.has(node.name)) continue;
      if (node.name !== 'text:list') lastList = undefined;
      if (node.name === 'text:p' || node.name === 'text:h') {
        const style = this.styles.resolve('paragraph', node.attrs['text:style-name']);
        const kind = paragraphKind(style, ctx.flow, this.baseMarginCm);
        const base = style?.text ?? PLAIN;
        if (node.name === 'text:p' && (kind.kind === 'code' || kind.kind === 'quote')) {
          const { content, after } = this.paragraphContent(node, base);
          if (kind.kind === 'code') {
            const line = plainText(content);
            if (group?.kind !== 'code') {
              if (line.trim() === '' && after.length === 0) continue;
              close();
              const code = el('code', {}, []);
              group = { kind: 'code', lines: [], code };
              out.push(el('pre', {}, [code]));
            }
            append(group.lines, line.split('\n'));
          } else if (!isBlank(content)) {
            if (group?.kind !== 'quote') {
              close();
              group = { kind: 'quote', quote: el('blockquote', {}, []) };
              out.push(group.quote);
            }
            group.quote.children.push(el('p', {}, content));
          }
          if (after.length > 0) {
            close();
            append(out, after);
          }
          continue;
        }
        close();
        append(out, this.paragraph(node, kind, base));
        continue;
      }
      close();
      const blocks = this.block(node, ctx);
      if (node.name === 'text:list' && lastList) joinContinuation(lastList, blocks);
      append(out, blocks);
      if (node.name === 'text:list') lastList = blocks.length === 0 ? lastList : lastListIn(blocks);
    }
    close();
    return out;
  }

  /** A paragraph's phrasing content and the blocks met inside it. */
  private paragraphContent(
    node: XmlElement,
    base: typeof PLAIN,
  ): { content: ElementContent[]; after: ElementContent[] } {
    const saved = this.pending;
    const after: ElementContent[] = [];
    this.pending = after;
    const content = this.inline.content(node, base);
    this.pending = saved;
    return { content, after };
  }

  private paragraph(
    node: XmlElement,
    kind: ReturnType<typeof paragraphKind>,
    base: typeof PLAIN,
  ): ElementContent[] {
    const { content, after } = this.paragraphContent(node, base);
    if (isBlank(content)) return after;
    let block: Element;
    if (kind.kind === 'title') {
      this.hasTitle = true;
      block = el('h1', {}, content);
    } else if (node.name === 'text:h' || kind.kind === 'heading') {
      const outline = Number.parseInt(node.attrs['text:outline-level'] ?? '', 10);
      const level = outline >= 1 ? outline : kind.kind === 'heading' ? kind.level : 1;
      block = el(`h${Math.min(6, level)}`, {}, content);
      this.headings.push(block);
    } else if (isOnlyMath(content)) {
      const code = content.find((c): c is Element => c.type === 'element')!;
      code.properties.className = ['language-math', 'math-display'];
      block = el('pre', {}, [code]);
    } else block = el('p', {}, content);
    return [block, ...after];
  }

  private block(node: XmlElement, ctx: Context): ElementContent[] {
    switch (node.name) {
      case 'text:list':
        return convertList(node, ctx, this.listDeps);
      case 'table:table':
        return [this.table(node)];
      case 'draw:frame':
      case 'draw:a':
      case 'draw:g': {
        // A frame anchored to the page or the paragraph area stands between blocks.
        const { content, after } = this.paragraphContent(
          { name: 'text:p', attrs: {}, children: [node] },
          PLAIN,
        );
        return isBlank(content) ? after : [el('p', {}, content), ...after];
      }
    }
    if (INDEX_BODIES.has(node.name)) {
      return convertIndex(
        node,
        (container) => this.blocks(container, NESTED),
        (entry) => plainText(this.inline.content(entry, PLAIN)),
      );
    }
    if (SHAPES.has(node.name)) return this.blocks(node, NESTED);
    // Sections, change marks, numbered paragraphs, unknown containers: their content counts.
    return this.blocks(node, ctx);
  }

  // ------------------------------------------------------------------ inline hooks

  private inlineElement(node: XmlElement, out: ElementContent[]): boolean {
    if (node.name === 'text:note') {
      out.push(this.notes.reference(node, (body) => this.blocks(body, NESTED)));
      return true;
    }
    if (node.name === 'draw:frame') {
      this.frame(node, out);
      return true;
    }
    if (SHAPES.has(node.name)) {
      this.place(this.blocks(node, NESTED));
      return true;
    }
    return false;
  }

  /** Blocks found inside a paragraph go after it (or, outside any paragraph, are dropped). */
  private place(blocks: ElementContent[]): void {
    if (this.pending) append(this.pending, blocks);
  }

  private frame(frame: XmlElement, out: ElementContent[]): void {
    const object = child(frame, 'draw:object') ?? child(frame, 'draw:object-ole');
    const embedded = object && this.frames.object(object);
    if (embedded?.kind === 'formula') {
      // The formula itself; its replacement picture would only repeat it.
      out.push(
        el('code', { className: ['language-math', 'math-inline'] }, [
          { type: 'text', value: embedded.latex },
        ]),
      );
    } else {
      const picture = this.frames.picture(frame);
      if (picture) out.push(picture);
    }
    if (embedded?.kind === 'chart') {
      const blocks: ElementContent[] = [];
      if (embedded.title) blocks.push(el('p', {}, [{ type: 'text', value: embedded.title }]));
      blocks.push(this.table(embedded.table));
      this.place(blocks);
    }
    const textBox = child(frame, 'draw:text-box');
    if (textBox) this.place(this.blocks(textBox, NESTED));
  }

  // ------------------------------------------------------------------ tables and indexes

  private table(node: XmlElement): Element {
    const { table, truncated } = convertTable(node, (cell) => cellContent(this.blocks(cell, NESTED)));
    if (truncated && !this.truncatedTable) {
      this.truncatedTable = true;
      this.warnings.push(TRUNCATED_REPEATS_WARNING);
    }
    return table;
  }
}
