import type { Root, RootContent } from 'hast';
import type { DataTable } from '../document/model.ts';

export type Segment = { kind: 'tree'; root: Root } | { kind: 'dataTable'; table: DataTable };

/**
 * Top-level nodes rendered as one tree at most. A long document is rendered a slice at a
 * time: the Markdown path builds an mdast tree and its text for each tree it is given, and
 * slices keep that working set (and the garbage collector's) small; a 100 MB document
 * renders in a fraction of the memory of one pass.
 */
const SLICE_NODES = 2000;

/** Where a slice may end: before a heading or paragraph, so that no list or quote is split. */
function canCutBefore(node: RootContent): boolean {
  return node.type === 'element' && /^(?:h[1-6]|p)$/.test(node.tagName);
}

/**
 * The root's children cut into runs of ordinary nodes (rendered as one tree each) and the
 * `dataTable` nodes between them (rendered by their own streaming renderers).
 */
export function segments(tree: Root): Segment[] {
  const out: Segment[] = [];
  let run: RootContent[] = [];
  for (const child of tree.children) {
    if (run.length >= SLICE_NODES && canCutBefore(child)) {
      out.push({ kind: 'tree', root: { type: 'root', children: run } });
      run = [];
    }
    if (child.type === 'dataTable') {
      if (run.length > 0) out.push({ kind: 'tree', root: { type: 'root', children: run } });
      run = [];
      out.push({ kind: 'dataTable', table: child });
    } else {
      run.push(child);
    }
  }
  if (run.length > 0) out.push({ kind: 'tree', root: { type: 'root', children: run } });
  return out;
}
