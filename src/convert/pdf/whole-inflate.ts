import zlib from 'node:zlib';
import { limits } from '../../limits.ts';

// A stream cut short still gives what it holds, as pdf.js's own inflater does.
const options = { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: limits.pdfStreamInflatedBytes };
const INFLATE: Record<string, (data: Buffer) => Buffer> = {
  deflate: (data) => zlib.inflateSync(data, options),
  'deflate-raw': (data) => zlib.inflateRawSync(data, options),
  gzip: (data) => zlib.gunzipSync(data, options),
  brotli: (data) => zlib.brotliDecompressSync(data, { maxOutputLength: limits.pdfStreamInflatedBytes }),
};

let oversized = 0;

/** Streams of this thread left out so far for inflating past limits.pdfStreamInflatedBytes. */
export function oversizedStreams(): number {
  return oversized;
}

function inflateCapped(inflate: (data: Buffer) => Buffer, data: Buffer): Uint8Array {
  try {
    return inflate(data);
  } catch (err) {
    // Erroring would send pdf.js to its own inflater, which has no cap: the stream reads as
    // empty instead, and the conversion says so.
    if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw err;
    oversized++;
    return new Uint8Array(0);
  }
}

/**
 * A DecompressionStream that inflates once, when its input ends. pdf.js inflates every
 * Flate and Brotli stream through the global DecompressionStream, writing each stream whole
 * and reading to the end; Node's own runs zlib asynchronously in small chunks through web
 * streams, which costs several times the inflating itself (on the 352-page book, ~60 ms of
 * CPU per conversion against ~13 ms). Data that cannot be inflated errors the stream, and
 * pdf.js then falls back to its own inflater, as it does with Node's; a stream that would
 * inflate past limits.pdfStreamInflatedBytes reads as empty.
 */
class WholeInflate extends TransformStream<Uint8Array, Uint8Array> {
  constructor(format: string) {
    const inflate = INFLATE[format];
    if (!inflate) throw new TypeError(`Unsupported compression format: ${format}`);
    const chunks: Uint8Array[] = [];
    super({
      transform(chunk) {
        chunks.push(chunk);
      },
      flush(controller) {
        const out = inflateCapped(inflate, Buffer.concat(chunks));
        // A buffer of its own (not a view into a shared pool), as pdf.js may keep or transfer it.
        controller.enqueue(
          out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out : new Uint8Array(out),
        );
      },
    });
  }
}

/** Puts WholeInflate in place of this thread's DecompressionStream (only pdf.js uses one here). */
export function installWholeInflate(): void {
  globalThis.DecompressionStream = WholeInflate as unknown as typeof DecompressionStream;
}
