import type { Root } from 'hast';
import type { DocumentMetadata } from '../document/model.ts';
import { extractBySchema } from './extract/extract.ts';
import type { JsonValue } from './json.ts';
import { type Outline, outline } from './outline.ts';
import { type EnrichPlan, offlineCause } from './plan.ts';
import {
  answerFromSentences,
  highlightPassages,
  outlineTexts,
  type PassageAsk,
  passageAsks,
} from './query/offline.ts';
import { extractiveSummary } from './summary/extractive.ts';

/**
 * The enrich step's part in the conversion worker, where the document is: the offline methods
 * run here on the tree (CPU work, bounded), and for a model the Markdown it reads is cut to the
 * model's budget and handed back, so the API process makes only the calls.
 */
export interface ModelInput {
  markdown: string;
  /** Characters of the document's Markdown, when longer than `markdown` (cut to the model's budget). */
  cutFrom: number | undefined;
}

export interface Enriched {
  summary?: string | null;
  json?: JsonValue | null;
  /** The `question` format's. */
  answer?: string | null;
  highlights?: string | null;
}

export interface WorkerEnrichment {
  outputs: Enriched;
  warnings: string[];
  modelInput: ModelInput | undefined;
}

/** Cut at the last paragraph break within `max` characters (or at `max` when there is none near). */
function cut(markdown: string, max: number): ModelInput {
  if (markdown.length <= max) return { markdown, cutFrom: undefined };
  const paragraph = markdown.lastIndexOf('\n\n', max);
  return { markdown: markdown.slice(0, paragraph > max / 2 ? paragraph : max), cutFrom: markdown.length };
}

function offlineSummary(doc: Outline, plan: EnrichPlan, warnings: string[]): string | null {
  const summary = extractiveSummary(doc);
  if (!summary) {
    warnings.push('summary: the document has no text to summarise; summary is null.');
    return null;
  }
  warnings.push(
    `summary: ${offlineCause(plan)}; an extractive summary of the document's own sentences was returned.`,
  );
  return summary;
}

function offlineJson(
  doc: Outline,
  json: NonNullable<EnrichPlan['json']>,
  metadata: DocumentMetadata,
  plan: EnrichPlan,
  warnings: string[],
): JsonValue | null {
  const cause = offlineCause(plan);
  if (!json.schema) {
    warnings.push(
      `json: ${cause}, and a prompt without a schema needs one; json is null. With a schema, values are extracted from the document's own labels and tables.`,
    );
    return null;
  }
  const value = extractBySchema(json.schema, doc, metadata);
  if (value === undefined) {
    warnings.push(
      `json: ${cause}, and the offline extraction fills only a schema whose root is an object or an array of objects; json is null.`,
    );
    return null;
  }
  warnings.push(
    `json: ${cause}; values were extracted by the schema from the document's own labels, tables and sections, and properties it does not state are left out.`,
  );
  return value;
}

export function enrichInWorker(
  plan: EnrichPlan,
  tree: Root,
  metadata: DocumentMetadata,
  markdown: () => string,
): WorkerEnrichment {
  const warnings: string[] = [];
  if (plan.method === 'model')
    return { outputs: {}, warnings, modelInput: cut(markdown(), plan.modelInputChars) };
  const doc = outline(tree);
  const outputs: Enriched = {};
  if (plan.summary) outputs.summary = offlineSummary(doc, plan, warnings);
  if (plan.json) outputs.json = offlineJson(doc, plan.json, metadata, plan, warnings);
  if (plan.question !== undefined) {
    outputs.answer = answerFromSentences(outlineTexts(doc), plan.question);
    warnings.push(
      outputs.answer === null
        ? `question: ${offlineCause(plan)}, and no sentence of the page holds a word of the question; answer is null.`
        : `question: ${offlineCause(plan)}; the answer is the page's sentences that best match the question (ranked by BM25), not a written answer.`,
    );
  }
  const pick = (ask: PassageAsk, query: string) => {
    const found = highlightPassages(markdown(), query);
    warnings.push(
      found === null
        ? `${ask.label}: ${offlineCause(plan)}, and no passage of the page holds a word of the ${ask.noun}; ${ask.field} is null.`
        : `${ask.label}: ${offlineCause(plan)}; the passages that best match the ${ask.noun} (ranked by BM25) were ${ask.verb}.`,
    );
    return found;
  };
  if (plan.highlights !== undefined) outputs.highlights = pick(passageAsks.highlights, plan.highlights);
  if (plan.quote !== undefined) outputs.answer = pick(passageAsks.quote, plan.quote);
  if (doc.truncated)
    warnings.push('The document is longer than the offline summary and json read; they cover its start.');
  return { outputs, warnings, modelInput: undefined };
}
