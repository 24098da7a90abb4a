import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { packageVersion } from '../corpus.ts';
import type { Tool } from '../peers.ts';

// Mozilla Readability as a Node service would run it: linkedom for the DOM (what Readability's
// README suggests outside the browser, and much faster than jsdom), turndown for the Markdown.

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });

export type PageDocument = ReturnType<typeof parseHTML>['document'];

/**
 * The page in linkedom, as the main-content peers see it. linkedom follows the markup, so a
 * page with a second `<body>` (two of the main-content pages) gets two, and `document.body` is
 * the first, often empty one; a browser's parser puts everything into one body. Merge them the
 * browser's way so the extractor sees the page.
 */
export function parsePage(html: string): PageDocument {
  const { document } = parseHTML(html);
  const bodies = [...document.querySelectorAll('body')];
  const first = bodies[0];
  for (const extra of bodies.slice(1)) {
    while (extra.firstChild) first!.appendChild(extra.firstChild);
    extra.remove();
  }
  return document;
}

/** The page title as a heading, then the article: what a reader view shows. */
export function readerView(title: string | null | undefined, body: string): string {
  return title ? `# ${title}\n\n${body}\n` : `${body}\n`;
}

export function readabilityMarkdown(html: string): string {
  const article = new Readability(parsePage(html)).parse();
  if (!article?.content) return '';
  return readerView(article.title, turndown.turndown(article.content));
}

export function readabilityVersions(): string {
  return ['@mozilla/readability', 'linkedom', 'turndown'].map((n) => `${n} ${packageVersion(n)}`).join(', ');
}

export const readability: Tool = {
  id: 'readability',
  label: 'Readability',
  how: 'in-process linkedom `parseHTML` (bodies merged as a browser does), `new Readability(document).parse()`, title as `#` heading and `content` through turndown',
  runsIn: 'this process',
  runs: 20,
  warmup: 'jit',
  supports: (format) => format === 'html' || format === 'maincontent',
  convert: async (bytes) => readabilityMarkdown(new TextDecoder().decode(bytes)),
};
