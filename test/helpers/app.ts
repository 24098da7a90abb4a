import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { ResolveAll } from '../../src/scrape/vetted-address.ts';
import type { SessionTimers } from '../../src/sessions/session-clock.ts';
import { forBlock } from './block-resource.ts';
import { testEnv } from './test-env.ts';

/**
 * What a test sends requests to: a key that opens it, and `fetch` with a path ('/v2/parse'),
 * answered either by Quire in this process (startApp, through Fastify's inject(), no socket) or
 * by a real server process (server.ts's startServer, over loopback).
 */
export interface HttpTarget {
  key: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Quire's API built in the test's own process, with its real store, pool and limits. */
export interface InProcessApp extends HttpTarget {
  app: App;
  dataDir: string;
  /** The JSON log lines the app has written so far. */
  output(): string;
  /**
   * The first match of `pattern` in the app's log, as soon as it is written: subscribe (call
   * this) before the action that causes it. With `from`, only what was written past that many
   * characters counts.
   */
  waitForOutput(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  close(): Promise<void>;
}

/** What a test may put in place of the real thing: the sessions' clock, the resolver of host names. */
export interface AppOptions {
  sessionTimers?: SessionTimers;
  resolveAll?: ResolveAll;
  /** How crawls wait (Crawl-delay, polls): a test's recorder in place of real timers. */
  jobSleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The time monitors' schedules are read against: a test's, which it moves. */
  monitorClock?: () => number;
}

/**
 * Builds Quire's API in this process (createApp, as `npm start` does, less the listening
 * socket) on the embedded defaults and `env`. The conversion workers are real child processes
 * and read their settings from the environment, so `env` is also set on this process's: one
 * app at a time (close gives the variables back, so apps in turn may differ), in a test file that
 * node:test runs in a process of its own.
 */
export async function startApp(
  env: Record<string, string> = {},
  { sessionTimers, resolveAll, jobSleep, monitorClock }: AppOptions = {},
): Promise<InProcessApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-app-'));
  const key = `test-key-${Math.random().toString(36).slice(2)}`;
  const settings = { ...testEnv(dataDir, key), ...env };
  // Given back on close, so that a later app in the same file does not inherit these settings.
  const previous = Object.keys(settings).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, settings);
  let output = '';
  const waiters = new Set<() => void>();
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  });
  const app = await createApp(loadConfig(process.env), {
    logStream,
    sessionTimers,
    resolveAll,
    jobSleep,
    monitorClock,
  });
  return {
    app,
    key,
    dataDir,
    fetch: (url, init) => injectFetch(app, url, init),
    output: () => output,
    waitForOutput(pattern, from = 0) {
      return new Promise((resolve) => {
        const check = () => {
          const match = pattern.exec(output.slice(from));
          if (!match) return;
          waiters.delete(check);
          resolve(match);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      await app.close();
      for (const [name, value] of previous) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One in-process app for a whole `describe` block (or file): built before its tests, closed after. */
export function useApp(env: Record<string, string> = {}, options: AppOptions = {}): () => InProcessApp {
  return forBlock(
    () => startApp(env, options),
    (app) => app.close(),
    'the app',
  );
}

/** `fetch`'s request and answer, carried by Fastify's inject() instead of a socket. */
async function injectFetch(app: App, url: string, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const body = init.body;
  let payload: string | Buffer | FormData | undefined;
  if (body === undefined || body === null) payload = undefined;
  else if (typeof body === 'string' || body instanceof FormData) payload = body;
  else if (body instanceof Blob) payload = Buffer.from(await body.arrayBuffer());
  else if (body instanceof ArrayBuffer) payload = Buffer.from(body);
  else if (ArrayBuffer.isView(body)) payload = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  else
    throw new Error(
      `injectFetch: a body of this kind is not carried: ${Object.prototype.toString.call(body)}`,
    );
  if (typeof body === 'string' && !('content-type' in headers))
    headers['content-type'] = 'text/plain;charset=UTF-8';
  const res = await app.server.inject({
    method: (init.method ?? 'GET') as 'GET',
    url,
    headers,
    payload,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const replyHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [String(value)]) replyHeaders.append(name, one);
  }
  const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === 'HEAD';
  return new Response(empty ? null : new Uint8Array(res.rawPayload), {
    status: res.statusCode,
    headers: replyHeaders,
  });
}
