import type { ElementContent, Text } from 'hast';

/** Character formatting bits carried by a text run. */
export const BOLD = 1;
export const ITALIC = 2;
export const STRIKE = 4;
export const SUPER = 8;
export const SUB = 16;
export const CODE = 32;

/** Formatting elements from the outside in; code sits innermost. */
const WRAPPERS: ReadonlyArray<[number, string]> = [
  [BOLD, 'strong'],
  [ITALIC, 'em'],
  [STRIKE, 'del'],
  [SUPER, 'sup'],
  [SUB, 'sub'],
  [CODE, 'code'],
];

/** C0 controls other than tab and line breaks: junk bytes in text, invalid in the output. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL_CHARS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

interface TextRun {
  text: string[];
  fmt: number;
  href: string | undefined;
}

interface NodeRun {
  node: ElementContent;
  href: string | undefined;
}

/** The inline content of one paragraph while it is being read. */
export class Paragraph {
  items: Array<TextRun | NodeRun> = [];
  /** Text of `\listtext` / `\pntext`: the rendered list marker. */
  listText: string | undefined;
  private last: TextRun | undefined;
  /** Non-whitespace text or an inline node was added. */
  hasContent = false;
  /** Every text character so far is in a monospace font. */
  allCode = true;

  addText(text: string, fmt: number, href: string | undefined): void {
    if (!text) return;
    const blank = !/\S/.test(text);
    if (!blank) {
      this.hasContent = true;
      if (!(fmt & CODE) || href) this.allCode = false;
    }
    const last = this.last;
    if (last && last.fmt === fmt && last.href === href) {
      last.text.push(text);
      return;
    }
    const run: TextRun = { text: [text], fmt, href };
    this.items.push(run);
    this.last = run;
  }

  /** A list marker kept as text, for a paragraph that turned out not to be a list item. */
  prependText(text: string): void {
    if (/\S/.test(text)) this.hasContent = true;
    this.items.unshift({ text: [text.replace(/\t/g, ' ')], fmt: 0, href: undefined });
  }

  addNode(node: ElementContent, href: string | undefined, content = true): void {
    this.items.push({ node, href });
    this.last = undefined;
    if (content) {
      this.hasContent = true;
      this.allCode = false;
    }
  }

  /** The paragraph's text as one plain string, for code blocks. */
  plainText(): string {
    let s = '';
    for (const item of this.items) if ('text' in item) s += item.text.join('');
    return s.trim().toWellFormed();
  }

  /** The paragraph's inline hast: links grouped, formatting nested, ends trimmed. */
  toHast(dropFormat = 0): ElementContent[] {
    const all: Segment[] = [];
    for (const item of this.items) {
      if ('node' in item) {
        all.push({ node: item.node, fmt: 0, href: item.href, blank: false });
        continue;
      }
      // Unpaired \uN surrogates become U+FFFD rather than invalid output.
      const text = item.text.join('').toWellFormed().replace(CONTROL_CHARS, '');
      if (!text) continue;
      const node: Text = { type: 'text', value: text };
      all.push({ node, fmt: item.fmt & ~dropFormat, href: item.href, blank: !/\S/.test(text) });
    }
    const segments = trimEnds(all);
    // Spaces take only the formatting they share with both neighbours, so `**a** **b**` stays one run.
    segments.forEach((seg, i) => {
      if (seg.blank) seg.fmt &= (segments[i - 1]?.fmt ?? 0) & (segments[i + 1]?.fmt ?? 0);
    });
    const out: ElementContent[] = [];
    for (let i = 0; i < segments.length; ) {
      const href = segments[i]!.href;
      let j = i + 1;
      while (j < segments.length && segments[j]!.href === href) j++;
      const content = nest(segments.slice(i, j), 0);
      if (href) out.push({ type: 'element', tagName: 'a', properties: { href }, children: content });
      else for (const node of content) out.push(node);
      i = j;
    }
    return out;
  }
}

interface Segment {
  node: ElementContent;
  fmt: number;
  href: string | undefined;
  blank: boolean;
}

/** Whitespace at the start and end of the paragraph goes, across as many text segments as it spans. */
function trimEnds(segments: Segment[]): Segment[] {
  let first = 0;
  let last = segments.length - 1;
  for (; first <= last; first++) {
    const node = segments[first]!.node;
    if (node.type !== 'text') break;
    node.value = node.value.trimStart();
    if (node.value) break;
  }
  for (; last >= first; last--) {
    const node = segments[last]!.node;
    if (node.type !== 'text') break;
    node.value = node.value.trimEnd();
    if (node.value) break;
  }
  return first === 0 && last === segments.length - 1 ? segments : segments.slice(first, last + 1);
}

/** Consecutive segments sharing a formatting bit share its element, outermost bit first. */
function nest(segments: Segment[], wrapper: number): ElementContent[] {
  if (wrapper === WRAPPERS.length) return segments.map((s) => s.node);
  const [bit, tagName] = WRAPPERS[wrapper]!;
  const out: ElementContent[] = [];
  for (let i = 0; i < segments.length; ) {
    const has = (segments[i]!.fmt & bit) !== 0;
    let j = i + 1;
    while (j < segments.length && ((segments[j]!.fmt & bit) !== 0) === has) j++;
    const inner = nest(segments.slice(i, j), wrapper + 1);
    if (has) out.push({ type: 'element', tagName, properties: {}, children: inner });
    else for (const node of inner) out.push(node);
    i = j;
  }
  return out;
}
