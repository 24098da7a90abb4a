import WebSocket from 'ws';
import { limits } from '../limits.ts';
import { type FirewallScope, inspectClientMessage } from './cdp-firewall.ts';

export interface RelayHooks {
  /** A client sent a command: the session is in use. */
  onActivity(): void;
  onRefused(method: string, reason: string): void;
}

/**
 * Relay one client's CDP connection to the browser, message by message, through the
 * firewall. Each client gets its own upstream connection, so message ids never collide and a
 * client leaving (or reconnecting) touches nobody else; the session lives on until its ttl.
 */
export function relayCdp(client: WebSocket, endpoint: string, scope: FirewallScope, hooks: RelayHooks): void {
  // No Origin upstream: Chromium refuses DevTools connections from foreign origins.
  const upstream = new WebSocket(endpoint, {
    maxPayload: limits.cdpBrowserMessageBytes,
    perMessageDeflate: false,
  });
  const queued: string[] = [];
  const closeBoth = (code: number, reason: string) => {
    if (client.readyState === WebSocket.OPEN) client.close(code, reason);
    if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)
      upstream.terminate();
  };

  upstream.on('open', () => {
    for (const text of queued.splice(0)) upstream.send(text);
  });
  // A client that stops reading would have Quire queue the browser's output without end: stop
  // reading from the browser for it until it catches up (the browser then queues, and drops the
  // connection past its own cap).
  const resumeIfDrained = () => {
    if (upstream.isPaused && client.bufferedAmount <= limits.cdpClientBufferedBytes / 2) upstream.resume();
  };
  upstream.on('message', (data, isBinary) => {
    if (client.readyState !== WebSocket.OPEN) return;
    client.send(data, { binary: isBinary }, resumeIfDrained);
    if (client.bufferedAmount > limits.cdpClientBufferedBytes && !upstream.isPaused) upstream.pause();
  });
  upstream.on('close', () => closeBoth(1011, 'the browser closed the connection'));
  upstream.on('error', () => closeBoth(1011, 'the browser is not reachable'));

  client.on('message', (data, isBinary) => {
    if (isBinary) {
      closeBoth(1003, 'CDP messages are JSON text');
      return;
    }
    const verdict = inspectClientMessage(data.toString(), scope);
    switch (verdict.kind) {
      case 'invalid':
        closeBoth(1007, verdict.reason);
        return;
      case 'refuse':
        hooks.onRefused(verdict.method, verdict.reason);
        client.send(verdict.reply);
        return;
      case 'forward':
        hooks.onActivity();
        if (upstream.readyState === WebSocket.OPEN) upstream.send(verdict.text);
        else queued.push(verdict.text);
    }
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
