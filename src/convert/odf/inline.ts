import type { ElementContent } from 'hast';
import type { XmlElement } from '../package/xml.ts';
import { append, el } from './hast.ts';
import type { OdfStyles, TextFormat } from './styles.ts';

/**
 * The text walker for paragraph content shared by ODT, ODS and ODP: text:span, text:a,
 * text:s, text:tab, text:line-break and fields (whose displayed value is their content), with
 * character formatting from the styles. What the walker does not know (notes, frames) goes
 * to the format's hook first; anything else unknown is descended into, so fields show their
 * current value.
 */

export interface InlineHooks {
  /** Handles a format-specific element; returns true when it did (false: the walker decides). */
  element(el: XmlElement, out: ElementContent[], format: TextFormat): boolean;
}

/** Content that is never displayed as text where it stands. */
const SKIPPED = new Set([
  'office:annotation',
  'office:annotation-end',
  'office:event-listeners',
  'text:number', // a cached rendering of a list label
  'text:ruby-text',
  'text:hidden-text',
  'text:hidden-paragraph',
  'text:tracked-changes',
  'text:note', // without a hook that places it, a note body must not run into the text
  'svg:title',
  'svg:desc',
  'draw:frame', // pictures need the package: the format's hook places them
]);

/** Spaces from one `text:s`; real documents use a handful, hostile ones could ask for billions. */
const MAX_SPACES = 1000;

/** Formatting marks, outermost first, each with the element it becomes. */
const MARKS: readonly [keyof TextFormat, string][] = [
  ['bold', 'strong'],
  ['italic', 'em'],
  ['strike', 'del'],
  ['sup', 'sup'],
  ['sub', 'sub'],
  ['mono', 'code'],
];
const MARK_TAGS = new Set(MARKS.map(([, tag]) => tag));

/** Links to script or inline data are not kept as links. */
function safeHref(href: string | undefined): string | undefined {
  if (!href) return undefined;
  return /^\s*(?:javascript|vbscript|data):/i.test(href) ? undefined : href;
}

export class InlineWalker {
  private readonly styles: OdfStyles;
  private readonly hooks: InlineHooks;

  constructor(styles: OdfStyles, hooks: InlineHooks) {
    this.styles = styles;
    this.hooks = hooks;
  }

  /**
   * The phrasing content of a paragraph-like element. `base` is the formatting the block
   * already carries (its paragraph style): only what spans add beyond it becomes marks.
   */
  content(container: XmlElement, base: TextFormat): ElementContent[] {
    const out: ElementContent[] = [];
    this.walk(container, base, out);
    return mergeAdjacent(out);
  }

  private walk(container: XmlElement, applied: TextFormat, out: ElementContent[]): void {
    for (const node of container.children) {
      if (typeof node === 'string') {
        // ODF collapses white space in text as HTML does; text:s and text:tab carry the rest.
        out.push({ type: 'text', value: node.replace(/[ \t\r\n]+/g, ' ') });
        continue;
      }
      switch (node.name) {
        case 'text:s': {
          const count = Number.parseInt(node.attrs['text:c'] ?? '1', 10);
          out.push({ type: 'text', value: ' '.repeat(Math.min(Math.max(count || 1, 1), MAX_SPACES)) });
          continue;
        }
        case 'text:tab':
          out.push({ type: 'text', value: '\t' });
          continue;
        case 'text:line-break':
          out.push(el('br', {}, []));
          continue;
        case 'text:span':
          this.span(node, applied, out);
          continue;
        case 'text:a': {
          const children: ElementContent[] = [];
          this.walk(node, applied, children);
          const href = safeHref(node.attrs['xlink:href']);
          if (href) out.push(el('a', { href }, children));
          else append(out, children);
          continue;
        }
      }
      if (this.hooks.element(node, out, applied)) continue;
      if (SKIPPED.has(node.name)) continue;
      this.walk(node, applied, out);
    }
  }

  private span(node: XmlElement, applied: TextFormat, out: ElementContent[]): void {
    const format: TextFormat = { ...applied, ...this.styles.textFormat(node.attrs['text:style-name']) };
    let children: ElementContent[] = [];
    this.walk(node, format, children);
    for (let i = MARKS.length - 1; i >= 0; i--) {
      const [key, tag] = MARKS[i]!;
      if (format[key] && !applied[key]) children = [el(tag, {}, children)];
    }
    append(out, children);
  }
}

/**
 * Joins neighbouring runs with the same mark (`<strong>a </strong><strong>b</strong>`), which
 * office files produce whenever a revision id or a font changes mid-word, and adjacent texts.
 */
export function mergeAdjacent(nodes: ElementContent[]): ElementContent[] {
  const out: ElementContent[] = [];
  for (const node of nodes) {
    const last = out[out.length - 1];
    if (node.type === 'text' && last?.type === 'text') {
      last.value += node.value;
      continue;
    }
    if (
      node.type === 'element' &&
      last?.type === 'element' &&
      last.tagName === node.tagName &&
      MARK_TAGS.has(node.tagName)
    ) {
      append(last.children, node.children);
      continue;
    }
    out.push(node);
  }
  for (const node of out) {
    if (node.type === 'element' && MARK_TAGS.has(node.tagName)) node.children = mergeAdjacent(node.children);
  }
  return out;
}

/** The plain text of phrasing content: line breaks as newlines (for code blocks and labels). */
export function plainText(nodes: readonly ElementContent[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += node.value;
    else if (node.type === 'element') out += node.tagName === 'br' ? '\n' : plainText(node.children);
  }
  return out;
}
