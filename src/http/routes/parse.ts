import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { convertibleFormats } from '../../convert/index.ts';
import { detectFormat } from '../../detect/detect.ts';
import { formatInfo } from '../../detect/formats.ts';
import type { LanguageModel } from '../../enrich/llm/provider.ts';
import { type EnrichPlan, planEnrichment } from '../../enrich/plan.ts';
import { enrichWithModel } from '../../enrich/with-model.ts';
import { limits } from '../../limits.ts';
import type { ParseOptions } from '../../options/parse-options.ts';
import { validateParseOptions } from '../../options/validate.ts';
import { type EnvelopeMetadata, joinAnswer, type WorkerResult } from '../../pipeline/worker.ts';
import { type ConversionPool, PoolError } from '../../pipeline/worker-pool.ts';
import type { TeamConcurrency } from '../../quota/team-concurrency.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import { ApiError, badRequest, tooDeep } from '../errors.ts';
import { jsonDepth } from '../json-depth.ts';
import { type ParseUpload, readParseUpload } from '../multipart.ts';

export interface ParseRouteDeps {
  pool: ConversionPool;
  concurrency: TeamConcurrency;
  uploads: UploadBudget;
  /** The configured language model for summary and json; undefined: the offline methods. */
  model: LanguageModel | undefined;
}

function parseOptionsField(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  if (jsonDepth(text, limits.jsonDepth) > limits.jsonDepth) throw tooDeep("The 'options' field");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`Invalid JSON in the 'options' field: ${(error as Error).message}`);
  }
}

const timeoutError = (ms: number) =>
  new ApiError(408, 'SCRAPE_TIMEOUT', `The parse did not finish within its timeout of ${ms} ms.`);

/**
 * Cancel the work when the deadline passes or the client goes away, whichever comes first.
 * Time spent waiting for a slot or a worker counts, as the contract's timeout does.
 */
interface Deadline {
  signal: AbortSignal;
  /** Milliseconds left before the deadline. */
  remaining: () => number;
  done: () => void;
}

function deadline(request: FastifyRequest, ms: number): Deadline {
  const controller = new AbortController();
  const ends = performance.now() + ms;
  const timer = setTimeout(() => controller.abort(timeoutError(ms)), ms);
  // Until we answer, a closed socket means the client has gone and the work is wasted.
  const onClose = () => controller.abort(new Error('client gone'));
  request.raw.socket.once('close', onClose);
  return {
    signal: controller.signal,
    remaining: () => ends - performance.now(),
    done: () => {
      clearTimeout(timer);
      request.raw.socket.off('close', onClose);
    },
  };
}

const refusalStatus = 400;

async function convert(
  deps: ParseRouteDeps,
  request: FastifyRequest,
  upload: ParseUpload,
  options: ParseOptions,
  enrich: EnrichPlan | undefined,
  signal: AbortSignal,
): Promise<Extract<WorkerResult, { ok: true }>> {
  const detection = detectFormat(upload.file, convertibleFormats(options));
  const warnings: string[] = [];
  if (detection.relabelled) {
    warnings.push(
      `The upload was named as ${formatInfo(detection.relabelled.claimed).label} but its bytes are ${formatInfo(detection.format).label}; it was parsed as ${formatInfo(detection.format).label}.`,
    );
  }
  if (request.audit) request.audit.format = detection.format;

  const principal = request.principal!;
  try {
    // Logged before the slot is asked for, so that a request seen here is in line if it must wait.
    request.log.debug({ team: principal.team }, 'conversion asks for a team slot');
    const lease = await deps.concurrency.acquire(principal.team, signal).catch(() => {
      throw signal.reason instanceof ApiError ? signal.reason : timeoutError(options.timeout);
    });
    try {
      request.log.debug({ team: principal.team, queue: deps.pool.stats() }, 'conversion submitted');
      const envelope: EnvelopeMetadata = { scrapeId: randomUUID(), concurrencyLimited: lease.limited };
      if (lease.limited) envelope.concurrencyQueueDurationMs = lease.waitedMs;
      const result = await deps.pool.run(
        {
          bytes: upload.file.bytes,
          filename: upload.file.filename,
          contentType: upload.file.contentType,
          format: detection.format,
          options,
          warnings,
          envelope,
          enrich,
        },
        { team: principal.team, key: principal.keyId },
        signal,
      );
      if (!result.ok) throw new ApiError(refusalStatus, result.code, result.message);
      return result;
    } finally {
      lease.release();
    }
  } catch (error) {
    if (error instanceof PoolError) throw poolFailure(error, options.timeout, signal);
    throw error;
  }
}

/**
 * The answer body: as the worker serialised it, or with summary and json from the model spliced
 * in. The model calls run here, in the API process (they are I/O), after the team's conversion
 * slot is released, within what is left of the request's timeout less a margin, so that a model
 * that runs out of time gives null and a warning rather than a 408.
 */
async function answer(
  model: LanguageModel | undefined,
  result: Extract<WorkerResult, { ok: true }>,
  enrich: EnrichPlan | undefined,
  clock: Deadline,
): Promise<string> {
  if ('body' in result) return result.body;
  if (!model || !enrich) throw new Error('the worker handed back model input, but no model is configured');
  const left = Math.max(1, Math.floor(clock.remaining() - limits.llmAnswerMarginMs));
  const signal = AbortSignal.any([clock.signal, AbortSignal.timeout(left)]);
  const { fields, warnings } = await enrichWithModel(model, result.modelInput, enrich, signal);
  return joinAnswer(result.parts, fields, warnings);
}

function poolFailure(error: PoolError, timeoutMs: number, signal: AbortSignal): Error {
  switch (error.failure.kind) {
    case 'aborted':
      return signal.reason instanceof ApiError ? signal.reason : timeoutError(timeoutMs);
    case 'queue-full':
      return new ApiError(
        429,
        undefined,
        'Too many documents are waiting for conversion. Please retry later.',
        {
          headers: { 'retry-after': '5' },
        },
      );
    case 'worker-died':
      return new ApiError(
        refusalStatus,
        'RESOURCE_LIMIT',
        'The document needs more memory to convert than one conversion may use, or its conversion crashed.',
      );
    case 'crashed':
      return error.failure.error;
  }
}

export async function parseRoutes(app: FastifyInstance, deps: ParseRouteDeps): Promise<void> {
  // The body is read by the handler as a stream, whatever its content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.post('/v2/parse', async (request, reply) => {
    // The upload's bytes count against the node's and the team's budget until the answer is sent.
    const hold = deps.uploads.open(request.principal!.team);
    reply.raw.once('close', hold.releaseAll);
    const upload = await readParseUpload(request.raw, hold);
    const options = validateParseOptions(parseOptionsField(upload.options));
    request.audit = {
      username: options.auditMetadata?.username ?? null,
      zeroDataRetention: options.zeroDataRetention,
      // Under zero data retention even the file's name stays out of the audit log.
      filename: options.zeroDataRetention ? null : upload.file.filename,
      bytes: upload.file.bytes.length,
    };
    const enrich = planEnrichment(options, deps.model?.settings);
    const clock = deadline(request, options.timeout);
    let body: string;
    try {
      // Serialised by the worker: passed on as it is (or joined with the model's fields), never
      // parsed or re-encoded here.
      body = await answer(
        deps.model,
        await convert(deps, request, upload, options, enrich, clock.signal),
        enrich,
        clock,
      );
    } finally {
      clock.done();
    }
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    return body;
  });
}
