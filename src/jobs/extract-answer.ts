import { isJsonObject, type JsonValue } from '../enrich/json.ts';
import { limits } from '../limits.ts';
import { mergePages, type PageValue } from './extract-merge.ts';
import type { ExtractSpec } from './extract-request.ts';
import type { JobStore } from './job-store.ts';

/** What an ended extract keeps as its result (the job's `result` column, JSON text). */
export interface ExtractResult {
  data: JsonValue;
  /** Present when the request asked for sources. */
  sources?: Record<string, string[]>;
  warnings: string[];
}

/** Page errors an extract's warnings name; the rest are counted. */
const NAMED_ERRORS = 5;

/** The value a page's data object gives the merge, by how the extract read it. */
function pageValue(document: Record<string, unknown>, spec: ExtractSpec): JsonValue {
  if (spec.reading === 'question') {
    const answer = document.answer;
    return typeof answer === 'string' && answer ? { answers: [answer] } : null;
  }
  return (document.json ?? null) as JsonValue;
}

/**
 * An ended extract's answer: every page's value merged (extract-merge.ts), in the order the
 * caller listed the pages (pages a `/*` URL found after them, in the order they were read), and
 * warnings that say what the answer is made of and which pages it lacks. Undefined when no page
 * could be read: the job failed, and the reason is the first page's error.
 */
export async function extractAnswer(
  jobs: JobStore,
  jobId: string,
  spec: ExtractSpec,
): Promise<{ result: ExtractResult } | { error: string }> {
  const counts = await jobs.pageCounts(jobId);
  const documents = await jobs.readDocuments(jobId, 0, counts.done);
  const { errors } = await jobs.readErrors(jobId);
  const rank = (url: string) => {
    const at = spec.urls.indexOf(url);
    return at < 0 ? spec.urls.length : at;
  };
  const pages: (PageValue & { rank: number; warning: unknown })[] = [];
  for (const bytes of documents) {
    const document = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    const metadata = isJsonObject(document.metadata as JsonValue)
      ? (document.metadata as Record<string, unknown>)
      : {};
    const url = String(metadata.sourceURL ?? metadata.url ?? '');
    pages.push({ url, value: pageValue(document, spec), rank: rank(url), warning: document.warning });
  }
  if (pages.length === 0) {
    const first = errors[0];
    return {
      error: first
        ? `No page could be read: ${first.url}: ${first.error}`
        : 'No page could be read: the extract ended before any was.',
    };
  }
  // A stable sort: pages of equal rank stay in the order they were read.
  pages.sort((a, b) => a.rank - b.rank);
  const merged = mergePages(pages);
  const warnings: string[] = [];
  if (spec.reading === 'question')
    warnings.push(
      'Without a language model or a schema, each page gives the sentences that best answer the prompt (ranked by BM25), listed under data.answers; a schema gives field values.',
    );
  const pageWarnings = new Set(
    pages.flatMap((p) => (typeof p.warning === 'string' && p.warning ? [p.warning] : [])),
  );
  for (const w of pageWarnings) warnings.push(`Pages said: ${w}`);
  if (merged.conflicts > 0)
    warnings.push(
      `${merged.conflicts} field${merged.conflicts > 1 ? 's' : ''} had different values on different pages: the value of the page listed first was kept.`,
    );
  if (errors.length > 0) {
    const named = errors.slice(0, NAMED_ERRORS).map((e) => `${e.url} (${e.error})`);
    const rest = errors.length - named.length;
    warnings.push(
      `${errors.length} page${errors.length > 1 ? 's' : ''} could not be read: ${named.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}.`,
    );
  }
  if (counts.skipped > 0)
    warnings.push(
      `${counts.skipped} page${counts.skipped > 1 ? 's were' : ' was'} not read: ${
        errors.some((e) => e.code === 'INSUFFICIENT_CREDITS')
          ? "the team's credits ran out"
          : "the extract's timeout ended it first"
      }.`,
    );
  const result: ExtractResult = {
    data: merged.data,
    warnings: warnings.map((w) => w.slice(0, limits.extractWarningChars)),
  };
  if (spec.showSources) result.sources = merged.sources;
  return { result };
}
