import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { UploadHold } from '../quota/upload-budget.ts';
import { fetchBusy, pageTooLarge, siteError } from './fetch-errors.ts';

/** Content codings Quire decodes, and so asks for. */
export const acceptEncoding = 'gzip, deflate, br, zstd';

// Flushing at the end rather than failing lets a body cut short still give what arrived, as
// browsers show a truncated page.
const zlibEnd = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const decoders: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: () => zlib.createGunzip(zlibEnd),
  'x-gzip': () => zlib.createGunzip(zlibEnd),
  deflate: () => zlib.createInflate(zlibEnd),
  br: () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
  zstd: () => zlib.createZstdDecompress(),
};

/** The decoders for a Content-Encoding, last-applied first (`gzip, br` was gzipped, then brotli'd). */
function decodersFor(url: string, header: string | undefined): NodeJS.ReadWriteStream[] {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  return codings.reverse().map((coding) => {
    const make = decoders[coding];
    if (!make)
      throw siteError(url, `the server sent the page in an encoding Quire did not ask for ("${coding}")`);
    return make();
  });
}

/**
 * The answer's body, decoded, counted as it arrives: past `limits.scrapeBodyBytes` (decoded, so a
 * compression bomb stops there too) or the team's share of held bytes, the connection is cut and
 * nothing more is read. Every byte kept is taken from `hold` until the answer is sent.
 */
export async function readBody(
  response: IncomingMessage,
  url: string,
  hold: UploadHold,
  signal: AbortSignal,
): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (declared > limits.scrapeBodyBytes) {
    response.on('error', () => {});
    response.destroy();
    throw pageTooLarge(url);
  }
  const stages = decodersFor(url, response.headers['content-encoding']);
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limits.scrapeBodyBytes) return done(pageTooLarge(url));
      const full = hold.take(chunk.length);
      if (full) return done(fetchBusy(full));
      chunks.push(chunk);
      done();
    },
  });
  // A decoder's own failure means the bytes were not what their encoding says.
  let damaged = false;
  for (const stage of stages) stage.once('error', () => (damaged = true));
  try {
    await pipeline([response, ...stages, collect], { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ApiError) throw error;
    if (damaged) throw siteError(url, `the page's compressed body is damaged (${(error as Error).message})`);
    throw error;
  }
  return Buffer.concat(chunks, size);
}
