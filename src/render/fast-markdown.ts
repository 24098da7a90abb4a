import type { Heading, Link, List, ListItem, Paragraph, PhrasingContent, Root, RootContent } from 'mdast';
import { PLAIN_URL, plainText } from './fast-safe.ts';
import { PHRASING } from './mdast-flow.ts';
import { REMOVED_IMAGE_URL } from './model-to-mdast.ts';

/**
 * Markdown for the blocks that most documents are made of (paragraphs of plain text, a bold
 * label, a picture without its bytes, headings, comments, plain bullet and numbered lists),
 * written directly: mdast-util-to-markdown spends 5-30 µs per such block on its general
 * machinery (attention pairing, unsafe-pattern checks, list marker choice), most of a slide
 * deck's or a small document's conversion time. A block qualifies only when its text needs
 * no escaping at all (fast-safe.ts decides that, with the context the serializer would give)
 * and nothing around it can change how it is written; everything else is left to the
 * serializer, so the output is byte for byte what it would write (checked on every corpus
 * document and on randomly built trees of these blocks).
 */

/** Text exactly as the serializer writes it in this context, or undefined when it would escape something. */
function plain(value: string, before: string, after: string): string | undefined {
  return value && plainText(value, { before, after }) ? value : undefined;
}

/**
 * A link written as `[text](url)`: plain text, no title, and a URL that needs neither angle
 * brackets nor escapes. One the serializer would write as an autolink (`<url>`, when the text
 * is the URL) is left to it.
 */
function link(node: Link): string | undefined {
  const only = node.children.length === 1 ? node.children[0] : undefined;
  if (only?.type !== 'text' || node.title || !node.url || !PLAIN_URL.test(node.url)) return undefined;
  if (only.value === node.url || `mailto:${only.value}` === node.url) return undefined;
  const label = plain(only.value, '[', '](');
  return label === undefined ? undefined : `[${label}](${node.url})`;
}

/** Text and links, in any order (texts are never adjacent: the tree is tidied). */
function textAndLinks(children: readonly PhrasingContent[]): string | undefined {
  let out = '';
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.type === 'link') {
      const value = link(child);
      if (value === undefined) return undefined;
      out += value;
    } else if (child.type === 'text') {
      const next = children[i + 1];
      const value = plain(child.value, i === 0 ? '\n' : ')', next === undefined ? '\n' : '[');
      if (value === undefined || (next !== undefined && next.type !== 'link')) return undefined;
      out += value;
    } else return undefined;
  }
  return out;
}

/**
 * A paragraph of text and links, of one bold text (a label) or of one picture without its
 * bytes.
 */
function paragraph(node: Paragraph): string | undefined {
  const only: PhrasingContent | undefined = node.children.length === 1 ? node.children[0] : undefined;
  switch (only?.type) {
    case 'strong': {
      // Outside a paragraph's own edges are line ends, where `**` always opens and closes as
      // long as the text does not start or end with whitespace.
      const inner = only.children.length === 1 ? only.children[0] : undefined;
      if (inner?.type !== 'text' || /^\s|\s$/.test(inner.value)) return undefined;
      const text = plain(inner.value, '**', '**');
      return text === undefined ? undefined : `**${text}**`;
    }
    case 'image': {
      if (only.url !== REMOVED_IMAGE_URL || (only.title ?? null) !== null) return undefined;
      const alt = only.alt ?? '';
      if (alt !== '' && plain(alt, '[', ']') === undefined) return undefined;
      return `![${alt}](<Base64-Image-Removed>)`;
    }
    default:
      return node.children.length > 0 ? textAndLinks(node.children) : undefined;
  }
}

/** An ATX heading of one text (the serializer writes setext only for text with line breaks). */
function heading(node: Heading): string | undefined {
  if (node.children.length !== 1) return undefined;
  const only = node.children[0]!;
  if (only.type !== 'text' || /^[\t ]/.test(only.value)) return undefined;
  const text = plain(only.value, '# ', '\n');
  return text === undefined ? undefined : `${'#'.repeat(Math.max(Math.min(6, node.depth || 1), 1))} ${text}`;
}

/**
 * Lines after the first indented to the item's content, the first after its marker; blank
 * lines stay empty (the serializer's `indentLines` with list-item's map).
 */
function indentItem(value: string, bullet: string): string {
  const size = bullet.length + 1;
  return value
    .split('\n')
    .map((line, i) => {
      const blank = line === '';
      if (i > 0) return (blank ? '' : ' '.repeat(size)) + line;
      return (blank ? bullet : `${bullet} `) + line;
    })
    .join('\n');
}

/**
 * What the serializer puts between two flow children of a list or list item: a blank line in
 * a spread one, a line end in a tight one (where the left side ends in a paragraph, as every
 * item does here), except before a numbered list that does not start at 1, which would
 * otherwise continue the paragraph.
 */
function between(parent: List | ListItem, right: RootContent): string {
  if (typeof parent.spread !== 'boolean' || parent.spread) return '\n\n';
  if (right.type === 'list' && right.ordered && typeof right.start === 'number' && right.start !== 1)
    return '\n\n';
  return '\n';
}

/** An item of a paragraph, optionally followed by a list, without a task box. */
function item(node: ListItem): string | undefined {
  if (typeof node.checked === 'boolean') return undefined;
  const [first, second, ...rest] = node.children;
  if (first?.type !== 'paragraph' || rest.length > 0) return undefined;
  const head = paragraph(first);
  if (head === undefined) return undefined;
  if (second === undefined) return head;
  if (second.type !== 'list') return undefined;
  const nested = list(second);
  return nested === undefined ? undefined : head + between(node, second) + nested;
}

function list(node: List): string | undefined {
  if (node.children.length === 0) return undefined;
  const first = typeof node.start === 'number' && node.start > -1 ? node.start : 1;
  const out: string[] = [];
  for (const [i, child] of node.children.entries()) {
    const value = item(child);
    if (value === undefined) return undefined;
    if (i > 0) out.push(between(node, child));
    out.push(indentItem(value, node.ordered ? `${first + i}.` : '-'));
  }
  return out.join('');
}

/**
 * The block as Markdown, or undefined when it is left to the serializer. A list next to
 * another list always is: the serializer alternates their markers.
 */
export function fastBlock(
  node: RootContent,
  previous: RootContent | undefined,
  next: RootContent | undefined,
): string | undefined {
  switch (node.type) {
    case 'paragraph':
      return paragraph(node);
    case 'heading':
      return heading(node);
    case 'html':
      return node.value;
    case 'list':
      return previous?.type === 'list' || next?.type === 'list' ? undefined : list(node);
    default:
      return undefined;
  }
}

/** Whether the root holds phrasing directly, which the serializer then writes as one paragraph. */
export function holdsPhrasing(root: Root): boolean {
  return root.children.some((c) => PHRASING.has(c.type));
}
