import type { Nodes, Parent, PhrasingContent, Root, RootContent } from 'mdast';

type Wrapper = Extract<PhrasingContent, { type: 'emphasis' | 'strong' | 'delete' | 'link' }>;

function isWrapper(node: RootContent): node is Wrapper {
  return node.type === 'emphasis' || node.type === 'strong' || node.type === 'delete' || node.type === 'link';
}

type Edge = '' | 'space' | 'break';

/**
 * Cuts the whitespace and line breaks at one end of a wrapper's content; says what was cut,
 * a line break winning over spaces.
 */
function cutEdge(wrapper: Wrapper, end: 'start' | 'end'): Edge {
  let cut: Edge = '';
  let node: Nodes = wrapper;
  while ('children' in node && node.children.length > 0) {
    const children: RootContent[] = node.children;
    const at = end === 'start' ? 0 : children.length - 1;
    const edge: RootContent = children[at]!;
    if (edge.type === 'break') {
      children.splice(at, 1);
      cut = 'break';
      continue;
    }
    if (edge.type === 'text') {
      const m = end === 'start' ? /^\s+/.exec(edge.value) : /\s+$/.exec(edge.value);
      if (!m) return cut;
      edge.value = end === 'start' ? edge.value.slice(m[0].length) : edge.value.slice(0, -m[0].length);
      if (edge.value !== '') return cut || 'space';
      children.splice(at, 1);
      cut ||= 'space';
      continue;
    }
    if (!isWrapper(edge)) return cut;
    node = edge;
  }
  return cut;
}

/** What stands outside a wrapper for what was cut from its edge. */
function edgeNode(cut: Edge): RootContent[] {
  if (cut === 'break') return [{ type: 'break' }];
  return cut === 'space' ? [{ type: 'text', value: ' ' }] : [];
}

function isEmpty(node: Nodes): boolean {
  if (node.type === 'text') return node.value.trim() === '';
  if (!('children' in node)) return false;
  return (node.children as Nodes[]).every(isEmpty);
}

/** Joins adjacent text nodes, without doubling the whitespace where they meet. */
function mergeTexts(children: RootContent[]): RootContent[] {
  const out: RootContent[] = [];
  for (const child of children) {
    const last = out[out.length - 1];
    if (child.type === 'text' && last?.type === 'text') {
      last.value += /\s$/.test(last.value) ? child.value.replace(/^\s+/, '') : child.value;
    } else out.push(child);
  }
  return out;
}

function trimEdges(parent: Parent): void {
  const children = parent.children as RootContent[];
  const first = children[0];
  if (first?.type === 'text') {
    first.value = first.value.replace(/^\s+/, '');
    if (!first.value) children.shift();
  }
  const last = children[children.length - 1];
  if (last?.type === 'text') {
    last.value = last.value.replace(/\s+$/, '');
    if (!last.value) children.pop();
  }
}

/**
 * Moves whitespace and line breaks at the edges of emphasis, strong, strikethrough and link
 * content outside them (`is<b> an</b>` → `is **an**`, where Markdown would otherwise need
 * character references), drops such wrappers when they hold nothing visible, drops list
 * items with nothing in them (an empty bullet says nothing to a reader), and makes the line
 * breaks in a heading spaces.
 */
export function tidyMdast(tree: Root): void {
  const stack: Array<{ parent: Parent; inside: ReadonlySet<string>; inHeading: boolean }> = [
    { parent: tree, inside: new Set(), inHeading: false },
  ];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const { parent, inside } = entry;
    const inHeading = entry.inHeading || parent.type === 'heading';
    let children = parent.children as RootContent[];
    if (parent.type === 'list') {
      children = children.filter((c) => !(c.type === 'listItem' && c.checked == null && isEmpty(c)));
    }
    if (inside.size > 0 && children.some((c) => inside.has(c.type))) children = unnest(children, inside);
    if (children.some(isWrapper)) {
      const out: RootContent[] = [];
      for (const child of children) {
        if (!isWrapper(child)) {
          out.push(child);
          continue;
        }
        if (isEmpty(child)) {
          out.push({ type: 'text', value: ' ' });
          continue;
        }
        const before = cutEdge(child, 'start');
        const after = cutEdge(child, 'end');
        out.push(...edgeNode(before));
        if (!isEmpty(child)) out.push(child);
        out.push(...edgeNode(after));
      }
      children = out;
    }
    if (children.some((c, i) => c.type === 'inlineCode' && children[i + 1]?.type === 'inlineCode')) {
      // Two code spans in a row would read as one (`a``b`): keep them apart.
      children = children.flatMap((c, i) =>
        c.type === 'inlineCode' && children[i + 1]?.type === 'inlineCode'
          ? [c, { type: 'text', value: ' ' }]
          : [c],
      );
    }
    if (inHeading && children.some((c) => c.type === 'break')) {
      // A heading is one ATX line: with a break in it the serializer would write a setext
      // heading for levels 1 and 2 (and a space for the others).
      children = mergeTexts(children.map((c) => (c.type === 'break' ? { type: 'text', value: ' ' } : c)));
    }
    parent.children = children as typeof parent.children;
    if (parent.type === 'paragraph' || parent.type === 'heading' || parent.type === 'tableCell') {
      parent.children = mergeTexts(parent.children) as typeof parent.children;
      if (parent.type === 'tableCell') {
        // A cell is one line: the spaces where its blocks were joined collapse.
        for (const child of parent.children)
          if (child.type === 'text') child.value = child.value.replace(/\s{2,}/g, ' ');
      }
      trimEdges(parent);
    }
    for (const child of parent.children as RootContent[]) {
      if (!('children' in child)) continue;
      const nested = NESTABLE.has(child.type) && !inside.has(child.type);
      stack.push({ parent: child, inside: nested ? new Set([...inside, child.type]) : inside, inHeading });
    }
  }
}

/** Wrappers whose repetition means nothing: bold inside bold is bold. */
const NESTABLE = new Set(['emphasis', 'strong', 'delete', 'link']);

/**
 * Children with every wrapper of a kind already open above them replaced by its content,
 * repeatedly (`<b><b><b>x` → `**x**`). Deeply nested emphasis is what broken pages produce,
 * and the serializer's emphasis algorithm is far from linear in its depth.
 */
function unnest(children: RootContent[], inside: ReadonlySet<string>): RootContent[] {
  const out: RootContent[] = [];
  const work = [...children].reverse();
  while (work.length > 0) {
    const node = work.pop()!;
    if (inside.has(node.type) && 'children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) work.push(node.children[i] as RootContent);
    } else out.push(node);
  }
  return out;
}
