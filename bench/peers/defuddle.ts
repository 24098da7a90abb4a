import { Defuddle } from 'defuddle/node';
import { packageVersion } from '../corpus.ts';
import type { Tool } from '../peers.ts';
import { type PageDocument, parsePage, readerView } from './readability.ts';

// defuddle (Obsidian Web Clipper's extractor) as its README runs it in Node: on a linkedom
// document, Markdown out. Same DOM as the Readability peer, bodies merged alike.

/** What defuddle's own linkedom set-up adds (its utils/linkedom-compat, not exported): APIs it calls that linkedom lacks. */
function withDomShims(document: PageDocument): PageDocument {
  const doc = document as PageDocument & { styleSheets?: unknown[] };
  doc.styleSheets ??= [];
  const view = doc.defaultView as { getComputedStyle?: unknown } | null;
  if (view && !view.getComputedStyle) view.getComputedStyle = () => ({ display: '' });
  return document;
}

/**
 * defuddle reports what it skips on a page (schema.org JSON that does not parse, a relative
 * canonical URL) on the console and goes on; hundreds of stack traces would bury the bench's
 * own log, so the console is muted during its call.
 */
const noisy = ['error', 'warn', 'log'] as const;

async function quietly<T>(f: () => Promise<T>): Promise<T> {
  const saved = noisy.map((m) => console[m]);
  for (const m of noisy) console[m] = () => {};
  try {
    return await f();
  } finally {
    noisy.forEach((m, i) => {
      console[m] = saved[i]!;
    });
  }
}

export async function defuddleMarkdown(html: string): Promise<string> {
  const document = withDomShims(parsePage(html));
  // useAsync false: no fetching from third-party APIs (this bench has no network, nor should a peer).
  const result = await quietly(() => Defuddle(document, undefined, { markdown: true, useAsync: false }));
  return result.content.trim() ? readerView(result.title, result.content) : '';
}

export const defuddle: Tool = {
  id: 'defuddle',
  label: 'defuddle',
  how: `in-process defuddle ${packageVersion('defuddle')} \`Defuddle(document, undefined, { markdown: true, useAsync: false })\` on the same linkedom document (with defuddle's own linkedom shims), title as \`#\` heading`,
  runsIn: 'this process',
  runs: 20,
  warmup: 'jit',
  supports: (format) => format === 'html' || format === 'maincontent',
  convert: async (bytes) => defuddleMarkdown(new TextDecoder().decode(bytes)),
};
