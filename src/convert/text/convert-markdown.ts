import type { Nodes as HastNodes } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { toString as hastText } from 'hast-util-to-string';
import type { Root as MdastRoot } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toHast } from 'mdast-util-to-hast';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import type { DocumentMetadata } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { htmlToTree } from '../html/convert-html.ts';
import { decodeUpload } from './decode-upload.ts';

/**
 * Markdown → the document model, so it comes back normalised by the same renderer as every
 * other format (one heading style, one list marker, GFM tables), and `html`, `links` and
 * `images` work on it. Parsed as CommonMark with GFM (tables, task lists, footnotes,
 * strikethrough, autolinks). Inline and block HTML is read as the HTML path reads a page
 * (scripts and styles dropped, URLs made absolute), which is why the tree goes through HTML.
 * YAML front matter stays, as a `yaml` code block; its `title` names the document.
 */
export const convertMarkdown: Converter = (input) => {
  const { text, contentType } = decodeUpload(input.bytes, 'text/markdown');
  checkMarkdownShape(text);
  const mdast = fromMarkdown(text, {
    extensions: [gfm(), frontmatter()],
    mdastExtensions: [gfmFromMarkdown(), frontmatterFromMarkdown()],
  });
  const metadata: DocumentMetadata = {};
  const title = frontMatterTitle(mdast);
  frontMatterAsCode(mdast);
  const hast = toHast(mdast, { allowDangerousHtml: true, clobberPrefix: '' });
  const html = toHtml(footnotesAsModel(hast), { allowDangerousHtml: true });
  const { tree, baseUrl } = htmlToTree(html, input.url);
  const h1 = tree.children.find((n) => n.type === 'element' && n.tagName === 'h1');
  const heading = h1 ? hastText(h1).trim() : '';
  if (title || heading) metadata.title = title || heading;
  return { kind: 'document', tree, metadata, contentType, baseUrl, warnings: [] };
};

/**
 * GFM footnotes in the document model's shape (`fn-L`, `fnref-L`, one section of notes), as
 * every converter makes them: the screen-reader heading and the back links go.
 */
function footnotesAsModel(node: HastNodes): HastNodes {
  if (!('children' in node)) return node;
  node.children = node.children.filter(
    (child) =>
      !(
        child.type === 'element' &&
        (child.properties.dataFootnoteBackref !== undefined || child.properties.id === 'footnote-label')
      ),
  ) as typeof node.children;
  for (const child of node.children) footnotesAsModel(child);
  return node;
}

/** `title:` of the front matter, unquoted. */
function frontMatterTitle(mdast: MdastRoot): string | undefined {
  const first = mdast.children[0];
  if (first?.type !== 'yaml') return undefined;
  const m = /^title\s*:\s*(.+)$/m.exec(first.value);
  return m?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2') || undefined;
}

/** Front matter is data about the file: kept, but as a fenced block, not as text. */
function frontMatterAsCode(mdast: MdastRoot): void {
  mdast.children = mdast.children.map((node) =>
    node.type === 'yaml' ? { type: 'code', lang: 'yaml', value: node.value, position: node.position } : node,
  );
}

const QUOTE_PREFIX = /^(?:[ \t]{0,3}>)+/gm;
const DEFINITION = /^ {0,3}\[[^\]\n]{1,999}\]:/gm;

/**
 * Refuses Markdown whose shape would cost micromark time with the square of its size (see
 * limits.markdownQuoteDepth and markdownDefinitions), before it is parsed: one linear scan.
 */
function checkMarkdownShape(text: string): void {
  for (const m of text.matchAll(QUOTE_PREFIX)) {
    let depth = 0;
    for (const c of m[0]) if (c === '>') depth++;
    if (depth > limits.markdownQuoteDepth)
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The Markdown nests block quotes ${depth} deep; at most ${limits.markdownQuoteDepth} are read.`,
      );
  }
  let definitions = 0;
  for (const _ of text.matchAll(DEFINITION)) {
    if (++definitions > limits.markdownDefinitions)
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The Markdown has more than ${limits.markdownDefinitions} link reference definitions, more than Quire reads.`,
      );
  }
}
