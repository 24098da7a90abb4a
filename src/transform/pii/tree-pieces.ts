import type { Element, Root, RootContent, Text } from 'hast';
import type { Piece } from './replace.ts';

/** Elements that flow inside a line of text; every other element starts a new block. */
export const INLINE: ReadonlySet<string> = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
]);

/** Attributes whose text readers see: pictures' alt and title, links' title. */
const TEXT_ATTRIBUTES: Record<string, readonly string[]> = { img: ['alt', 'title'], a: ['title'] };

/** Between blocks: no pattern reads across it, so a span never joins two cells or paragraphs. */
export const BLOCK_BREAK = '\n\n';

/**
 * The tree's text as pieces, in reading order: text nodes, with a block break between blocks
 * and a newline for `br` (so an address written line by line reads as lines), then the text
 * attributes. The pieces' setters write into the nodes in place, so every element keeps its
 * identity (what refers to nodes, such as a PDF's per-page blocks, still finds them).
 * `dataTable` nodes are returned apart: their rows exist only while they are rendered.
 */
export function treePieces(tree: Root): { pieces: Piece[]; dataTables: RootContent[] } {
  const pieces: Piece[] = [];
  const attributes: Piece[] = [];
  const dataTables: RootContent[] = [];
  const breakBlock = () => {
    if (pieces.length > 0 && pieces[pieces.length - 1]!.text !== BLOCK_BREAK)
      pieces.push({ text: BLOCK_BREAK });
  };
  type Frame = { node: RootContent; exit: boolean };
  const stack: Frame[] = [];
  for (let i = tree.children.length - 1; i >= 0; i--) stack.push({ node: tree.children[i]!, exit: false });
  while (stack.length > 0) {
    const { node, exit } = stack.pop()!;
    if (node.type === 'text') pieces.push(textPiece(node));
    else if (node.type === 'dataTable') dataTables.push(node);
    else if (node.type === 'element') {
      const block = !INLINE.has(node.tagName);
      if (exit) {
        if (block) breakBlock();
        continue;
      }
      if (node.tagName === 'br') {
        pieces.push({ text: '\n' });
        continue;
      }
      if (block) breakBlock();
      collectAttributes(node, attributes);
      stack.push({ node, exit: true });
      for (let i = node.children.length - 1; i >= 0; i--)
        stack.push({ node: node.children[i]!, exit: false });
    }
  }
  for (const a of attributes) {
    breakBlock();
    pieces.push(a);
  }
  return { pieces, dataTables };
}

function textPiece(node: Text): Piece {
  return {
    text: node.value,
    set: (v) => {
      node.value = v;
    },
  };
}

function collectAttributes(el: Element, into: Piece[]): void {
  for (const name of TEXT_ATTRIBUTES[el.tagName] ?? []) {
    const value = el.properties[name];
    if (typeof value !== 'string' || value.trim() === '') continue;
    into.push({
      text: value,
      set: (v) => {
        el.properties[name] = v;
      },
    });
  }
}
