import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before } from 'node:test';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { type RunningServer, repoRoot } from './server.ts';

export const chromiumPath = process.env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Reply {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

/** A JSON call to the API with the server's key (or another, or none). */
export async function api(
  server: RunningServer,
  method: string,
  route: string,
  body?: unknown,
  key: string | null = server.key,
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

/** Create a session, failing the test with the answer when it is not 200. */
export async function createSession(server: RunningServer, body: unknown = {}): Promise<Record<string, any>> {
  const reply = await api(server, 'POST', '/v2/interact', body);
  if (reply.status !== 200) throw new Error(`create answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** A key for another team, made with the CLI against the server's store. */
export async function otherTeamKey(server: RunningServer, team: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', team],
    { env: { ...process.env, QUIRE_DATA_DIR: server.dataDir } },
  );
  return stdout.trim();
}

/** The browser pid the store recorded for a session (read-only look into the SQLite file). */
export function recordedPid(dataDir: string, sessionId: string): number {
  const db = new DatabaseSync(path.join(dataDir, 'quire.db'), { readOnly: true });
  try {
    const row = db.prepare('SELECT pid FROM sessions WHERE id = ?').get(sessionId) as { pid: number | null };
    if (row.pid === null) throw new Error('no pid recorded');
    return row.pid;
  } finally {
    db.close();
  }
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The pages the session browsers visit, on loopback: a form that greets, a page that sets a
 * persistent cookie and local storage, a redirect to a name of this machine, and a button.
 */
export function useTestSite(): () => string {
  let base = '';
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
        html(
          '<button id="b" style="position:absolute;left:40px;top:40px;width:200px;height:80px">press</button><p id="out">not pressed</p>' +
            '<script>document.getElementById("b").onclick = () => { document.getElementById("out").textContent = "pressed"; };</script>',
        );
        return;
      default:
        res.writeHead(404).end();
    }
  });
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

/** A second, ordinary headless Chromium (the system one) to open live views in. */
export function launchViewerBrowser() {
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}
