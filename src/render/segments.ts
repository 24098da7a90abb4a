import type { Root, RootContent } from 'hast';
import type { DataTable } from '../document/model.ts';

export type Segment = { kind: 'tree'; root: Root } | { kind: 'dataTable'; table: DataTable };

/**
 * The root's children cut into runs of ordinary nodes (rendered as one tree) and the
 * `dataTable` nodes between them (rendered by their own streaming renderers).
 */
export function segments(tree: Root): Segment[] {
  const out: Segment[] = [];
  let run: RootContent[] = [];
  for (const child of tree.children) {
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
