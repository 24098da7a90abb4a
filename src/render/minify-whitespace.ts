import type { Element, ElementContent, RootContent } from 'hast';

/**
 * The whitespace collapsing of rehype-minify-whitespace (which hast-util-to-mdast runs on a
 * copy of the tree before converting it), done on the fly while hast-to-mdast.ts walks the
 * tree once in document order: the same texts come out, without the copy and the extra
 * pass. Runs of whitespace become one space outside `pre`; a space is dropped at the start
 * and end of a block, after another space, and before a block boundary.
 */

export type WhiteSpace = 'normal' | 'nowrap' | 'pre' | 'pre-wrap';

type Content = RootContent | ElementContent;

/** Elements that start and end a line (rehype-minify-whitespace's list). */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'caption',
  'center',
  'col',
  'colgroup',
  'dd',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'listing',
  'main',
  'menu',
  'nav',
  'ol',
  'optgroup',
  'option',
  'p',
  'plaintext',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'wbr',
  'xmp',
]);

/** Embedded and form elements: they show something, so whitespace next to them counts. */
const CONTENT = new Set([
  'audio',
  'canvas',
  'embed',
  'iframe',
  'img',
  'math',
  'object',
  'picture',
  'svg',
  'video',
  'button',
  'input',
  'select',
  'textarea',
]);

/** Elements looked past when deciding what follows a space. */
const SKIPPABLE = new Set([
  'area',
  'base',
  'basefont',
  'dialog',
  'datalist',
  'head',
  'link',
  'meta',
  'noembed',
  'noframes',
  'param',
  'rp',
  'script',
  'source',
  'style',
  'template',
  'track',
  'title',
]);

const RUN = /[\t\n\v\f\r ]+/g;
/** Whether a text has whitespace to collapse (most document texts have none). */
const COLLAPSIBLE = /[\t\n\v\f\r]| {2}/;
const BLANK = /^[ \t\n\f\r]*$/;

export const isBlock = (el: Element): boolean => BLOCKS.has(el.tagName);

/** The children of one element (or the root) being walked, with what is known about them. */
export interface Frame {
  readonly nodes: readonly Content[];
  /** The child being visited. */
  index: number;
  /** The frame whose current child is this frame's element. */
  readonly parent: Frame | undefined;
  /** Whether what follows the last child is a line boundary (known for blocks, else computed once). */
  after: boolean | undefined;
  readonly ws: WhiteSpace;
  /** The last look-ahead from child `scanFrom` ended at child `scanTo` with `scanResult`. */
  scanFrom: number;
  scanTo: number;
  scanResult: boolean | undefined;
}

function whiteSpaceOf(el: Element, inherited: WhiteSpace): WhiteSpace {
  switch (el.tagName) {
    case 'listing':
    case 'plaintext':
    case 'script':
    case 'style':
    case 'xmp':
      return 'pre';
    case 'nobr':
      return 'nowrap';
    case 'pre':
      return el.properties.wrap ? 'pre-wrap' : 'pre';
    case 'td':
    case 'th':
      return el.properties.noWrap ? 'nowrap' : inherited;
    case 'textarea':
      return 'pre-wrap';
    default:
      return inherited;
  }
}

function frame(nodes: readonly Content[], parent: Frame | undefined, block: boolean, ws: WhiteSpace): Frame {
  return {
    nodes,
    index: -1,
    parent,
    after: block ? true : undefined,
    ws,
    scanFrom: 0,
    scanTo: -1,
    scanResult: undefined,
  };
}

/**
 * Whether `node` settles what follows a space: a line boundary (true), something shown
 * (false), or neither (undefined: look further).
 */
function boundary(node: Content): boolean | undefined {
  if (node.type === 'element') {
    if (CONTENT.has(node.tagName)) return false;
    if (BLOCKS.has(node.tagName)) return true;
    if (node.properties.hidden || SKIPPABLE.has(node.tagName)) return undefined;
    for (const child of node.children) {
      const result = boundary(child);
      if (result !== undefined) return result;
    }
    return undefined;
  }
  if (node.type === 'text') return BLANK.test(node.value) ? undefined : false;
  return node.type === 'comment' || node.type === 'doctype' ? undefined : false;
}

export class Whitespace {
  /** Whether a space starting the next text is dropped (at a line start, or after a space). */
  before = true;

  root(nodes: readonly Content[]): Frame {
    this.before = true;
    return frame(nodes, undefined, true, 'normal');
  }

  /** The frame of `el`'s children; `parent` is the frame `el` is the current child of. */
  enter(el: Element, parent: Frame): Frame {
    const block = BLOCKS.has(el.tagName);
    if (block) this.before = true;
    return frame(el.children, parent, block, whiteSpaceOf(el, parent.ws));
  }

  /** After all of `el`'s children were visited (converted, copied or walked). */
  leave(el: Element, inner: Frame): void {
    if (BLOCKS.has(el.tagName)) this.before = true;
    else if (CONTENT.has(el.tagName)) this.before = false;
    else if (!this.before) this.before = this.afterAll(inner);
  }

  /** Leaving a node that is neither text, element nor comment. */
  other(): void {
    this.before = false;
  }

  /** The text as it reads in the flow, or undefined when nothing of it is left. */
  text(value: string, at: Frame): string | undefined {
    if (at.ws === 'pre' || at.ws === 'pre-wrap') {
      this.before = false;
      return value;
    }
    const collapsed = COLLAPSIBLE.test(value) ? value.replace(RUN, ' ') : value;
    if (at.ws === 'nowrap') {
      this.before = false;
      return collapsed;
    }
    let start = 0;
    let end = collapsed.length;
    let spaceAtEnd = false;
    if (this.before && collapsed.charCodeAt(0) === 32) start = 1;
    if (start !== end && collapsed.charCodeAt(end - 1) === 32) {
      if (this.afterChild(at)) end--;
      else spaceAtEnd = true;
    }
    if (start === end) return undefined;
    this.before = spaceAtEnd;
    return start === 0 && end === collapsed.length ? collapsed : collapsed.slice(start, end);
  }

  /** Visits the children of an element whose content is not converted, for its effect on the flow. */
  walk(at: Frame): void {
    for (at.index = 0; at.index < at.nodes.length; at.index++) {
      const node = at.nodes[at.index]!;
      if (node.type === 'text') this.text(node.value, at);
      else if (node.type === 'element') {
        const inner = this.enter(node, at);
        this.walk(inner);
        this.leave(node, inner);
      } else if (node.type !== 'comment' && node.type !== 'doctype') this.other();
    }
  }

  /** The children with their whitespace as it reads, for code spans and HTML fallbacks. */
  copy(at: Frame): ElementContent[] {
    const out: ElementContent[] = [];
    for (at.index = 0; at.index < at.nodes.length; at.index++) {
      const node = at.nodes[at.index]!;
      if (node.type === 'text') {
        const value = this.text(node.value, at);
        if (value !== undefined) out.push({ type: 'text', value });
      } else if (node.type === 'element') {
        const inner = this.enter(node, at);
        out.push({ ...node, children: this.copy(inner) });
        this.leave(node, inner);
      } else if (node.type === 'comment') out.push(node);
      else if (node.type !== 'doctype') this.other();
    }
    return out;
  }

  /** Whether a line boundary follows the current child of `at`, looking past blank content. */
  private afterChild(at: Frame): boolean {
    const i = at.index;
    if (i >= at.scanFrom && i < at.scanTo) return at.scanResult ?? this.afterAll(at);
    let j = i + 1;
    let result: boolean | undefined;
    for (; j < at.nodes.length; j++) {
      result = boundary(at.nodes[j]!);
      if (result !== undefined) break;
    }
    // Every child between `i` and `j` was blank: a look-ahead from any of them ends the same.
    at.scanFrom = i;
    at.scanTo = j;
    at.scanResult = result;
    return result ?? this.afterAll(at);
  }

  /** Whether a line boundary follows the last child of `at`. */
  private afterAll(at: Frame): boolean {
    at.after ??= at.parent ? this.afterChild(at.parent) : true;
    return at.after;
  }
}
