import fs from 'node:fs';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { repoRoot } from '../corpus.ts';
import type { Tool } from '../peers.ts';

// Mozilla Readability as a Node service would run it: linkedom for the DOM (what Readability's
// README suggests outside the browser, and much faster than jsdom), turndown for the Markdown.

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });

/**
 * linkedom follows the markup, so a page with a second `<body>` (two of the main-content pages)
 * gets two, and `document.body` is the first, often empty one; a browser's parser puts
 * everything into one body. Merge them the browser's way so Readability sees the page.
 */
function mergeBodies(document: ReturnType<typeof parseHTML>['document']): void {
  const bodies = [...document.querySelectorAll('body')];
  const first = bodies[0];
  for (const extra of bodies.slice(1)) {
    while (extra.firstChild) first!.appendChild(extra.firstChild);
    extra.remove();
  }
}

/** The page title as a heading, then the article: what a reader view shows. */
export function readabilityMarkdown(html: string): string {
  const { document } = parseHTML(html);
  mergeBodies(document);
  const article = new Readability(document).parse();
  if (!article?.content) return '';
  const body = turndown.turndown(article.content);
  return article.title ? `# ${article.title}\n\n${body}\n` : `${body}\n`;
}

function packageVersion(name: string): string {
  try {
    const pkg = path.join(repoRoot, 'node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function readabilityVersions(): string {
  return ['@mozilla/readability', 'linkedom', 'turndown'].map((n) => `${n} ${packageVersion(n)}`).join(', ');
}

export const readability: Tool = {
  id: 'readability',
  label: 'Readability',
  how: 'in-process linkedom `parseHTML` (bodies merged as a browser does), `new Readability(document).parse()`, title as `#` heading and `content` through turndown',
  runs: 20,
  warmup: true,
  supports: (format) => format === 'html' || format === 'maincontent',
  convert: async (bytes) => readabilityMarkdown(new TextDecoder().decode(bytes)),
};
