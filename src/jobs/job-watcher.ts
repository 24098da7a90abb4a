import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { RateLimiter } from '../quota/rate-limit.ts';
import type { TeamSettingsCache } from '../quota/team-settings.ts';
import type { KeyOwner } from '../store/store.ts';
import { teamJob } from './job-status.ts';
import type { JobRecord, JobStatus, JobStore, PageCounts } from './job-store.ts';

/** The API's key check (src/http/auth.ts's Authenticator): it reads only the Authorization header. */
export interface KeyCheck {
  authenticate(request: { headers: IncomingHttpHeaders }): Promise<KeyOwner>;
}

export interface JobWatcherDeps {
  jobs: JobStore;
  auth: KeyCheck;
  rateLimiter: RateLimiter;
  teams: Pick<TeamSettingsCache, 'get'>;
  log: { error(details: object, message: string): void };
  /** Between looks for new documents (default limits.jobWatchPollMs); tests pass a short one. */
  pollMs?: number;
  /** Open watchers per team (default limits.jobWatchersPerTeam). */
  perTeam?: number;
}

const PATH = /^\/v2\/(?:crawl|batch\/scrape)\/([^/]+)$/;
const DONE = { type: 'done' };
const DOCUMENT_HEAD = Buffer.from('{"type":"document","data":');
const DOCUMENT_TAIL = Buffer.from('}');
const COMMA = Buffer.from(',');

/** A close frame's reason is at most 123 bytes: every reason here is a short constant or close to one. */
const error = (text: string) => ({ type: 'error', error: text });

/**
 * The WebSocket watcher of crawls and batch scrapes (jobs-and-formats §4), at the SDKs' URLs
 * `/v2/crawl/<id>` and `/v2/batch/scrape/<id>`. The key comes from `Authorization: Bearer`,
 * else from the offered subprotocol (the JS SDK's `new WebSocket(url, apiKey)`), which the
 * accepted socket echoes. Every refusal comes after the upgrade, as a close frame with a JSON
 * reason, as upstream's do: a failed handshake is a socket error to the JS SDK, which then stops
 * without polling. Messages: one `catchup` (the finished documents, up to limits.jobStatusBytes),
 * then a `document` per document after it, polled from the store; when the job has ended and
 * every document was sent, a `status` message with its final counts (an SDK ends its watch on a
 * message whose status is terminal; it reads no close reason, and would otherwise poll the HTTP
 * status once), then close 1000 `{"type":"done"}`.
 */
export class JobWatcher {
  private readonly deps: JobWatcherDeps;
  private readonly pollMs: number;
  private readonly perTeam: number;
  private readonly sockets = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: limits.jobWatchClientMessageBytes,
    perMessageDeflate: false,
  });
  private readonly open = new Set<WebSocket>();
  private readonly teams = new Map<string, number>();
  private closed = false;

  constructor(deps: JobWatcherDeps) {
    this.deps = deps;
    this.pollMs = deps.pollMs ?? limits.jobWatchPollMs;
    this.perTeam = deps.perTeam ?? limits.jobWatchersPerTeam;
  }

  /** Whether the upgrade is a watcher's (any query). */
  handles(req: IncomingMessage): boolean {
    // Node passes absolute-form targets through unparsed ("http://["): new URL would throw here.
    const url = URL.parse(req.url ?? '/', 'http://upgrade.invalid');
    return url !== null && PATH.test(url.pathname);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Node hands over upgraded sockets without an 'error' listener: a reset would end the process.
    socket.on('error', () => socket.destroy());
    if (this.closed) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    this.sockets.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
  }

  /** Watcher sockets open now. */
  get watching(): number {
    return this.open.size;
  }

  /** Server shutdown: every watcher closed with 1001 (and cut off if its client does not answer). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open].map(shutDown));
    this.sockets.close();
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const stop = new AbortController();
    let team: string | undefined;
    this.open.add(ws);
    // A message over maxPayload is an 'error' (then a close); the client has nothing else to say.
    ws.on('error', () => {});
    ws.once('close', () => {
      stop.abort();
      this.open.delete(ws);
      if (team !== undefined) {
        const left = (this.teams.get(team) ?? 1) - 1;
        if (left > 0) this.teams.set(team, left);
        else this.teams.delete(team);
      }
    });
    if (this.closed) {
      void shutDown(ws);
      return;
    }
    // Called synchronously after a check of the signal, so a socket already closed is never counted.
    const admit = (owner: string): boolean => {
      const held = this.teams.get(owner) ?? 0;
      if (held >= this.perTeam) return false;
      this.teams.set(owner, held + 1);
      team = owner;
      return true;
    };
    this.serve(ws, req, stop.signal, admit).catch((err: unknown) => {
      if (stop.signal.aborted) return;
      const errorId = randomUUID();
      this.deps.log.error({ err, errorId }, 'job watcher failed');
      closeWith(ws, 1011, error(`Unexpected error. Error ID: ${errorId}`));
    });
  }

  private async serve(
    ws: WebSocket,
    req: IncomingMessage,
    signal: AbortSignal,
    admit: (team: string) => boolean,
  ): Promise<void> {
    const id = PATH.exec(URL.parse(req.url ?? '/', 'http://upgrade.invalid')?.pathname ?? '')?.[1] ?? '';
    let owner: KeyOwner;
    try {
      owner = await this.authenticate(req.headers);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return closeWith(ws, 3000, error(err.message));
      throw err;
    }
    const settings = await this.deps.teams.get(owner.team);
    // The upgrade is one request of the team and its key, as any other call.
    const retryAfter = await this.deps.rateLimiter.consume(owner.team, {
      perMinute: settings.ratePerMinute,
      key: { id: owner.keyId, perMinute: settings.keyRatePerMinute },
    });
    if (retryAfter > 0)
      return closeWith(ws, 1008, error(`Rate limit exceeded. Please retry after ${retryAfter}s.`));
    if (signal.aborted) return;
    if (!admit(owner.team))
      return closeWith(ws, 1008, error(`Too many watchers: a team may keep ${this.perTeam} open at once.`));
    let job: JobRecord;
    try {
      job = await teamJob(this.deps.jobs, id, owner.team);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) return closeWith(ws, 1008, error('Invalid job ID'));
      if (err instanceof ApiError && err.status === 404) return closeWith(ws, 1008, error('Job not found'));
      throw err;
    }
    if (!signal.aborted) await this.stream(ws, job, signal);
  }

  /** Upstream's order: the Bearer header, else the (first) offered subprotocol is the key. */
  private authenticate(headers: IncomingHttpHeaders): Promise<KeyOwner> {
    const offered = headers['sec-websocket-protocol']?.split(',')[0]?.trim();
    const authorization = headers.authorization ?? (offered ? `Bearer ${offered}` : undefined);
    return this.deps.auth.authenticate({ headers: authorization === undefined ? {} : { authorization } });
  }

  private async stream(ws: WebSocket, job: JobRecord, signal: AbortSignal): Promise<void> {
    const { jobs } = this.deps;
    const [counts, creditsUsed, catchup] = await Promise.all([
      jobs.pageCounts(job.id),
      jobs.creditsUsed(job.id),
      this.catchupDocuments(job),
    ]);
    // An SDK ends its watch on a catch-up whose status is terminal (the JS SDK closes the socket):
    // documents left for the messages after it would be lost, so such a catch-up says scraping
    // and the true status follows them.
    const status = catchup.more ? 'scraping' : job.status;
    await send(ws, snapshotFrame('catchup', job, status, counts, creditsUsed, catchup.documents));
    if (signal.aborted) return;
    if (status !== 'scraping') return closeWith(ws, 1000, DONE);
    let sent = catchup.documents.length;
    // Documents beyond the catch-up go at once; after that, one look per poll.
    let wait = !catchup.more;
    for (;;) {
      if (wait) await pause(this.pollMs, signal);
      wait = true;
      if (signal.aborted) return;
      // The status before the count: a job seen ended has stored every document the count then sees.
      const fresh = await jobs.getJob(job.id);
      if (!fresh) return closeWith(ws, 1008, error('Job not found'));
      sent = await this.sendNew(ws, job, sent, signal);
      if (signal.aborted) return;
      if (fresh.status !== 'scraping') {
        const [final, credits] = await Promise.all([jobs.pageCounts(job.id), jobs.creditsUsed(job.id)]);
        await send(ws, snapshotFrame('status', fresh, fresh.status, final, credits, []));
        return closeWith(ws, 1000, DONE);
      }
    }
  }

  /**
   * The catch-up's documents from the first, at most limits.jobStatusBytes of them as the status
   * page holds (the one that crosses it goes later, unless it is the first); `more` when the
   * bound left some out.
   */
  private async catchupDocuments(job: JobRecord): Promise<{ documents: Buffer[]; more: boolean }> {
    const jobId = job.id;
    if (job.zeroDataRetention) {
      // Taken out of the store as they are handed over (JobStore.takeDocuments).
      const documents = await this.deps.jobs.takeDocuments(
        jobId,
        Number.MAX_SAFE_INTEGER,
        limits.jobStatusBytes,
      );
      return { documents, more: (await this.deps.jobs.countDocuments(jobId)) > 0 };
    }
    const documents: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const page = await this.deps.jobs.readDocuments(jobId, documents.length, limits.jobStatusPage);
      for (const document of page) {
        if (documents.length > 0 && bytes + document.length > limits.jobStatusBytes)
          return { documents, more: true };
        documents.push(document);
        bytes += document.length + 1;
      }
      if (page.length < limits.jobStatusPage) return { documents, more: false };
    }
  }

  /**
   * A `document` message for each document past the `sent` first (under zero data retention, for
   * each one still held, taken as it is sent), a page at a time; the new count.
   */
  private async sendNew(ws: WebSocket, job: JobRecord, sent: number, signal: AbortSignal): Promise<number> {
    const jobId = job.id;
    if (job.zeroDataRetention) {
      for (;;) {
        if (signal.aborted) return sent;
        const page = await this.deps.jobs.takeDocuments(jobId, limits.jobStatusPage, limits.jobStatusBytes);
        if (page.length === 0) return sent;
        await sendDocuments(ws, page);
        sent += page.length;
      }
    }
    const finished = await this.deps.jobs.countDocuments(jobId);
    while (sent < finished && !signal.aborted) {
      const page = await this.deps.jobs.readDocuments(
        jobId,
        sent,
        Math.min(finished - sent, limits.jobStatusPage),
      );
      if (page.length === 0) break;
      // Written before the next page is read: at most a page waits in memory for a slow client.
      await sendDocuments(ws, page);
      sent += page.length;
    }
    return sent;
  }
}

/** A `document` message for each of `documents`, all written. */
function sendDocuments(ws: WebSocket, documents: Buffer[]): Promise<unknown> {
  return Promise.all(
    documents.map((document) => send(ws, Buffer.concat([DOCUMENT_HEAD, document, DOCUMENT_TAIL]))),
  );
}

/** `expiresAt` as upstream writes it: milliseconds zeroed. */
const seconds = (isoTime: string) => `${isoTime.slice(0, 19)}.000Z`;

/**
 * `{"type":…,"data":{success, status, total, completed, creditsUsed, expiresAt, data:[…]}}`,
 * upstream's catch-up, spliced from the stored documents' bytes (never parsed and re-encoded).
 */
function snapshotFrame(
  type: 'catchup' | 'status',
  job: JobRecord,
  status: JobStatus,
  counts: PageCounts,
  creditsUsed: number,
  documents: readonly Buffer[],
): Buffer {
  const failed = job.status === 'failed';
  const head = {
    success: !failed,
    ...(failed && job.error ? { error: job.error } : {}),
    status,
    total: counts.done + counts.queued + counts.active,
    completed: counts.done,
    creditsUsed,
    expiresAt: seconds(job.expiresAt),
  };
  const text = JSON.stringify({ type, data: head });
  const parts: Buffer[] = [Buffer.from(`${text.slice(0, -2)},"data":[`)];
  documents.forEach((document, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(document);
  });
  parts.push(Buffer.from(']}}'));
  return Buffer.concat(parts);
}

/** One text frame, resolved once written to the socket (rejected when the socket is gone). */
function send(ws: WebSocket, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) =>
    ws.send(data, { binary: false }, (err) => (err ? reject(err) : resolve())),
  );
}

/** Close 1001, and cut the socket off if its client does not answer within limits.jobWatchCloseMs. */
function shutDown(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState === ws.CLOSED) return resolve();
    const timer = setTimeout(() => ws.terminate(), limits.jobWatchCloseMs);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    closeWith(ws, 1001, error('Quire is shutting down.'));
  });
}

function closeWith(ws: WebSocket, code: number, reason: object): void {
  if (ws.readyState === ws.OPEN) ws.close(code, JSON.stringify(reason));
}

/** `ms`, or less when `signal` aborts; never keeps the process alive on its own. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
