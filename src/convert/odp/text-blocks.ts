import type { ElementContent } from 'hast';
import { append, el } from '../odf/hast.ts';
import type { InlineWalker } from '../odf/inline.ts';
import { type OdfStyles, PLAIN } from '../odf/styles.ts';
import { ListBuilder } from '../package/list-builder.ts';
import type { XmlElement } from '../package/xml.ts';

/**
 * The text of a presentation shape (a text box, a custom shape, a table cell) → blocks.
 * Lists are flattened to (level, paragraph) entries and rebuilt by the shared ListBuilder, so
 * that consecutive `text:list`s of one box nest as they display: Impress writes an item that
 * only indents further as a new list whose first item holds nothing but a deeper list.
 */

/** Levels past this are shown at this depth; real outlines stop at 9 or 10. */
const MAX_LEVEL = 10;

function isBlank(nodes: readonly ElementContent[]): boolean {
  for (const node of nodes) {
    if (node.type === 'text' && node.value.trim() !== '') return false;
    if (
      node.type === 'element' &&
      (node.tagName === 'img' || node.tagName === 'code' || !isBlank(node.children))
    )
      return false;
  }
  return true;
}

/** Line breaks that open or close a paragraph only add vertical space. */
function trimBreaks(nodes: ElementContent[]): ElementContent[] {
  const isSpace = (n: ElementContent | undefined): boolean =>
    n !== undefined &&
    ((n.type === 'element' && n.tagName === 'br') || (n.type === 'text' && n.value.trim() === ''));
  let start = 0;
  let end = nodes.length;
  while (start < end && isSpace(nodes[start])) start++;
  while (end > start && isSpace(nodes[end - 1])) end--;
  return nodes.slice(start, end);
}

interface ListState {
  styleName: string | undefined;
  level: number;
}

export class TextBlocks {
  private readonly styles: OdfStyles;
  private readonly inline: InlineWalker;
  /** Blocks that do not fit in text (tables, pictures inside a box) are converted by the page. */
  private readonly other: (node: XmlElement) => ElementContent[];

  constructor(styles: OdfStyles, inline: InlineWalker, other: (node: XmlElement) => ElementContent[]) {
    this.styles = styles;
    this.inline = inline;
    this.other = other;
  }

  /** A paragraph's phrasing content, without edge line breaks. */
  phrasing(p: XmlElement): ElementContent[] {
    const style = this.styles.resolve('paragraph', p.attrs['text:style-name']);
    return trimBreaks(this.inline.content(p, style?.text ?? PLAIN));
  }

  blocks(container: XmlElement): ElementContent[] {
    const out: ElementContent[] = [];
    const lists = new ListBuilder();
    for (const node of container.children) {
      if (typeof node === 'string') continue;
      if (node.name === 'text:list') {
        this.list(node, { styleName: undefined, level: 0 }, lists, out);
        continue;
      }
      lists.close();
      if (node.name === 'text:p' || node.name === 'text:h') {
        const content = this.phrasing(node);
        if (!isBlank(content)) out.push(el('p', {}, content));
      } else if (node.name === 'text:section' || node.name === 'text:soft-page-break') {
        append(out, this.blocks(node));
      } else append(out, this.other(node));
    }
    return out;
  }

  private list(node: XmlElement, outer: ListState, lists: ListBuilder, out: ElementContent[]): void {
    const state: ListState = {
      styleName: node.attrs['text:style-name'] ?? outer.styleName,
      level: Math.min(MAX_LEVEL, outer.level + 1),
    };
    const levelStyle = this.styles.list(state.styleName)?.get(state.level);
    const ordered = levelStyle?.ordered ?? false;
    const type = levelStyle && /^[aAiI]$/.test(levelStyle.format) ? levelStyle.format : undefined;
    for (const item of node.children) {
      if (typeof item === 'string' || (item.name !== 'text:list-item' && item.name !== 'text:list-header'))
        continue;
      const start = Number.parseInt(item.attrs['text:start-value'] ?? '', 10);
      let placed = false;
      for (const c of item.children) {
        if (typeof c === 'string') continue;
        if (c.name === 'text:list') {
          this.list(c, state, lists, out);
          continue;
        }
        const blocks =
          c.name === 'text:p' || c.name === 'text:h'
            ? [el('p', {}, this.phrasing(c))].filter((p) => !isBlank(p.children))
            : this.other(c);
        for (const block of blocks) {
          // The item's first paragraph is its entry; later blocks belong to the same item.
          if (placed && lists.appendToItem(block)) continue;
          const content = block.type === 'element' && block.tagName === 'p' ? block.children : [block];
          const created = lists.add({
            level: state.level,
            key: ordered ? `n${type ?? ''}` : 'b',
            ordered,
            type,
            value: start >= 0 ? start : (levelStyle?.start ?? 1),
            restart: start >= 0,
            content,
          });
          if (created) out.push(created);
          placed = true;
        }
      }
    }
  }
}
