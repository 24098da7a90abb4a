import type { Element, ElementContent } from 'hast';

/** How a piece of paragraph content is formatted. */
export interface Format {
  href?: string | undefined;
  bold?: boolean | undefined;
  italic?: boolean | undefined;
  strike?: boolean | undefined;
  sup?: boolean | undefined;
  sub?: boolean | undefined;
  code?: boolean | undefined;
}

/** A flat piece of paragraph content: text or an inline element, with its formatting. */
export interface Segment {
  node: ElementContent;
  format: Format;
}

/** Wrapper keys in nesting order: link outermost, code innermost (code holds only text). */
function keysOf(f: Format): string[] {
  const keys: string[] = [];
  if (f.href !== undefined) keys.push(`a ${f.href}`);
  if (f.bold) keys.push('strong');
  if (f.italic) keys.push('em');
  if (f.strike) keys.push('del');
  if (f.sup) keys.push('sup');
  else if (f.sub) keys.push('sub');
  if (f.code) keys.push('code');
  return keys;
}

function wrapper(key: string): Element {
  if (key.startsWith('a ')) {
    return { type: 'element', tagName: 'a', properties: { href: key.slice(2) }, children: [] };
  }
  return { type: 'element', tagName: key, properties: {}, children: [] };
}

/**
 * Flat formatted segments → nested phrasing. Open wrappers are reused while the next segment
 * still has their format, so bold text with an italic word becomes
 * `<strong>bold <em>word</em></strong>` rather than a series of fragments.
 */
export function buildPhrasing(segments: readonly Segment[]): ElementContent[] {
  const root: ElementContent[] = [];
  const stack: { key: string; el: Element }[] = [];
  for (const seg of segments) {
    const wanted = keysOf(seg.format);
    const wantedSet = new Set(wanted);
    let keep = 0;
    while (keep < stack.length && wantedSet.has(stack[keep]!.key)) keep++;
    const open = new Set(stack.slice(0, keep).map((s) => s.key));
    const missing = wanted.filter((k) => !open.has(k));
    if (missing.length > 0 && keep > 0 && stack[keep - 1]!.key === 'code') keep--;
    stack.length = keep;
    for (const key of wanted) {
      if (stack.some((s) => s.key === key)) continue;
      const el = wrapper(key);
      (stack.length > 0 ? stack[stack.length - 1]!.el.children : root).push(el);
      stack.push({ key, el });
    }
    const into = stack.length > 0 ? stack[stack.length - 1]!.el.children : root;
    const last = into[into.length - 1];
    if (seg.node.type === 'text' && last?.type === 'text') last.value += seg.node.value;
    else into.push(seg.node.type === 'text' ? { type: 'text', value: seg.node.value } : seg.node);
  }
  return hoistSpaces(root);
}

const LEADING = /^\s+/;
const TRAILING = /\s+$/;

/**
 * Moves spaces at the edges of formatting wrappers outside them (`<em>word </em>` →
 * `<em>word</em> `): Markdown emphasis cannot start or end with a space.
 */
function hoistSpaces(children: ElementContent[]): ElementContent[] {
  const out: ElementContent[] = [];
  const push = (node: ElementContent): void => {
    const last = out[out.length - 1];
    if (node.type === 'text' && last?.type === 'text') last.value += node.value;
    else out.push(node);
  };
  for (const node of children) {
    if (node.type !== 'element' || node.tagName === 'code' || !isWrapper(node)) {
      push(node);
      continue;
    }
    node.children = hoistSpaces(node.children);
    let before = '';
    let after = '';
    const first = node.children[0];
    if (first?.type === 'text') {
      before = LEADING.exec(first.value)?.[0] ?? '';
      first.value = first.value.slice(before.length);
      if (!first.value) node.children.shift();
    }
    const last = node.children[node.children.length - 1];
    if (last?.type === 'text') {
      after = TRAILING.exec(last.value)?.[0] ?? '';
      last.value = last.value.slice(0, last.value.length - after.length);
      if (!last.value) node.children.pop();
    }
    if (before) push({ type: 'text', value: before });
    if (node.children.length > 0) push(node);
    if (after) push({ type: 'text', value: after });
  }
  return out;
}

function isWrapper(el: Element): boolean {
  return (
    el.tagName === 'strong' ||
    el.tagName === 'em' ||
    el.tagName === 'del' ||
    (el.tagName === 'a' && el.properties.dataFootnoteRef === undefined) ||
    ((el.tagName === 'sup' || el.tagName === 'sub') && !isNoteRef(el))
  );
}

function isNoteRef(el: Element): boolean {
  const first = el.children[0];
  return first?.type === 'element' && first.tagName === 'a' && first.properties.dataFootnoteRef !== undefined;
}
