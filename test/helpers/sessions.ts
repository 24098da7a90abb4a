import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.ts';
import type { SessionTimers } from '../../src/sessions/session-clock.ts';
import type { HttpTarget } from './app.ts';
import { type RunningServer, repoRoot, storeEnv } from './server.ts';
import { storeRows } from './store.ts';

/** The Chromium Quire starts (QUIRE_CHROMIUM_PATH or its default), for the tests' own browsers. */
export const chromiumPath = loadConfig().QUIRE_CHROMIUM_PATH;

export interface Reply {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

/**
 * A JSON call to the API with the server's key (or another, or none): a server process, or the
 * app in the test's process (test/helpers/app.ts).
 */
export async function api(
  server: HttpTarget,
  method: string,
  route: string,
  body?: unknown,
  key: string | null = server.key,
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await server.fetch(route, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

/** Create a session, failing the test with the answer when it is not 200. */
export async function createSession(server: HttpTarget, body: unknown = {}): Promise<Record<string, any>> {
  const reply = await api(server, 'POST', '/v2/interact', body);
  if (reply.status !== 200) throw new Error(`create answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** A key for another team, made with the CLI against the server's store. */
export async function otherTeamKey(server: StoreOf, team: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', team],
    { env: { ...process.env, ...storeEnv(server) } },
  );
  return stdout.trim();
}

/** The browser pid the store recorded for a session (a read-only look into the server's store). */
export async function recordedPid(server: StoreOf, sessionId: string): Promise<number> {
  const [row] = await storeRows(server, 'SELECT pid FROM sessions WHERE id = ?', [sessionId]);
  if (row?.pid === null || row?.pid === undefined) throw new Error('no pid recorded');
  return Number(row.pid);
}

/** What locates a server's store: its data folder, and in the cluster pass its database. */
export type StoreOf = Pick<RunningServer, 'dataDir' | 'databaseUrl'>;

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The children of process `pid`, from /proc (none once it is gone). */
export function childrenOf(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The niceness of process `pid`'s main thread (field 19 of /proc/pid/stat). */
export function niceOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * Polls `probe` until it gives a value. `ms` only guards against a hang, so that a wait that
 * never ends names what it waited for: the default is far beyond any real wait, whatever the
 * machine's load; a shorter one makes the test depend on the machine's speed.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 100_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Serves `site` on a loopback port for a `describe` block; the getter gives its base URL. */
export function useLoopbackSite(site: http.Server): () => string {
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  after(() => {
    site.closeAllConnections();
    site.close();
  });
  return () => base;
}

/**
 * The pages the session browsers visit, on loopback: a form that greets, a page that sets a
 * persistent cookie and local storage, a redirect to a name of this machine, and a button
 * that counts its presses beside a text input.
 */
export function useTestSite(): () => string {
  const site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    const html = (body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(`<!doctype html><html><head><title>site</title></head><body>${body}</body></html>`);
    };
    switch (url.pathname) {
      case '/form':
        html(
          '<form id="f"><input id="name" name="name"><button id="go" type="submit">Go</button></form><p id="out"></p>' +
            '<script>document.getElementById("f").onsubmit = (e) => { e.preventDefault();' +
            ' document.getElementById("out").textContent = "Hello, " + document.getElementById("name").value + "!"; };</script>',
        );
        return;
      case '/remember':
        html(
          `<p id="out">stored</p><script>localStorage.setItem("note", ${JSON.stringify(url.searchParams.get('note') ?? '')});</script>`,
          { 'set-cookie': `visitor=${url.searchParams.get('who') ?? 'x'}; Max-Age=86400; Path=/` },
        );
        return;
      case '/recall':
        html(
          '<p id="out"></p><script>document.getElementById("out").textContent = document.cookie + "|" + localStorage.getItem("note");</script>',
        );
        return;
      case '/redirect':
        res.writeHead(302, { location: String(url.searchParams.get('to')) });
        res.end();
        return;
      case '/download':
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': `attachment; filename="${url.searchParams.get('name') ?? 'report.txt'}"`,
        });
        res.end('downloaded bytes');
        return;
      case '/button':
        // The button counts its presses, so that one press too many shows.
        html(
          '<button id="b" style="position:absolute;left:40px;top:40px;width:200px;height:80px">press</button>' +
            '<input id="i" style="position:absolute;left:40px;top:160px"><p id="out" style="position:absolute;top:200px">0</p>' +
            '<script>let presses = 0; document.getElementById("b").onclick = () => { document.getElementById("out").textContent = String(++presses); };</script>',
        );
        return;
      default:
        res.writeHead(404).end();
    }
  });
  return useLoopbackSite(site);
}

/**
 * Playwright connected to a session's cdpUrl (ws:, or http: through /json/version), and the
 * session's first tab. Playwright's 30 s defaults become the guard against a hang that waitFor's
 * is: a loaded 2-core machine can take longer, and that is not what these tests are about.
 */
export async function connectOverCdp(cdpUrl: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.connectOverCDP(cdpUrl, { timeout: 100_000 });
  const context = browser.contexts()[0]!;
  context.setDefaultTimeout(100_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return { browser, page };
}

/** A live view socket and every message it received, from the first. */
export interface LiveSocket {
  ws: WebSocket;
  messages: Record<string, any>[];
  /**
   * The first message of `type`, received already or to come; rejects if the socket closes
   * without one. Ask before the action that causes it, or after: nothing is missed either way.
   */
  message(type: string): Promise<Record<string, any>>;
}

/**
 * Opens a live view's socket for its page URL (liveViewUrl or interactiveLiveViewUrl), optionally
 * at another origin. Messages are kept from the start: the handshake's answer and the first
 * messages can come in one read, before a listener added once 'open' resolved would be in place.
 */
export async function openLiveSocket(pageUrl: string, origin?: string): Promise<LiveSocket> {
  const url = new URL(pageUrl.replace('/live?', '/live/ws?'));
  const at = new URL(origin ?? url.origin);
  url.host = at.host;
  url.protocol = at.protocol === 'https:' || at.protocol === 'wss:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const messages: Record<string, any>[] = [];
  const waiters = new Set<(message: Record<string, any>) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    messages.push(message);
    for (const waiter of waiters) waiter(message);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    message(type) {
      const seen = messages.find((m) => m.type === type);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const closed = () => {
          waiters.delete(waiter);
          reject(new Error(`the live view socket closed without a ${type} message`));
        };
        const waiter = (message: Record<string, any>) => {
          if (message.type !== type) return;
          waiters.delete(waiter);
          ws.off('close', closed);
          resolve(message);
        };
        waiters.add(waiter);
        ws.once('close', closed);
      });
    },
  };
}

/**
 * The clock a test moves, for an app's sessions (startApp's sessionTimers): time stands still
 * until `tick` moves it on, running each timer that falls due, in order, at its own time.
 */
export class TestClock implements SessionTimers {
  private time: number;
  private readonly timers = new Set<{ at: number; every: number | undefined; fn: () => void }>();

  constructor(start = Date.now()) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    return this.add(ms, undefined, fn);
  }

  every(ms: number, fn: () => void): () => void {
    return this.add(ms, ms, fn);
  }

  private add(ms: number, every: number | undefined, fn: () => void): () => void {
    const timer = { at: this.time + ms, every, fn };
    this.timers.add(timer);
    return () => {
      this.timers.delete(timer);
    };
  }

  tick(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      // The earliest due; of timers due together, the one set first.
      let next: { at: number; every: number | undefined; fn: () => void } | undefined;
      for (const timer of this.timers) if (timer.at <= end && (!next || timer.at < next.at)) next = timer;
      if (!next) break;
      this.time = next.at;
      if (next.every) next.at += next.every;
      else this.timers.delete(next);
      next.fn();
    }
    this.time = end;
  }
}

/** A second, ordinary headless Chromium (the system one) to open live views in. */
export function launchViewerBrowser() {
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}

/** A CDP error answer, as the relay or the browser sent it. */
export class CdpError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export interface CdpEventMessage {
  method: string;
  params: Record<string, any>;
  sessionId?: string;
}

/** A bare CDP client over one WebSocket: commands answer or reject with the CDP error as sent. */
export interface RawCdp {
  send(method: string, params?: object, sessionId?: string): Promise<Record<string, any>>;
  /**
   * The first event of this method that `match` accepts, from those to come (and with `past`,
   * those received already); rejects when none came within `ms`, so a missing event fails the
   * test instead of hanging it.
   */
  event(
    method: string,
    match?: (event: CdpEventMessage) => boolean,
    options?: { past?: boolean; ms?: number },
  ): Promise<CdpEventMessage>;
  close(): Promise<void>;
}

/** Connect a bare CDP client to a session's cdpUrl (or a browser's own endpoint). */
export async function openCdp(url: string): Promise<RawCdp> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const pending = new Map<number, { resolve: (r: any) => void; reject: (e: Error) => void }>();
  const events: CdpEventMessage[] = [];
  const waiting = new Set<(event: CdpEventMessage) => boolean>();
  let nextId = 0;
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (typeof message.id === 'number') {
      const call = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) call?.reject(new CdpError(message.error.code, message.error.message));
      else call?.resolve(message.result);
      return;
    }
    events.push(message);
    for (const waiter of waiting) if (waiter(message)) waiting.delete(waiter);
  });
  ws.on('close', () => {
    for (const call of pending.values()) call.reject(new Error('the CDP connection closed'));
    pending.clear();
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  // A connection the other side drops is reported by 'close' above.
  ws.on('error', () => {});
  return {
    send(method, params = {}, sessionId) {
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      });
    },
    // The default only guards against a hang, as waitFor's does: far beyond any real wait.
    event(method, match = () => true, { past = false, ms = 100_000 } = {}) {
      const accepts = (event: CdpEventMessage) => event.method === method && match(event);
      const seen = past ? events.find(accepts) : undefined;
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = (event: CdpEventMessage) => {
          if (!accepts(event)) return false;
          clearTimeout(timer);
          resolve(event);
          return true;
        };
        const timer = setTimeout(() => {
          waiting.delete(waiter);
          reject(new Error(`timed out waiting for ${method}`));
        }, ms);
        waiting.add(waiter);
      });
    },
    close() {
      if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
}

/** The session's first tab, attached with a flat session id. */
export async function attachToPage(cdp: RawCdp): Promise<{ targetId: string; sessionId: string }> {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const { targetId } = targetInfos.find((t: { type: string }) => t.type === 'page');
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  return { targetId, sessionId };
}

/** A session's own folder on the server: its profile, uploads, downloads and scratch folders. */
export function sessionFolder(server: { dataDir: string }, sessionId: string): string {
  return path.join(server.dataDir, 'sessions', 'run', sessionId);
}
