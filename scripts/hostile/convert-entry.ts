import { convertibleFormats } from '../../src/convert/convertible.ts';
import { detectFormat } from '../../src/detect/detect.ts';
import { ApiError } from '../../src/errors.ts';
import { validateParseOptions } from '../../src/options/validate.ts';
import runConversion from '../../src/pipeline/worker.ts';
import type { Outcome, Reply, Request, Upload } from './convert-child.ts';

// The child side of ConvertChild: one upload at a time, as the server handles it up to its answer.

function describe(error: unknown, ms: number): Outcome {
  if (error instanceof ApiError && error.status < 500)
    return { kind: 'refused', ms, status: error.status, code: error.code ?? '', message: error.message };
  const err = error instanceof Error ? error : new Error(String(error));
  return { kind: 'crash', ms, error: `${err.name}: ${err.message}`, stack: err.stack ?? '' };
}

async function convertOnce(upload: Upload): Promise<Outcome> {
  const started = performance.now();
  const ms = () => performance.now() - started;
  try {
    const options = validateParseOptions(upload.options ?? {});
    const bytes = new Uint8Array(upload.bytes);
    const { filename, contentType } = upload;
    const detection = detectFormat({ filename, contentType, bytes }, convertibleFormats(options));
    const result = await runConversion({
      bytes,
      filename,
      contentType,
      format: detection.format,
      options,
      warnings: [],
      envelope: { scrapeId: 'in-process', concurrencyLimited: false },
    });
    if (!result.ok)
      return { kind: 'refused', ms: ms(), status: 400, code: result.code, message: result.message };
    // Without an enrich plan the worker always answers with the whole body.
    if (!('body' in result))
      throw new Error('the worker asked for model calls, which this harness does not make');
    // The body the server would send as it is; `warning` sits at the top of its `data`.
    const answer = JSON.parse(Buffer.from(result.body).toString('utf8')) as { data: { warning?: string } };
    return {
      kind: 'ok',
      ms: ms(),
      jsonBytes: result.body.byteLength,
      warning: answer.data.warning !== undefined,
    };
  } catch (error) {
    return describe(error, ms());
  }
}

const send = (reply: Reply) => process.send!(reply);
process.on('message', (request: Request) => {
  void convertOnce(request.upload).then((outcome) => send({ id: request.id, outcome }));
});
send({ ready: true });
