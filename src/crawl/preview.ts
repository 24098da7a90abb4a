import { z } from 'zod';
import type { JsonObject } from '../enrich/json.ts';
import { dataRule, markers, wrap } from '../enrich/llm/prompts.ts';
import type { ChatMessage, LanguageModel } from '../enrich/llm/provider.ts';
import { completeJson } from '../enrich/llm/structured.ts';
import { type CrawlOptions, crawlOptionsSchema } from './crawl-options.ts';

/** The options schema the model answers to, from the schema that checks the answer. */
const answerSchema = (() => {
  const { $schema: _, ...schema } = z.toJSONSchema(crawlOptionsSchema, { io: 'input' }) as JsonObject;
  return schema;
})();

function messages(url: string, prompt: string, site: readonly string[]): ChatMessage[] {
  const m = markers();
  return [
    {
      role: 'system',
      content:
        `You turn a request for a web crawl, written in natural language, into crawler options. ${dataRule(m)} ` +
        'Set only the options the request implies and leave every other one out. includePaths and excludePaths are ' +
        'regular expressions matched against a URL’s pathname (for example "^/blog/.*"); use the site’s URLs to find ' +
        'the paths the request means. maxDiscoveryDepth counts link hops from the start page, limit is the most pages, ' +
        'delay is in seconds. Answer with one JSON object alone, without code fences or prose.',
    },
    {
      role: 'user',
      content:
        `The crawl starts at ${url}.\nThe request: ${prompt}\n` +
        `Answer with one JSON value that matches this JSON Schema:\n${JSON.stringify(answerSchema)}\n` +
        `The site's URLs, from its sitemap and its start page:\n\n${wrap(site.join('\n'), m)}`,
    },
  ];
}

/** Why an answer is not valid crawl options, for the model's one retry. */
function problem(value: unknown): string | undefined {
  const parsed = crawlOptionsSchema.safeParse(value);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => `${i.path.join('.') || 'the answer'}: ${i.message}`).join('; ');
}

/**
 * The crawl options a prompt implies, as the model reads it beside the site's URLs; every option
 * checked against the crawl option schema (a wrong answer is sent back once with what was wrong).
 * Throws ModelError when the model fails or answers wrongly twice.
 */
export async function previewCrawlOptions(
  model: LanguageModel,
  url: string,
  prompt: string,
  site: readonly string[],
  signal: AbortSignal,
): Promise<CrawlOptions> {
  const answer = await completeJson(model, messages(url, prompt, site), answerSchema, problem, signal);
  return crawlOptionsSchema.parse(answer);
}
