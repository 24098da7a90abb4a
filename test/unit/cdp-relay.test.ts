import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { limits } from '../../src/limits.ts';
import { BrowserPipe } from '../../src/sessions/cdp-pipe.ts';
import { relayCdp } from '../../src/sessions/cdp-relay.ts';
import { NetPolicy } from '../../src/sessions/net-policy.ts';

/**
 * The relay between a client's WebSocket and the browser's pipe, in-process: a real BrowserPipe
 * over streams whose other ends play Chromium (NUL-framed JSON, as on --remote-debugging-pipe),
 * and a real WebSocket client on loopback. What the relay does with a client that stops
 * reading does not depend on how fast a browser makes its messages, so a page is not needed.
 */

interface FakeBrowser {
  /** Every command the relay wrote to the browser, parsed. */
  commands: { id: number; method: string; params?: Record<string, unknown>; sessionId?: string }[];
  /** Write one message from the browser to Quire. */
  emit(message: Record<string, unknown>): void;
  /** Resolves with the next command of this method. */
  next(method: string): Promise<{ id: number; sessionId?: string }>;
}

function fakeBrowser(): { pipe: BrowserPipe; browser: FakeBrowser } {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const pipe = new BrowserPipe(toBrowser, fromBrowser);
  const commands: FakeBrowser['commands'] = [];
  const waiting: { method: string; resolve: (c: FakeBrowser['commands'][number]) => void }[] = [];
  let pending = '';
  let nextSession = 0;
  const emit = (message: Record<string, unknown>) => fromBrowser.write(`${JSON.stringify(message)}\0`);
  toBrowser.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let nul = pending.indexOf('\0'); nul !== -1; nul = pending.indexOf('\0')) {
      const command = JSON.parse(pending.slice(0, nul));
      pending = pending.slice(nul + 1);
      commands.push(command);
      // Chromium's answer to the relay's own attach: a browser session for the client.
      if (command.method === 'Target.attachToBrowserTarget')
        emit({ id: command.id, result: { sessionId: `browser-session-${++nextSession}` } });
      const i = waiting.findIndex((w) => w.method === command.method);
      if (i >= 0) waiting.splice(i, 1)[0]!.resolve(command);
    }
  });
  const next = (method: string) =>
    new Promise<FakeBrowser['commands'][number]>((resolve) => {
      const seen = commands.find((c) => c.method === method);
      if (seen) resolve(seen);
      else waiting.push({ method, resolve });
    });
  return { pipe, browser: { commands, emit, next } };
}

describe('the CDP relay', () => {
  let dir: string;
  let server: WebSocketServer;
  let port: number;
  let relayed: (client: WebSocket) => void;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-relay-'));
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
    server.on('connection', (client) => relayed(client));
  });
  after(async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A client connected through a relay to a fresh fake browser. */
  async function connect(options?: WebSocket.ClientOptions) {
    const { pipe, browser } = fakeBrowser();
    relayed = (client) =>
      relayCdp(client, pipe, { policy: new NetPolicy([]), downloadsDir: dir, uploadsDir: dir }, dir, {
        onActivity() {},
        onRefused() {},
      });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, options);
    const received: string[] = [];
    ws.on('message', (data) => received.push(data.toString()));
    await new Promise((resolve) => ws.once('open', resolve));
    const attached = await browser.next('Target.attachToBrowserTarget');
    assert.ok(attached);
    return { ws, browser, received };
  }

  it('holds back what a client does not read and gives it all, in order, once it reads', async () => {
    const { ws, browser, received } = await connect({ maxPayload: 0 });
    try {
      ws.send(JSON.stringify({ id: 1, method: 'Runtime.enable', params: {} }));
      const command = await browser.next('Runtime.enable');
      assert.equal(command.sessionId, 'browser-session-1', 'sent on the client’s own browser session');
      ws.pause();
      // Twice what the relay queues for one client, in 1 MB events: the rest goes to the spool.
      const line = 'x'.repeat(1e6);
      const count = Math.ceil((2 * limits.cdpClientBufferedBytes) / line.length);
      for (let i = 0; i < count; i++)
        browser.emit({
          method: 'Runtime.consoleAPICalled',
          params: { n: i, args: [{ value: line }] },
          sessionId: 'browser-session-1',
        });
      browser.emit({ id: command.id, result: {}, sessionId: 'browser-session-1' });
      const spooled = await waitForSpool(dir);
      assert.ok(spooled > 0, 'what the client could not take waits on disk');
      const everything = new Promise<void>((resolve) =>
        ws.on('message', () => received.length === count + 1 && resolve()),
      );
      ws.resume();
      await everything;
      const events = received.slice(0, count).map((text) => JSON.parse(text));
      assert.deepEqual(
        events.map((e) => e.params.n),
        Array.from({ length: count }, (_, i) => i),
      );
      assert.equal(events[0].sessionId, undefined, 'the client’s own browser session is its connection');
      assert.equal(events[count - 1].params.args[0].value.length, line.length);
      assert.deepEqual(JSON.parse(received[count]!), { id: 1, result: {} });
    } finally {
      ws.close();
    }
  });

  it('refuses what the firewall refuses with a CDP error naming the reason, and forwards nothing', async () => {
    const { ws, browser, received } = await connect();
    try {
      const reply = new Promise((resolve) =>
        ws.once('message', (data) => resolve(JSON.parse(data.toString()))),
      );
      ws.send(JSON.stringify({ id: 7, method: 'Browser.close', params: {} }));
      const answer = (await reply) as { id: number; error: { message: string } };
      assert.equal(answer.id, 7);
      assert.match(answer.error.message, /DELETE the session/);
      assert.equal(
        browser.commands.some((c) => c.method === 'Browser.close'),
        false,
      );
      assert.equal(received.length, 1);
    } finally {
      ws.close();
    }
  });

  it('closes a client that sends binary frames', async () => {
    const { ws } = await connect();
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    assert.equal(await closed, 1003);
  });
});

/**
 * The spool's file holds bytes once the relay starts spooling; the relay writes it
 * synchronously as each message arrives, so this polls the folder on the event loop's turns.
 */
async function waitForSpool(dir: string): Promise<number> {
  for (;;) {
    const sizes = fs
      .readdirSync(dir)
      .filter((name) => name.startsWith('relay-'))
      .map((name) => fs.statSync(path.join(dir, name)).size);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > 0) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
