import { limits } from '../../limits.ts';
import type { Outline } from '../outline.ts';
import { sentences } from '../summary/sentences.ts';
import { bm25 } from './bm25.ts';

/** The best-scoring indices, at most `count`, with a score above zero, in document order. */
function best(scores: number[], count: number): number[] {
  return scores
    .map((score, i) => ({ score, i }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, count)
    .map((s) => s.i)
    .sort((a, b) => a - b);
}

/** The text of a document's headings and blocks of text, for `answerFromSentences`. */
export const outlineTexts = (outline: Outline): string[] =>
  outline.blocks.flatMap((b) => (b.kind === 'text' || b.kind === 'heading' ? [b.text] : []));

/**
 * Without a model, `question`'s answer: the sentences of `texts` that best match the question
 * by BM25 (at most limits.answerSentences), in their order; null when none holds a word of it.
 */
export function answerFromSentences(texts: readonly string[], question: string): string | null {
  const all = texts.flatMap((text) => sentences(text));
  const chosen = best(bm25(all, question), limits.answerSentences);
  return chosen.length > 0 ? chosen.map((i) => all[i]).join(' ') : null;
}

/**
 * The Markdown's passages: blocks between blank lines, a fenced code block kept whole (its
 * blank lines are inside it), so each comes back exactly as it stands in the Markdown.
 */
export function passages(markdown: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence)))
      fence = fence === undefined ? marker : undefined;
    if (line.trim() === '' && fence === undefined) {
      if (current.length > 0) out.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) out.push(current.join('\n'));
  return out;
}

/**
 * Without a model, `highlights`: the Markdown's passages that best match the query by BM25 (at
 * most limits.highlightPassages), verbatim and in the page's order, a blank line between them;
 * null when none holds a word of it.
 */
export function highlightPassages(markdown: string, query: string): string | null {
  const all = passages(markdown);
  const chosen = best(bm25(all, query), limits.highlightPassages);
  return chosen.length > 0 ? chosen.map((i) => all[i]).join('\n\n') : null;
}

/** How the formats that pick passages (`highlights`, and `query` in directQuote mode) name themselves in their warnings. */
export interface PassageAsk {
  label: string;
  noun: string;
  field: string;
  verb: string;
}
export const passageAsks = {
  highlights: { label: 'highlights', noun: 'query', field: 'highlights', verb: 'returned' },
  quote: { label: 'query', noun: 'prompt', field: 'answer', verb: 'quoted' },
} satisfies Record<string, PassageAsk>;
