import { EventEmitter } from 'node:events';
import type { BrowserPipe, PipeSession } from './cdp-pipe.ts';

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
 * Quire's own CDP connection to a session's browser (target tracking, screencast, closing): a
 * browser session of its own on the pipe, separate from the callers' relayed ones so that
 * neither sees the other's traffic. Emits 'event' (CdpEvent) and 'close'.
 */
export class CdpClient extends EventEmitter {
  private session: PipeSession | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended = false;

  static async open(pipe: BrowserPipe): Promise<CdpClient> {
    const client = new CdpClient();
    client.session = await pipe.openSession({
      message: (text) => client.receive(text),
      closed: () => client.finish(),
    });
    return client;
  }

  get open(): boolean {
    return !this.ended;
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    if (this.ended || !this.session) return Promise.reject(new Error('CDP connection closed'));
    const id = this.nextId++;
    const session = this.session;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      session.send({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    });
  }

  close(): void {
    this.session?.close();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const p of this.pending.values()) p.reject(new Error('CDP connection closed'));
    this.pending.clear();
    this.emit('close');
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
