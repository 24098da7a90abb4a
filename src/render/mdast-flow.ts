import type { Nodes, Parent, PhrasingContent, Root, RootContent } from 'mdast';

/**
 * The mdast clean-up steps of hast-util-to-mdast, for hast-to-mdast.ts: runs of phrasing
 * content wrapped into paragraphs, items gathered into list items, and adjacent texts merged
 * and trimmed. They follow the library's rules, so the Markdown stays what it was made with.
 */

/** mdast's phrasing node types (mdast-util-phrasing's list, which the serializer's root handler uses too). */
export const PHRASING: ReadonlySet<string> = new Set([
  'break',
  'delete',
  'emphasis',
  'footnote',
  'footnoteReference',
  'image',
  'imageReference',
  'inlineCode',
  'inlineMath',
  'link',
  'linkReference',
  'mdxJsxTextElement',
  'mdxTextExpression',
  'strong',
  'text',
  'textDirective',
]);

/** HTML phrasing elements, for inline HTML nodes (which name their element in `data.hName`). */
const HTML_PHRASING = new Set([
  'a',
  'abbr',
  'area',
  'b',
  'bdi',
  'bdo',
  'br',
  'button',
  'cite',
  'code',
  'data',
  'datalist',
  'del',
  'dfn',
  'em',
  'i',
  'input',
  'ins',
  'kbd',
  'keygen',
  'label',
  'map',
  'mark',
  'meter',
  'noscript',
  'output',
  'progress',
  'q',
  'ruby',
  's',
  'samp',
  'script',
  'select',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'template',
  'textarea',
  'time',
  'u',
  'var',
  'wbr',
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
]);

function phrasing(node: Nodes): boolean {
  const hName = node.data && 'hName' in node.data ? node.data.hName : undefined;
  return typeof hName === 'string' && hName ? HTML_PHRASING.has(hName) : PHRASING.has(node.type);
}

/** Whether any of the nodes, at any depth, is not phrasing content. */
export function wrapNeeded(nodes: readonly Nodes[]): boolean {
  for (const node of nodes) {
    if (!phrasing(node) || ('children' in node && wrapNeeded(node.children))) return true;
  }
  return false;
}

const BLANK = /^[ \t\n\f\r]*$/;

/** Runs of phrasing content become paragraphs (blank runs go); blocks stay. */
export function wrap(nodes: RootContent[]): RootContent[] {
  return holdPhrasing(nodes, (run) => ({
    type: 'paragraph',
    children: dropSurroundingBreaks(run) as PhrasingContent[],
  }));
}

/**
 * Runs of phrasing content each held by a node of `hold`'s making (blank runs go); blocks stay,
 * side by side with them. What a heading or paragraph that holds blocks (`<h3>a<div>b</div></h3>`,
 * nested headings in a broken page) becomes: mdast's phrasing parents hold phrasing only, and
 * the serializer renders a block inside one twice per level (it measures a sibling by rendering
 * it), which doubles the time with each level of nesting.
 */
export function holdPhrasing(nodes: RootContent[], hold: (run: RootContent[]) => RootContent): RootContent[] {
  const out: RootContent[] = [];
  runs(
    nodes,
    (run) => {
      if (!run.every((n) => n.type === 'text' && BLANK.test(n.value))) out.push(hold(run));
    },
    (node) => out.push(node),
  );
  return out;
}

/** Phrasing parents that HTML lets hold blocks (`<a><p>…</p></a>`, `<b><div>…</div></b>`). */
const SPLIT = new Set(['delete', 'emphasis', 'link', 'strong']);
type Splittable = Extract<RootContent, { type: 'delete' | 'emphasis' | 'link' | 'strong' }>;

function runs(
  nodes: RootContent[],
  onPhrasing: (run: RootContent[]) => void,
  onFlow: (node: RootContent) => void,
): void {
  let run: RootContent[] = [];
  const visit = (node: RootContent) => {
    if (phrasing(node)) {
      run.push(node);
      return;
    }
    if (run.length > 0) onPhrasing(run);
    run = [];
    onFlow(node);
  };
  for (const node of nodes) {
    // A phrasing parent holding blocks is split around them, so that no two blocks' words join.
    if (SPLIT.has(node.type) && wrapNeeded((node as Splittable).children)) {
      for (const part of split(node as Splittable)) visit(part);
    } else visit(node);
  }
  if (run.length > 0) onPhrasing(run);
}

/** `node` repeated around each run of its phrasing children, and inside each block child. */
function split(node: Splittable): RootContent[] {
  const out: RootContent[] = [];
  runs(
    node.children,
    (run) => out.push({ ...node, children: run as PhrasingContent[] } as RootContent),
    (child) => out.push(within(node, child)),
  );
  return out;
}

/** `block` with `wrapper` around the phrasing it holds, at whatever depth (a list's items' paragraphs). */
function within(wrapper: Splittable, block: RootContent): RootContent {
  if (!('children' in block) || block.children.length === 0) return { ...block };
  const children = block.children as RootContent[];
  if (children.every(phrasing)) return { ...block, children: [{ ...wrapper, children }] } as RootContent;
  return { ...block, children: children.map((child) => within(wrapper, child)) } as RootContent;
}

export function dropSurroundingBreaks(nodes: RootContent[]): RootContent[] {
  let start = 0;
  let end = nodes.length;
  while (start < end && nodes[start]!.type === 'break') start++;
  while (end > start && nodes[end - 1]!.type === 'break') end--;
  return start === 0 && end === nodes.length ? nodes : nodes.slice(start, end);
}

/**
 * Nodes as a list of `type` parents (list items, rows, cells): other nodes join the next
 * such parent, or the last one, or a new one when there is none.
 */
export function toSpecificContent<T extends Extract<RootContent, Parent>>(
  nodes: RootContent[],
  type: T['type'],
  build: () => T,
): T[] {
  const out: T[] = [];
  let queue: RootContent[] = [];
  for (const node of nodes) {
    if (node.type === type) {
      const parent = node as T;
      if (queue.length > 0) {
        (parent.children as RootContent[]).unshift(...queue);
        queue = [];
      }
      out.push(parent);
    } else queue.push(node);
  }
  if (queue.length > 0) {
    let last = out[out.length - 1];
    if (!last) {
      last = build();
      out.push(last);
    }
    for (const node of queue) (last.children as RootContent[]).push(node);
  }
  return out;
}

/**
 * Adjacent texts merged, a line ending's surrounding spaces and tabs dropped, and paragraphs,
 * headings and the root trimmed at their edges; empty texts go.
 */
export function cleanTexts(tree: Root): void {
  const stack: Parent[] = [tree];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    const children = parent.children as RootContent[];
    const trim = parent.type === 'paragraph' || parent.type === 'heading' || parent.type === 'root';
    let hasText = false;
    for (const child of children) {
      if (child.type === 'text') hasText = true;
      else if ('children' in child) stack.push(child);
    }
    if (hasText) parent.children = cleanRun(children, trim) as typeof parent.children;
  }
}

/** Whether a text in the run would change (most runs in documents need nothing). */
function needsCleaning(children: RootContent[], trim: boolean): boolean {
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!;
    if (node.type !== 'text') continue;
    if (!node.value || children[i + 1]?.type === 'text' || /[\r\n]/.test(node.value)) return true;
    if (trim && i === 0 && /^[\t ]/.test(node.value)) return true;
    if (trim && i === children.length - 1 && /[\t ]$/.test(node.value)) return true;
  }
  return false;
}

function cleanRun(children: RootContent[], trim: boolean): RootContent[] {
  if (!needsCleaning(children, trim)) return children;
  const merged: RootContent[] = [];
  for (const child of children) {
    const last = merged[merged.length - 1];
    if (child.type === 'text' && last?.type === 'text') last.value += child.value;
    else merged.push(child);
  }
  const out: RootContent[] = [];
  for (let i = 0; i < merged.length; i++) {
    const node = merged[i]!;
    if (node.type === 'text') {
      let value = node.value.replace(/[\t ]*(\r?\n|\r)[\t ]*/, '$1');
      if (trim && out.length === 0) value = value.replace(/^[\t ]+/, '');
      if (trim && i === merged.length - 1) value = value.replace(/[\t ]+$/, '');
      if (!value) continue;
      node.value = value;
    }
    out.push(node);
  }
  return out;
}
