import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { limits } from '../limits.ts';

/**
 * Large uploads and answers between the API process and its conversion processes, beside the
 * pool's IPC channel rather than through it. Through the channel each byte was copied four times
 * on the API process's event loop (Tinypool's in-process port, Node's serialiser, the reader's
 * concatenation and deserialiser): one team's 20 MB answers held that loop for hundreds of
 * milliseconds, and another team's 10 ms parses waited behind it. Here the bytes cross a Unix
 * socket: an upload is written from the buffer the request already holds, and an answer is read
 * in 64 KB slices into one buffer of its announced size, so no step blocks the loop for long.
 * Memory only: nothing touches the disk but the socket's name, so zero data retention holds.
 *
 * A conversion process connects once per transfer and sends one line, `get <token>` (it gets the
 * upload, then the connection ends) or `put <token> <bytes>` (the answer follows). Tokens are
 * random and used once; the socket's folder is readable by this user only.
 */
export class BulkChannel {
  /** The socket's path, for the conversion processes (QUIRE_BULK_SOCKET). */
  readonly socketPath: string;
  private readonly folder: string;
  private readonly server: net.Server;
  private readonly uploads = new Map<string, Uint8Array>();
  private readonly answers = new Map<string, Answer>();

  constructor() {
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bulk-'));
    fs.chmodSync(this.folder, 0o700);
    this.socketPath = path.join(this.folder, 'socket');
    this.server = net.createServer((socket) => this.accept(socket));
    this.server.listen(this.socketPath);
    // The pool's processes are the only clients; the server alone must not keep the process up.
    this.server.unref();
  }

  /** Offers `bytes` to the conversion that is given the token; `release` withdraws them. */
  offer(bytes: Uint8Array): { token: string; release(): void } {
    const token = newToken();
    this.uploads.set(token, bytes);
    return { token, release: () => this.uploads.delete(token) };
  }

  /**
   * Expects an answer under a new token. `body` resolves once all of it has come in, and rejects
   * if the connection ends early; `release` drops it, whatever its state.
   */
  expect(): { token: string; body: Promise<Buffer>; release(): void } {
    const token = newToken();
    let settle!: { resolve: (body: Buffer) => void; reject: (error: Error) => void };
    const body = new Promise<Buffer>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Awaited only when the worker says it sent the answer this way.
    body.catch(() => {});
    const answer: Answer = { ...settle, socket: undefined };
    this.answers.set(token, answer);
    return {
      token,
      body,
      release: () => {
        this.answers.delete(token);
        answer.socket?.destroy();
      },
    };
  }

  close(): void {
    this.server.close();
    for (const { socket } of this.answers.values()) socket?.destroy();
    fs.rmSync(this.folder, { recursive: true, force: true });
  }

  private accept(socket: net.Socket): void {
    socket.on('error', () => {});
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf(10);
      if (end < 0) {
        if (head.length > maxHeaderBytes) socket.destroy();
        return;
      }
      socket.off('data', onData);
      const [verb, token = '', size] = head.subarray(0, end).toString('latin1').split(' ');
      const rest = head.subarray(end + 1);
      if (verb === 'get') this.sendUpload(socket, token);
      else if (verb === 'put') this.receiveAnswer(socket, token, Number(size), rest);
      else socket.destroy();
    };
    socket.on('data', onData);
  }

  private sendUpload(socket: net.Socket, token: string): void {
    const bytes = this.uploads.get(token);
    if (!bytes) return void socket.destroy();
    // Used once: a second reader is not the conversion it was meant for.
    this.uploads.delete(token);
    socket.end(bytes);
  }

  private receiveAnswer(socket: net.Socket, token: string, size: number, first: Buffer): void {
    const answer = this.answers.get(token);
    if (!answer || answer.socket || !Number.isSafeInteger(size) || size < 0 || size > limits.bulkAnswerBytes)
      return void socket.destroy();
    answer.socket = socket;
    const body = Buffer.allocUnsafe(size);
    let filled = 0;
    const take = (chunk: Buffer) => {
      if (filled + chunk.length > size) return void socket.destroy();
      chunk.copy(body, filled);
      filled += chunk.length;
    };
    take(first);
    socket.on('data', take);
    socket.once('close', () => {
      if (filled === size) answer.resolve(body);
      else answer.reject(new Error(`the answer ended after ${filled} of ${size} bytes`));
    });
  }
}

interface Answer {
  resolve(body: Buffer): void;
  reject(error: Error): void;
  socket: net.Socket | undefined;
}

/** `get` or `put`, a 32-character token and a size fit in far less. */
const maxHeaderBytes = 128;

const newToken = () => randomBytes(16).toString('hex');

/** An upload left in the API process, to be fetched with `fetchUpload`. */
export interface BulkUpload {
  bulk: string;
  size: number;
}

/** In a conversion process: the upload offered under `upload.bulk`. */
export function fetchUpload(socketPath: string, upload: BulkUpload): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => socket.write(`get ${upload.bulk}\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => {
      const bytes = Buffer.concat(chunks);
      // Short when the offer was withdrawn (the request ended) or the token was unknown.
      if (bytes.length === upload.size) resolve(bytes);
      else reject(new Error(`the upload ended after ${bytes.length} of ${upload.size} bytes`));
    });
  });
}

/** In a conversion process: sends `body` as the answer expected under `token`, resolving once written. */
export function sendAnswer(socketPath: string, token: string, body: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => {
      socket.write(`put ${token} ${body.byteLength}\n`);
      socket.end(body, () => resolve());
    });
    socket.once('error', reject);
  });
}
