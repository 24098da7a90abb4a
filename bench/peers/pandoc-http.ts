import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pandocReader, runPandoc } from './pandoc.ts';

// The server a user would otherwise deploy: accept the same multipart upload as Quire's
// POST /v2/parse and pipe the file to one pandoc process per request (pandoc 2.17 has no server
// mode). At most PEER_PANDOC_PROCESSES pandoc processes run at once, the core count by default
// as Quire's worker pool is; the other requests wait in arrival order, as Quire's queue does.
//
//   PORT=3100 HOST=127.0.0.1 PEER_API_KEY=bench-key node bench/peers/pandoc-http.ts

const port = Number(process.env.PORT ?? 3100);
const host = process.env.HOST ?? '127.0.0.1';
const apiKey = process.env.PEER_API_KEY ?? '';
const maxUpload = 50 * 1024 * 1024;
const maxProcesses = Math.max(1, Number(process.env.PEER_PANDOC_PROCESSES) || os.availableParallelism());

/** Requests waiting for a pandoc slot, first come first served. */
const queue: (() => void)[] = [];
let running = 0;

async function withSlot<T>(f: () => Promise<T>): Promise<T> {
  if (running >= maxProcesses) await new Promise<void>((resolve) => queue.push(resolve));
  else running++;
  try {
    return await f();
  } finally {
    // The slot passes straight to the next waiter, so `running` only falls when none waits.
    const next = queue.shift();
    if (next) next();
    else running--;
  }
}

/** Quire's format ids by extension, for the ones this peer serves. */
function formatOf(filename: string): string | undefined {
  const ext = path.extname(filename).toLowerCase();
  const format = ext === '.htm' || ext === '.xhtml' ? 'html' : ext.slice(1);
  return pandocReader(format) ? format : undefined;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxUpload) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function parse(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (apiKey && req.headers.authorization !== `Bearer ${apiKey}`) {
    send(res, 401, { success: false, error: 'Unauthorized' });
    return;
  }
  const body = await readBody(req);
  if (body === null) {
    send(res, 413, { success: false, error: 'Upload too large' });
    return;
  }
  let form: FormData;
  try {
    form = await new Response(body, {
      headers: { 'content-type': req.headers['content-type'] ?? '' },
    }).formData();
  } catch {
    send(res, 400, { success: false, code: 'BAD_REQUEST', error: 'Invalid multipart form-data request' });
    return;
  }
  const file = form.get('file');
  if (!(file instanceof File)) {
    send(res, 400, { success: false, code: 'BAD_REQUEST', error: 'Missing file part' });
    return;
  }
  const format = formatOf(file.name);
  if (!format) {
    send(res, 400, { success: false, code: 'UNSUPPORTED_FILE_TYPE', error: `Unsupported file ${file.name}` });
    return;
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  // The time-out starts with pandoc, not with the wait for a slot.
  const run = await withSlot(() => runPandoc(bytes, format, 30_000));
  if (run.code !== 0) {
    send(res, 500, { success: false, code: 'UNKNOWN_ERROR', error: run.stderr.trim().slice(0, 500) });
    return;
  }
  send(res, 200, {
    success: true,
    data: { markdown: run.stdout.toString('utf8'), metadata: { sourceURL: file.name } },
  });
}

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url === '/health') {
    send(res, 200, { status: 'ok' });
  } else if (req.method === 'POST' && url === '/v2/parse') {
    parse(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { success: false, code: 'UNKNOWN_ERROR', error: String(err) });
      else res.destroy();
    });
  } else {
    send(res, 404, { success: false, error: 'Not found' });
  }
});

server.listen(port, host, () => {
  process.stderr.write(`pandoc-http listening on http://${host}:${port}, ${maxProcesses} pandoc at once\n`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 2_000).unref();
  });
}
