import { randomUUID } from 'node:crypto';
import path from 'node:path';
import WebSocket from 'ws';
import { limits } from '../limits.ts';
import { type FirewallScope, inspectClientMessage } from './cdp-firewall.ts';
import type { BrowserPipe, PipeSession } from './cdp-pipe.ts';
import { RelaySpool } from './relay-spool.ts';

export interface RelayHooks {
  /** A client sent a command: the session is in use. */
  onActivity(): void;
  onRefused(method: string, reason: string): void;
}

/**
 * Relay one client's CDP connection to the browser, message by message, through the
 * firewall. Each client gets a browser session of its own on the browser's pipe, so message ids
 * never collide and a client leaving (or reconnecting) touches nobody else; the session lives
 * on until its ttl. `spoolDir` (in the session's folder) holds what a slow client has not read.
 */
export function relayCdp(
  client: WebSocket,
  pipe: BrowserPipe,
  scope: FirewallScope,
  spoolDir: string,
  hooks: RelayHooks,
): void {
  let upstream: PipeSession | undefined;
  let closed = false;
  const queued: string[] = [];
  const spool = new RelaySpool(path.join(spoolDir, `relay-${randomUUID()}`));
  let spooling = false;
  const closeBoth = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    if (client.readyState === WebSocket.OPEN) client.close(code, reason);
    upstream?.close();
    spool.close();
  };

  // A client that stops reading would have Quire hold the browser's output without end: past
  // cdpClientBufferedBytes its messages wait in the spool (on disk, in the session's folder)
  // and are sent, in order, as it catches up.
  const drain = () => {
    while (spooling && !closed && client.bufferedAmount <= limits.cdpClientBufferedBytes / 2) {
      const next = spool.shift();
      if (next === undefined) {
        spooling = false;
        return;
      }
      client.send(next, drain);
    }
  };
  const toClient = (text: string) => {
    if (closed || client.readyState !== WebSocket.OPEN) return;
    if (spooling || client.bufferedAmount > limits.cdpClientBufferedBytes) {
      spooling = true;
      try {
        spool.push(text);
      } catch {
        closeBoth(1011, 'the client does not read, and its session has no disk left to hold what it missed');
      }
      return;
    }
    client.send(text, drain);
  };

  pipe
    .openSession({
      message: toClient,
      closed: () => closeBoth(1011, 'the browser closed the connection'),
    })
    .then((session) => {
      if (closed) {
        session.close();
        return;
      }
      upstream = session;
      for (const text of queued.splice(0)) forward(text);
    })
    .catch(() => closeBoth(1011, 'the browser is not reachable'));

  const forward = (text: string) => {
    const verdict = inspectClientMessage(text, scope);
    switch (verdict.kind) {
      case 'invalid':
        closeBoth(1007, verdict.reason);
        return;
      case 'refuse':
        hooks.onRefused(verdict.method, verdict.reason);
        toClient(verdict.reply);
        return;
      case 'forward':
        hooks.onActivity();
        upstream!.send(verdict.command);
    }
  };
  client.on('message', (data, isBinary) => {
    if (isBinary) {
      closeBoth(1003, 'CDP messages are JSON text');
      return;
    }
    if (upstream) forward(data.toString());
    else queued.push(data.toString());
  });
  client.on('close', () => closeBoth(1000, 'client left'));
  client.on('error', () => closeBoth(1011, 'client error'));
  keepAlive(client);
}

/** Ping a socket so idle intermediaries keep it; a peer that stops answering is dropped. */
export function keepAlive(socket: WebSocket): void {
  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const timer = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, limits.socketPingMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}
