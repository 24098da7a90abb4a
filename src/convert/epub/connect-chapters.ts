import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import { resolvePartPath } from '../package/ooxml.ts';
import { type BookState, key, type LinkRecord, type NoteRecord } from './book-state.ts';

const SCRIPT_URL = /^\s*(?:javascript|vbscript):/i;

type Target = { external: string } | { path: string; fragment: string };

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Resolved paths by chapter and relative path: a book repeats the same few thousand times. */
type PathCache = Map<string, string>;

function target(href: string, chapter: string, cache: PathCache): Target | undefined {
  const trimmed = href.trim();
  if (!trimmed || SCRIPT_URL.test(trimmed)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) return { external: trimmed };
  const hash = trimmed.indexOf('#');
  const pathPart = (hash === -1 ? trimmed : trimmed.slice(0, hash)).replace(/\?.*$/, '');
  const fragment = hash === -1 ? '' : safeDecode(trimmed.slice(hash + 1));
  if (!pathPart) return { path: chapter, fragment };
  const cacheKey = `${chapter}\n${pathPart}`;
  let path = cache.get(cacheKey);
  if (path === undefined) {
    path = resolvePartPath(chapter, pathPart);
    cache.set(cacheKey, path);
  }
  return { path, fragment };
}

/** The href a link gets in the combined tree, or undefined when it leads nowhere readable. */
function resolveHref(t: Target, book: BookState): string | undefined {
  if ('external' in t) return t.external;
  const id = t.fragment ? book.ids.get(key(t.path, t.fragment)) : undefined;
  if (id) return `#${id}`;
  const chapter = book.chapters.get(t.path);
  return chapter ? `#${chapter}` : undefined;
}

function removeFromParents(removed: Map<Element, Set<ElementContent>>): void {
  for (const [parent, nodes] of removed) parent.children = parent.children.filter((c) => !nodes.has(c));
}

function markRemoved(
  removed: Map<Element, Set<ElementContent>>,
  parent: Element,
  node: ElementContent,
): void {
  let set = removed.get(parent);
  if (!set) {
    set = new Set();
    removed.set(parent, set);
  }
  set.add(node);
}

/** Turns a note reference into the model's footnote reference, `<sup><a data-footnote-ref>`. */
function footnoteReference(link: LinkRecord, label: string, first: boolean): void {
  const a = h(
    'a',
    { href: `#fn-${label}`, id: first ? `fnref-${label}` : undefined, dataFootnoteRef: true },
    label,
  );
  const { el, parent } = link;
  if (parent.tagName === 'sup') {
    el.children = a.children;
    el.properties = a.properties;
    // `<sup>[1]</sup>`: the brackets around the reference would print around `[^1]`.
    if (parent.children.every((c) => c === el || (c.type === 'text' && /^[\s[\]()]*$/.test(c.value))))
      parent.children = [el];
  } else {
    el.tagName = 'sup';
    el.properties = {};
    el.children = [a];
  }
}

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** A notes section whose notes all moved: nothing left but its heading, rules and empty lists. */
function isLeftover(section: Element): boolean {
  const stack: ElementContent[] = [...section.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text' && node.value.trim() !== '') return false;
    if (node.type !== 'element' || HEADINGS.has(node.tagName)) continue;
    if (node.tagName === 'img') return false;
    stack.push(...node.children);
  }
  return true;
}

/**
 * Once every chapter is walked: links between chapters become in-document fragments (a link
 * to a chapter points at its section), links to nothing readable become plain text, and
 * notes that are referenced move into the model's footnote section, numbered across the
 * book, with their links back to the reference dropped. Returns that section, if any.
 */
export function connectChapters(book: BookState): Element | undefined {
  const removed = new Map<Element, Set<ElementContent>>();
  const labels = new Map<NoteRecord, string>();
  const items: Element[] = [];
  const cache: PathCache = new Map();
  for (const link of book.links) {
    const t = target(String(link.el.properties.href ?? ''), link.chapter, cache);
    const note = t && !('external' in t) ? book.notes.get(key(t.path, t.fragment)) : undefined;
    if (link.noteref && note) {
      let label = labels.get(note);
      const first = label === undefined;
      if (label === undefined) {
        label = String(labels.size + 1);
        labels.set(note, label);
        markRemoved(removed, note.parent, note.el);
        // The note's own wrapper (li, aside) gives way to the footnote item.
        const unwrap = note.el.tagName === 'li' || note.el.tagName === 'aside';
        items.push(h('li', { id: `fn-${label}` }, unwrap ? note.el.children : [note.el]));
      }
      footnoteReference(link, label, first);
      continue;
    }
    if (link.inNote && t && !('external' in t) && book.noterefKeys.has(key(t.path, t.fragment))) {
      markRemoved(removed, link.parent, link.el);
      continue;
    }
    const href = t && resolveHref(t, book);
    if (href) link.el.properties.href = href;
    else delete link.el.properties.href;
  }
  removeFromParents(removed);
  if (items.length === 0) return undefined;
  for (const section of book.noteSections) {
    if (isLeftover(section.el)) markRemoved(removed, section.parent, section.el);
  }
  removeFromParents(removed);
  return h('section', { dataFootnotes: true }, [h('ol', items)]);
}
