import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { convertibleFormats } from '../../convert/index.ts';
import { detectFormat } from '../../detect/detect.ts';
import { formatInfo } from '../../detect/formats.ts';
import { limits } from '../../limits.ts';
import type { ParseOptions } from '../../options/parse-options.ts';
import { validateParseOptions } from '../../options/validate.ts';
import type { EnvelopeMetadata } from '../../pipeline/worker.ts';
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
function deadline(request: FastifyRequest, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutError(ms)), ms);
  // Until we answer, a closed socket means the client has gone and the work is wasted.
  const onClose = () => controller.abort(new Error('client gone'));
  request.raw.socket.once('close', onClose);
  return {
    signal: controller.signal,
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
): Promise<string> {
  const detection = detectFormat(upload.file, convertibleFormats(options));
  const warnings: string[] = [];
  if (detection.relabelled) {
    warnings.push(
      `The upload was named as ${formatInfo(detection.relabelled.claimed).label} but its bytes are ${formatInfo(detection.format).label}; it was parsed as ${formatInfo(detection.format).label}.`,
    );
  }
  if (request.audit) request.audit.format = detection.format;

  const { signal, done } = deadline(request, options.timeout);
  const principal = request.principal!;
  try {
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
        },
        { team: principal.team, key: principal.keyId },
        signal,
      );
      if (!result.ok) throw new ApiError(refusalStatus, result.code, result.message);
      return result.body;
    } finally {
      lease.release();
    }
  } catch (error) {
    if (error instanceof PoolError) throw poolFailure(error, options.timeout, signal);
    throw error;
  } finally {
    done();
  }
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
    // Serialised by the worker: passed on as it is, never parsed or re-encoded here.
    const body = await convert(deps, request, upload, options);
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    return body;
  });
}
