import type { Element, ElementContent, Root } from 'hast';
import { CJK } from '../text-cleanup.ts';
import { bodySize, headingKind, headingLevels } from './headings.ts';
import { type Paragraph, splitParagraphs } from './paragraphs.ts';
import type { PageBlock, TextLine } from './types.ts';

type Item = { kind: 'p'; p: Paragraph } | { kind: 'table'; node: Element; page: number };

const SENTENCE_END = /[.!?:;。！？」』"”]$/;

/** The whole document's blocks, in reading order, as semantic hast. */
export function buildTree(pages: readonly { blocks: PageBlock[] }[]): Root {
  const items: Item[] = [];
  for (const page of pages)
    for (const block of page.blocks) {
      if (block.kind === 'table') items.push({ kind: 'table', node: block.node, page: block.page });
      else for (const p of splitParagraphs(block.lines, block.page)) items.push({ kind: 'p', p });
    }
  const paragraphs = items.flatMap((i) => (i.kind === 'p' ? [i.p] : []));
  const body = bodySize(paragraphs);
  const kinds = new Map<Paragraph, 'size' | 'bold'>();
  for (const [i, p] of paragraphs.entries()) {
    const kind = headingKind(p, body, paragraphs[i + 1]);
    if (kind) kinds.set(p, kind);
  }
  const level = headingLevels([...kinds].map(([p, kind]) => ({ p, kind })));
  const children: ElementContent[] = [];
  let list: Element | undefined;
  let lastValue: number | undefined;
  let lastPara: { node: Element; p: Paragraph } | undefined;
  for (const item of items) {
    if (item.kind === 'table') {
      children.push(item.node);
      list = undefined;
      lastPara = undefined;
      continue;
    }
    const p = item.p;
    const kind = kinds.get(p);
    if (kind) {
      children.push(element(`h${level(p, kind)}`, inlineContent(p.lines, 0)));
      list = undefined;
      lastPara = undefined;
    } else if (p.code) {
      children.push(element('pre', [element('code', [{ type: 'text', value: codeText(p.lines) }])]));
      list = undefined;
      lastPara = undefined;
    } else if (p.list) {
      const tag = p.list.ordered ? 'ol' : 'ul';
      // A number that does not follow on (1, 2, then 1 again) starts a new list.
      const restart =
        p.list.ordered && p.list.value !== undefined && lastValue !== undefined && p.list.value <= lastValue;
      lastValue = p.list.value;
      if (!list || list.tagName !== tag || restart) {
        list = element(tag, []);
        if (p.list.ordered && p.list.value !== undefined && p.list.value !== 1)
          list.properties.start = p.list.value;
        children.push(list);
      }
      const li = element('li', inlineContent(p.lines, p.list.markerLength));
      list.children.push(li);
      lastPara = undefined;
    } else if (lastPara && continues(lastPara.p, p)) {
      // A paragraph broken by a page or column break: the text runs on.
      const glue = joiner(lastLine(lastPara.p).text, p.lines[0]!.text);
      appendInlines(lastPara.node.children, inlineContent(p.lines, 0), glue);
      lastPara.p = p;
    } else {
      const node = element('p', inlineContent(p.lines, 0));
      children.push(node);
      list = undefined;
      lastPara = { node, p };
    }
  }
  return { type: 'root', children };
}

function lastLine(p: Paragraph): TextLine {
  return p.lines[p.lines.length - 1]!;
}

/** Whether `next` continues `prev` across a page or column break. */
function continues(prev: Paragraph, next: Paragraph): boolean {
  const end = lastLine(prev).text.trim();
  const start = next.lines[0]!.text.trim();
  return (
    next.page !== prev.page &&
    !SENTENCE_END.test(end) &&
    /^\p{Ll}/u.test(start) &&
    Math.abs(next.fontSize - prev.fontSize) < prev.fontSize * 0.1
  );
}

function element(tagName: string, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties: {}, children };
}

/** How two lines of one paragraph join: undoing a hyphenation, no space in CJK, else a space. */
function joiner(before: string, after: string): '' | ' ' | 'dehyphen' {
  const a = before.trimEnd();
  const b = after.trimStart();
  if (/\p{L}-$/u.test(a) && /^\p{Ll}/u.test(b)) return 'dehyphen';
  if (CJK.test(a.slice(-1)) || CJK.test(b.charAt(0))) return '';
  return ' ';
}

function appendInlines(target: ElementContent[], add: ElementContent[], glue: '' | ' ' | 'dehyphen'): void {
  const last = target[target.length - 1];
  if (glue === 'dehyphen' && last?.type === 'text') last.value = last.value.trimEnd().replace(/-$/, '');
  else if (glue === 'dehyphen' && last?.type === 'element') {
    const t = last.children[last.children.length - 1];
    if (t?.type === 'text') t.value = t.value.trimEnd().replace(/-$/, '');
  } else if (glue === ' ' && last) target.push({ type: 'text', value: ' ' });
  for (const node of add) {
    const prev = target[target.length - 1];
    if (node.type === 'text' && prev?.type === 'text') prev.value += node.value;
    else target.push(node);
  }
}

/** A paragraph's lines as phrasing content: text with links, lines joined. */
function inlineContent(lines: readonly TextLine[], skip: number): ElementContent[] {
  const out: ElementContent[] = [];
  for (const [i, line] of lines.entries()) {
    const pieces: ElementContent[] = [];
    let drop = i === 0 ? skip : 0;
    for (const inline of line.inlines) {
      let value = inline.text;
      if (drop > 0) {
        const cut = Math.min(drop, value.length);
        value = value.slice(cut);
        drop -= cut;
      }
      if (i === 0 && pieces.length === 0) value = value.trimStart();
      if (!value) continue;
      const text = { type: 'text' as const, value };
      if (inline.href) {
        const prev = pieces[pieces.length - 1];
        if (prev?.type === 'element' && prev.properties.href === inline.href) {
          const t = prev.children[prev.children.length - 1];
          if (t?.type === 'text') t.value += value;
        } else
          pieces.push({ type: 'element', tagName: 'a', properties: { href: inline.href }, children: [text] });
      } else pieces.push(text);
    }
    if (i === 0) appendInlines(out, pieces, '');
    else appendInlines(out, pieces, joiner(lines[i - 1]!.text, line.text));
  }
  const last = out[out.length - 1];
  if (last?.type === 'text') last.value = last.value.trimEnd();
  return out;
}

/** Monospace lines keep their breaks; indentation is rebuilt from the x offset. */
function codeText(lines: readonly TextLine[]): string {
  const left = Math.min(...lines.map((l) => l.x));
  return lines
    .map(
      (l) =>
        ' '.repeat(Math.max(0, Math.min(40, Math.round((l.x - left) / (l.fontSize * 0.6))))) +
        l.text.trimEnd(),
    )
    .join('\n');
}
