import type { IncomingMessage } from 'node:http';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import { ApiError, badRequest } from '../errors.ts';
import { limits } from '../limits.ts';
import type { UploadedFile } from '../pipeline/convert-to-answer.ts';
import type { UploadHold } from '../quota/upload-budget.ts';

export interface ParseUpload {
  file: UploadedFile;
  /** The `options` part as sent, not yet parsed. */
  options: string | undefined;
}

const MISSING_FILE =
  "Missing file upload. Send a multipart/form-data request with the document in a part named 'file' " +
  "and, optionally, the options as a JSON object in a part named 'options'.";

export const fileTooLarge = () => badRequest('Uploaded file exceeds maximum size of 50MB.');

/** The client went away mid-upload; there is nobody to answer. */
export class ClientGoneError extends Error {}

/** Bytes discarded after a refusal before the connection is cut instead of drained. */
const DRAIN_LIMIT = 2 * limits.uploadBytes;

/** Whether `bytes` more may be held; false after the refusal has been raised. */
type Admit = (bytes: number) => boolean;

function collect(
  stream: BusboyFileStream,
  max: number,
  onTooLarge: () => void,
  admit: Admit,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    stream.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        onTooLarge();
        return;
      }
      if (!admit(chunk.length)) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    stream.on('limit', () => {
      if (!over) {
        over = true;
        chunks.length = 0;
        onTooLarge();
      }
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

const busy = (which: 'node' | 'team') =>
  new ApiError(
    429,
    undefined,
    which === 'team'
      ? 'Your team is uploading more at once than it may hold. Please retry when your other uploads are done.'
      : 'Quire is receiving too many uploads at once. Please retry shortly.',
    { headers: { 'retry-after': String(limits.uploadBusyRetryS) } },
  );

/**
 * Stream a parse upload off the request: the file is counted as it arrives and refused as
 * soon as it passes the limit, so no more than the limit is ever held in memory; every byte
 * held is taken from `hold` (the node's and the team's budget of upload bytes in flight).
 */
export function readParseUpload(request: IncomingMessage, hold: UploadHold): Promise<ParseUpload> {
  const contentType = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) return Promise.reject(badRequest(MISSING_FILE));
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > limits.uploadBytes + limits.optionsBytes + 64 * 1024) {
    drain(request);
    return Promise.reject(fileTooLarge());
  }

  return new Promise<ParseUpload>((resolve, reject) => {
    let failure: Error | undefined;
    let file: Promise<UploadedFile> | undefined;
    let options: Promise<string> | undefined;
    const pending: Promise<unknown>[] = [];

    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      request.unpipe(busboy);
      drain(request);
      reject(error);
    };

    let busboy: BusboyInstance;
    try {
      busboy = new Busboy({
        headers: request.headers as { 'content-type': string },
        // Every part is read as a stream so that `options` may come as a field or as a JSON part.
        isPartAFile: () => true,
        limits: {
          fileSize: limits.uploadBytes,
          files: limits.multipartFields,
          parts: limits.multipartFields,
          headerPairs: 64,
        },
      });
    } catch (error) {
      reject(badRequest(`Invalid multipart form-data request: ${(error as Error).message}`));
      return;
    }

    const admit: Admit = (bytes) => {
      if (failure) return false;
      const refused = hold.take(bytes);
      if (refused) fail(busy(refused));
      return !refused;
    };

    busboy.on('file', (name, stream, filename, _encoding, mimeType) => {
      if (failure) return void stream.resume();
      if (name === 'file') {
        if (file) return fail(badRequest("Only one part named 'file' may be uploaded."));
        file = collect(stream, limits.uploadBytes, () => fail(fileTooLarge()), admit).then((bytes) => ({
          bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          filename: filename?.trim() || 'upload',
          contentType: mimeType && mimeType !== 'application/octet-stream' ? mimeType : undefined,
        }));
        pending.push(file);
      } else if (name === 'options') {
        if (options) return fail(badRequest("Only one part named 'options' may be sent."));
        options = collect(
          stream,
          limits.optionsBytes,
          () => fail(badRequest(`The 'options' field exceeds ${limits.optionsBytes} bytes.`)),
          admit,
        ).then((bytes) => bytes.toString('utf8'));
        pending.push(options);
      } else {
        stream.resume();
        fail(
          badRequest(
            `Unexpected field '${name}'. Send the document in a part named 'file' and the options in a part named 'options'.`,
          ),
        );
      }
    });
    for (const limit of ['partsLimit', 'filesLimit'] as const) {
      busboy.on(limit, () =>
        fail(badRequest(`Too many multipart parts; at most ${limits.multipartFields}.`)),
      );
    }
    busboy.on('error', (error: Error) =>
      fail(badRequest(`Invalid multipart form-data request: ${error.message}`)),
    );
    busboy.on('finish', () => {
      Promise.all(pending).then(async () => {
        if (failure) return;
        if (!file) return fail(badRequest(MISSING_FILE));
        const uploaded = await file;
        if (uploaded.bytes.length === 0) return fail(badRequest("The uploaded 'file' is empty."));
        resolve({ file: uploaded, options: options ? await options : undefined });
      }, fail);
    });
    request.on('aborted', () => fail(new ClientGoneError('client closed the connection during upload')));
    request.pipe(busboy);
  });
}

/** Read and discard the rest of a refused body, so the client can read our answer. */
function drain(request: IncomingMessage): void {
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT) request.socket.destroy();
  });
  request.resume();
}
