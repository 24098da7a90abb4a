import type { Root } from 'hast';
import type { QuireDocument } from '../document/model.ts';
import type { ParseOptions } from '../options/parse-options.ts';
import { keepMainContent } from './main-content.ts';
import { excludeTags, includeTags } from './tag-filters.ts';

/**
 * The tree the renderers see, after the options that select content: includeTags, then
 * excludeTags, then onlyMainContent (upstream's order). Only web pages are transformed;
 * documents come back as they are, as upstream.
 *
 * `doc.tree` is never modified. The result is a new root, but it shares every subtree the
 * options left alone with `doc.tree` (only the ancestors of removed nodes are copied), so
 * that a 50 MB page is not copied for the sake of dropping its footer: treat both trees as
 * read-only. The renderers do.
 */
export function transformDocument(doc: QuireDocument, options: ParseOptions): Root {
  if (doc.kind !== 'web') return doc.tree;
  let tree = options.includeTags?.length ? includeTags(doc.tree, options.includeTags) : doc.tree;
  if (options.excludeTags?.length) tree = excludeTags(tree, options.excludeTags);
  if (options.onlyMainContent) tree = keepMainContent(tree);
  return tree === doc.tree ? { type: 'root', children: [...doc.tree.children] } : tree;
}
