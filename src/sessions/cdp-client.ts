import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { limits } from '../limits.ts';

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/**
 * Quire's own CDP connection to a session's browser (target tracking, screencast, closing),
 * separate from the callers' relayed connections so neither sees the other's traffic.
 * Emits 'event' (CdpEvent) and 'close'.
 */
export class CdpClient extends EventEmitter {
  private readonly ws: WebSocket;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private constructor(ws: WebSocket) {
    super();
    this.ws = ws;
    ws.on('message', (data) => this.receive(data.toString()));
    ws.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('CDP connection closed'));
      this.pending.clear();
      this.emit('close');
    });
    ws.on('error', () => {});
  }

  static connect(endpoint: string): Promise<CdpClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(endpoint, {
        maxPayload: limits.cdpBrowserMessageBytes,
        perMessageDeflate: false,
      });
      ws.once('open', () => resolve(new CdpClient(ws)));
      ws.once('error', reject);
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    if (!this.open) return Promise.reject(new Error('CDP connection closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  close(): void {
    this.ws.close();
  }

  private receive(text: string): void {
    let message: {
      id?: number;
      result?: Record<string, unknown>;
      error?: { message?: string };
      method?: string;
      params?: Record<string, unknown>;
      sessionId?: string;
    };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.error) pending.reject(new Error(message.error.message ?? 'CDP error'));
      else pending.resolve(message.result ?? {});
    } else if (typeof message.method === 'string') {
      const event: CdpEvent = { method: message.method, params: message.params ?? {} };
      if (message.sessionId) event.sessionId = message.sessionId;
      this.emit('event', event);
    }
  }
}
