import type { Root } from 'hast';
import type { Image, Root as MdastRoot, RootContent, Text } from 'mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import type { Handle, Info, Options, State, Unsafe } from 'mdast-util-to-markdown';
import { defaultHandlers, toMarkdown } from 'mdast-util-to-markdown';
import { dataTableToMarkdown } from './data-table.ts';
import { fastBlock, holdsPhrasing } from './fast-markdown.ts';
import { installFastSafe } from './fast-safe.ts';
import { hastToMdast } from './hast-to-mdast.ts';
import { tidyMdast } from './mdast-tidy.ts';
import { REMOVED_IMAGE_URL } from './model-to-mdast.ts';
import { segments } from './segments.ts';
import type { TableOptions } from './table-to-mdast.ts';

export interface MarkdownOptions {
  /** Inline (data:) images become `![alt](<Base64-Image-Removed>)`. */
  removeBase64Images: boolean;
  /** Where the tree comes from, which decides how tables GFM cannot hold come out. */
  source: 'web' | 'document';
}

/**
 * A web page's tables are judged layout (unwrapped into their content) or data, and a reader
 * expects merged cells repeated; a document's tables are data, kept whole as HTML when GFM
 * cannot hold them (see TableOptions).
 */
const TABLES: Record<MarkdownOptions['source'], Omit<TableOptions, 'removeBase64Images'>> = {
  web: { layout: 'judge', nested: 'inline', merged: 'repeat' },
  document: { layout: 'none', nested: 'html', merged: 'html' },
};

/**
 * GFM without the autolink-literal escapes: those put a backslash into every `www.` and
 * `user@host` of the text, and an autolinked plain URL is harmless.
 */
function gfmExtension(): Options {
  const gfm = gfmToMarkdown({ tablePipeAlign: false });
  const extensions = (gfm.extensions ?? []).map((ext) => ({
    ...ext,
    unsafe: ext.unsafe?.filter(
      (u: Unsafe) => !(u.before && '@.:'.includes(u.character) && u.inConstruct === 'phrasing'),
    ),
  }));
  return { extensions };
}

/**
 * Backslashes the default escaping adds where CommonMark needs none: `_` inside a word or
 * between spaces, `*` between spaces, and a bracket pair that cannot form a link (we write no
 * link definitions).
 */
function relaxEscapes(value: string, after: string): string {
  let out = value;
  if (out.includes('\\_'))
    out = out.replace(/(?<=[\p{L}\p{N}])\\_(?=[\p{L}\p{N}])|(?<=[ \t])\\_(?=[ \t])/gu, '_');
  if (out.includes('\\*')) out = out.replace(/(?<=[ \t])\\\*(?=[ \t])/g, '*');
  // `<` before a name reads as a tag to HTML-aware readers even when escaped; a character
  // reference keeps the text literal for every reader.
  if (out.includes('\\<')) out = out.replace(/\\<(?=[A-Za-z/!?])/g, '&lt;');
  if (out.includes('\\[')) {
    out = out.replace(/\\\[([^[\]\\]*)\\?\](.?)/g, (match, inner: string, next: string, offset: number) => {
      const following = next || (offset + match.length >= out.length ? after.charAt(0) : '');
      return following === '(' || following === '[' || following === ':' ? match : `[${inner}]${next}`;
    });
  }
  return out;
}

/**
 * The default escapes `&` before any letter; only `&name;` and `&#...;` are character
 * references, so `?a=1&b=2` in a URL and `AT&T` in text can stay as they are.
 */
const AMPERSAND: Unsafe = {
  character: '&',
  after: '(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);',
  inConstruct: [
    'codeFencedLangGraveAccent',
    'codeFencedLangTilde',
    'codeFencedMetaGraveAccent',
    'codeFencedMetaTilde',
    'destinationLiteral',
    'destinationRaw',
    'phrasing',
    'titleApostrophe',
    'titleQuote',
  ],
};

function relaxAmpersand(state: State): void {
  state.unsafe = state.unsafe.map((u) => (u.character === '&' && u.after === '[#A-Za-z]' ? AMPERSAND : u));
}

const root: Handle = (node: MdastRoot, parent, state: State, info: Info) => {
  relaxAmpersand(state);
  installFastSafe(state);
  return defaultHandlers.root(node, parent, state, info);
};

const text: Handle = (node: Text, parent, state: State, info: Info) =>
  relaxEscapes(defaultHandlers.text(node, parent, state, info), info.after);

const image: Handle = (node: Image, parent, state: State, info: Info) => {
  if (node.url !== REMOVED_IMAGE_URL) return defaultHandlers.image(node, parent, state, info);
  const exit = state.enter('image');
  const sub = state.enter('label');
  const alt = state.safe(node.alt ?? '', { before: '[', after: ']' });
  sub();
  exit();
  return `![${alt}](<Base64-Image-Removed>)`;
};

const toMarkdownOptions: Options = {
  bullet: '-',
  emphasis: '*',
  strong: '*',
  fence: '`',
  fences: true,
  listItemIndent: 'one',
  rule: '-',
  handlers: { root, text, image },
  extensions: [gfmExtension()],
};

/** Trailing spaces and runs of blank lines go, except inside fenced code. */
function tidy(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  let blank = 0;
  for (const line of lines) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      out.push(line);
      if (m && m[1]!.startsWith(fence) && line.trim() === m[1]) fence = undefined;
      continue;
    }
    if (m) fence = m[1];
    const trimmed = line.replace(/[ \t]+$/, '');
    if (trimmed === '') {
      if (++blank > 1) continue;
    } else blank = 0;
    out.push(trimmed);
  }
  return out.join('\n').replace(/^\n+|\n+$/g, '');
}

/**
 * The serializer's Markdown for the tree, with the blocks fast-markdown.ts can write taken
 * out of its hands: runs of the other blocks go through it together, and every piece is
 * joined by the blank line it would have put between them.
 */
function mdastToMarkdown(tree: MdastRoot): string {
  tidyMdast(tree);
  if (holdsPhrasing(tree)) return tidy(toMarkdown(tree, toMarkdownOptions));
  const parts: string[] = [];
  let rest: RootContent[] = [];
  const flush = (): void => {
    if (rest.length === 0) return;
    parts.push(toMarkdown({ type: 'root', children: rest }, toMarkdownOptions));
    rest = [];
  };
  const children = tree.children;
  for (let i = 0; i < children.length; i++) {
    const fast = fastBlock(children[i]!, children[i - 1], children[i + 1]);
    if (fast === undefined) rest.push(children[i]!);
    else {
      flush();
      parts.push(fast);
    }
  }
  flush();
  return tidy(parts.join('\n\n'));
}

/** The tree as GitHub-flavoured Markdown; `dataTable` nodes stream through their own renderer. */
export function renderMarkdown(tree: Root, opts: MarkdownOptions): string {
  const options = { ...TABLES[opts.source], removeBase64Images: opts.removeBase64Images };
  const parts: string[] = [];
  for (const segment of segments(tree)) {
    const markdown =
      segment.kind === 'dataTable'
        ? dataTableToMarkdown(segment.table)
        : mdastToMarkdown(hastToMdast(segment.root, options));
    if (/\S/.test(markdown)) parts.push(markdown);
  }
  return parts.join('\n\n');
}
