import { randomUUID } from 'node:crypto';
import type { FormatId } from '../detect/formats.ts';
import type { LanguageModel } from '../enrich/llm/provider.ts';
import { findPiiWithModel } from '../enrich/model/pii.ts';
import { type EnrichPlan, planEnrichment } from '../enrich/plan.ts';
import { enrichWithModel } from '../enrich/with-model.ts';
import { ApiError, paymentRequired } from '../errors.ts';
import { limits } from '../limits.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ParseOptions, PdfParserOptions } from '../options/parse-options.ts';
import { type CreditHold, type Credits, creditCost } from '../quota/credits.ts';
import type { TeamConcurrency } from '../quota/team-concurrency.ts';
import type { Account } from '../quota/usage.ts';
import type { ModelRedaction } from '../transform/pii/index.ts';
import { piiSettings } from '../transform/pii/settings.ts';
import {
  type EnvelopeMetadata,
  joinAnswer,
  type LateFields,
  noLateFields,
  type WorkerResult,
} from './answer.ts';
import { type Deadline, stopped } from './deadline.ts';
import { detectUpload } from './detect-upload.ts';
import type { PageOrigin } from './parse-document.ts';
import { statedPdfPages } from './pdf-page-count.ts';
import { poolFailure } from './pool-failure.ts';
import { type ConversionRunner, PoolError } from './runner.ts';

/**
 * The conversion both parse and scrape end in: detect the format, wait for a team slot, convert
 * in the worker pool, and join in what a model makes. Scrape only adds where the bytes came from.
 */
/** A document to convert, as an upload or a fetch hands it over. */
export interface UploadedFile {
  bytes: Uint8Array;
  /** The part's filename; "upload" when the client sent none, as upstream does. */
  filename: string;
  /** The part's Content-Type, unless it is the generic application/octet-stream. */
  contentType: string | undefined;
}

export interface ConvertDeps {
  pool: ConversionRunner;
  concurrency: TeamConcurrency;
  /** The configured language model for summary and json; undefined: the offline methods. */
  model: LanguageModel | undefined;
  /** Whose ledger the model's tokens are added to. */
  credits: Credits;
  metrics?: Metrics;
}

/**
 * Who a conversion is for: the team whose slots and credits it takes, the key, where its log
 * lines go, and the audit event it fills in (an HTTP request, or a crawl's page).
 */
export interface Caller {
  team: string;
  keyId: string;
  log: CallerLog;
  audit?: { format?: string | null };
  /** A job's page, which nobody waits on: its conversion yields the CPU to everyone's requests. */
  background?: boolean;
}

/** The part of a logger conversions use (Fastify's request logger has it). */
export interface CallerLog {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Bytes to convert: an upload, or a page fetched from `origin` (scrape). */
export interface ConversionInput {
  file: UploadedFile;
  origin?: PageOrigin;
}

/** A conversion's result, with what its credits are reckoned by. */
interface Converted {
  result: Extract<WorkerResult, { ok: true }>;
  format: FormatId;
}

async function convert(
  deps: ConvertDeps,
  caller: Caller,
  input: ConversionInput,
  options: ParseOptions,
  enrich: EnrichPlan | undefined,
  clock: Deadline,
  piiModel?: ModelRedaction,
  additions: AnswerAdditions = {},
  credit?: CreditHold,
): Promise<Converted> {
  const { format, warnings } = detectUpload(input.file, options, input.origin !== undefined);
  if (caller.audit) caller.audit.format = format;
  const paid = format === 'pdf' && credit ? await payForPages(credit, input, options) : undefined;
  if (paid) options = paid.options;

  try {
    caller.log.debug({ team: caller.team }, 'conversion asks for a team slot');
    // Logged once the team is at its limit: a sign, for the tests, that this request is in line.
    const waits = () => caller.log.debug({ team: caller.team }, 'conversion waits for a team slot');
    // The team's queue being full is answered as it is (429); any other failure as the request's end.
    const lease = await deps.concurrency.acquire(caller.team, clock.signal, waits).catch((error) => {
      throw error instanceof ApiError ? error : stopped(clock);
    });
    try {
      caller.log.debug({ team: caller.team, queue: deps.pool.stats() }, 'conversion submitted');
      const envelope: EnvelopeMetadata = { scrapeId: randomUUID(), concurrencyLimited: lease.limited };
      if (lease.limited) envelope.concurrencyQueueDurationMs = lease.waitedMs;
      if (additions.cacheState) envelope.cacheState = additions.cacheState;
      const result = await measured(
        deps.metrics,
        format,
        deps.pool.run(
          {
            bytes: input.file.bytes,
            filename: input.file.filename,
            contentType: input.file.contentType,
            format,
            options,
            warnings,
            envelope,
            enrich,
            origin: input.origin,
            piiModel,
            paidPages: paid?.pages,
            background: caller.background,
            handBack:
              additions.captures || additions.track
                ? { parts: true, markdown: additions.track !== undefined }
                : undefined,
          },
          { team: caller.team, key: caller.keyId },
          clock.signal,
        ),
      );
      if (!result.ok) throw new ApiError(400, result.code, result.message);
      return { result, format };
    } finally {
      lease.release();
    }
  } catch (error) {
    if (error instanceof PoolError) throw poolFailure(error, clock);
    throw error;
  }
}

/**
 * Hold a PDF's pages before they are read: one credit each, as many as its page tree states
 * (or `maxPages`; without either, up to limits.pdfPagesHeldUnknown), so that racing requests
 * cannot be served more pages than their team's balance pays for. The conversion reads no more
 * pages than were paid; what a settled answer did not use goes back. A team without a balance
 * holds nothing; one whose balance pays for no page gets 402.
 */
async function payForPages(
  credit: CreditHold,
  input: ConversionInput,
  options: ParseOptions,
): Promise<{ pages: number; options: ParseOptions } | undefined> {
  if (!credit.metered) return undefined;
  const parser = options.parsers.find((p): p is PdfParserOptions => p.type === 'pdf');
  const wanted = Math.min(
    parser?.maxPages ?? Number.POSITIVE_INFINITY,
    statedPdfPages(input.file.bytes) ?? limits.pdfPagesHeldUnknown,
  );
  const pages = await credit.extend(wanted);
  if (pages === 0) throw paymentRequired();
  if (parser?.maxPages !== undefined && parser.maxPages <= pages) return undefined;
  const capped = { ...(parser ?? { type: 'pdf' as const, mode: 'auto' as const }), maxPages: pages };
  return {
    pages,
    options: { ...options, parsers: [...options.parsers.filter((p) => p.type !== 'pdf'), capped] },
  };
}

/** A conversion's time, outcome (ok, the refusal's code, or the pool's failure) and pages, in the metrics. */
async function measured(
  metrics: Metrics | undefined,
  format: string,
  run: Promise<WorkerResult>,
): Promise<WorkerResult> {
  const started = performance.now();
  const record = (outcome: string, result?: WorkerResult) =>
    metrics?.conversion(
      format,
      outcome,
      (performance.now() - started) / 1000,
      result?.ok && 'usage' in result ? result.usage : undefined,
    );
  try {
    const result = await run;
    record(result.ok ? 'ok' : result.code, result);
    return result;
  } catch (error) {
    record(error instanceof PoolError ? error.failure.kind : 'error');
    throw error;
  }
}

/**
 * What a way in adds to the conversion's answer beyond parse's: the cache's state (scrape), and
 * fields made in the API process, which the answer module puts in their places.
 */
export interface AnswerAdditions {
  cacheState?: EnvelopeMetadata['cacheState'];
  /** A rendered page's screenshot and actions, published once the conversion has succeeded. */
  captures?: () => Promise<Pick<LateFields['outputs'], 'screenshot' | 'actions'>>;
  /** The branding format's object, read from the rendered page (null, and why, when there was none). */
  branding?: { value: unknown; warning?: string };
  /** Compares the answer's Markdown with the team's earlier scrape of the page (changeTracking). */
  track?: (markdown: string | undefined) => Promise<{ changeTracking?: unknown; warning?: string }>;
}

/**
 * The answer body: as the worker serialised it, or joined with what the API process makes. The
 * model calls run here (they are I/O), after the team's conversion slot is released, within what
 * is left of the request's timeout less a margin, so that a model that runs out of time gives
 * null and a warning rather than a 408.
 */
async function answer(
  model: LanguageModel | undefined,
  result: Extract<WorkerResult, { usage: unknown }>,
  enrich: EnrichPlan | undefined,
  clock: Deadline,
  additions: AnswerAdditions,
): Promise<Buffer> {
  if ('body' in result)
    return Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
  const late = noLateFields();
  if (result.modelInput) {
    if (!model || !enrich) throw new Error('the worker handed back model input, but no model is configured');
    const left = Math.max(1, Math.floor(clock.remaining() - limits.llmAnswerMarginMs));
    const signal = AbortSignal.any([clock.signal, AbortSignal.timeout(left)]);
    const { fields, warnings } = await enrichWithModel(model, result.modelInput, enrich, signal);
    Object.assign(late.outputs, fields);
    late.warnings.push(...warnings);
  }
  if (additions.captures) Object.assign(late.outputs, await additions.captures());
  if (additions.branding) {
    late.trailing.branding = additions.branding.value;
    if (additions.branding.warning) late.warnings.push(additions.branding.warning);
  }
  if (additions.track) {
    const { changeTracking, warning } = await additions.track(result.markdown);
    late.trailing.changeTracking = changeTracking;
    if (warning) late.warnings.push(warning);
  }
  return Buffer.from(joinAnswer(result.parts, late));
}

/**
 * Hold the credits a document costs at least, before its request reads anything (upstream checks
 * credits before the body too); 402 when the team's balance cannot pay.
 */
export async function reserveCredits(credits: Credits, account: Account): Promise<CreditHold> {
  const hold = await credits.reserve(account);
  if (!hold) throw paymentRequired();
  return hold;
}

/**
 * Convert and answer, within `clock`, and charge `credit` what the document cost. The body is
 * serialised by the worker, `creditsUsed` included, and passed on as it is (or joined with the
 * model's fields), never parsed, edited or copied here.
 */
export async function convertToAnswer(
  deps: ConvertDeps,
  caller: Caller,
  input: ConversionInput,
  options: ParseOptions,
  clock: Deadline,
  credit: CreditHold,
  additions: AnswerAdditions = {},
): Promise<Buffer> {
  const model = deps.credits.usage.modelFor(deps.model, caller);
  const enrich = planEnrichment(options, model?.settings);
  const piiModel = await findPiiForAccurate({ ...deps, model }, caller, input, options, clock);
  const { result, format } = await convert(
    deps,
    caller,
    input,
    options,
    enrich,
    clock,
    piiModel,
    additions,
    credit,
  );
  if ('redact' in result) throw new Error('the worker handed back text to redact where an answer was due');
  const body = await answer(model, result, enrich, clock, additions);
  await credit.settle(creditCost(format, result.usage));
  return body;
}

/**
 * `redactPII` mode accurate with a model: a first conversion hands back the document's text, the
 * model reads it here in the API process (no worker waits on it), and the conversion that
 * answers redacts what it found. The model gets the time left less what the first conversion
 * took, since the second takes as long; when it fails or runs out of that time, the aggressive
 * mode runs and the warning says so. Undefined when no model step applies.
 */
async function findPiiForAccurate(
  deps: ConvertDeps,
  caller: Caller,
  input: ConversionInput,
  options: ParseOptions,
  clock: Deadline,
): Promise<ModelRedaction | undefined> {
  const settings = piiSettings(options.redactPII);
  if (settings?.mode !== 'accurate' || !deps.model) return undefined;
  if (options.zeroDataRetention && !deps.model.settings.zeroRetention)
    return {
      stage: 'fallback',
      reason:
        'zero data retention is on and the configured language model is not marked as keeping nothing (QUIRE_LLM_ZERO_RETENTION), so no content was sent to it',
    };
  const started = performance.now();
  const maxChars = deps.model.settings.maxInputTokens * limits.llmCharsPerToken * limits.llmMaxChunks;
  const { result: collected } = await convert(deps, caller, input, options, undefined, clock, {
    stage: 'collect',
    maxChars,
  });
  if (!('redact' in collected)) throw new Error('the worker answered where text to redact was due');
  const { text, textChars } = collected.redact;
  const conversionMs = performance.now() - started;
  const left = Math.max(1, Math.floor(clock.remaining() - conversionMs - limits.llmAnswerMarginMs));
  const signal = AbortSignal.any([clock.signal, AbortSignal.timeout(left)]);
  try {
    const found = await findPiiWithModel(deps.model, text, [...settings.buckets], signal);
    return { stage: 'apply', entities: found.entities, readChars: found.readChars, textChars };
  } catch (error) {
    // The request is over (its client has gone, or its deadline passed): nothing more to do.
    if (clock.signal.aborted) throw stopped(clock);
    const reason = signal.aborted ? 'it did not answer in time' : (error as Error).message;
    return { stage: 'fallback', reason: reason.slice(0, limits.llmErrorChars) };
  }
}
