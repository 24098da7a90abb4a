import type { Readable, Writable } from 'node:stream';
import { limits } from '../limits.ts';

/** A CDP command as a client sends it (ids are the client's own). */
export interface CdpCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

/** What a PipeSession hands back: replies and events, as text in the client's id space. */
export interface PipeSessionHooks {
  message(text: string): void;
  /** The browser went away or detached this session; nothing more will come. */
  closed(): void;
}

interface Call {
  /** Undefined for the pipe's own calls (the root connection). */
  owner: PipeSession | undefined;
  localId: number;
  method: string;
  settle?: (reply: Reply) => void;
}

interface Reply {
  result?: Record<string, unknown>;
  error?: { message?: string };
}

/** A command whose reply creates a session that the caller then owns. */
const attaching = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);

/**
 * The browser's one CDP connection, over --remote-debugging-pipe (Quire writes commands to its
 * fd 3, reads replies and events from its fd 4, each message ended by a NUL byte), so that no
 * port on the host leads to the browser: only Quire can drive it, through the relay's checks.
 *
 * Several clients share the pipe as they shared the browser's port: each PipeSession is a
 * browser session of its own (Target.attachToBrowserTarget), which Chromium treats like a
 * separate DevTools connection (its own auto-attach, discovery, targets attached). Ids are
 * renumbered across the pipe and mapped back; replies and events go to the PipeSession owning
 * the CDP session they name (its browser session or one attached through it).
 */
export class BrowserPipe {
  private readonly input: Writable;
  private readonly calls = new Map<number, Call>();
  /** CDP session id -> the PipeSession it belongs to. */
  private readonly owners = new Map<string, PipeSession>();
  private readonly open = new Set<PipeSession>();
  private nextId = 1;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(input: Writable, output: Readable) {
    this.input = input;
    // A browser that exits closes its ends; writes after that must not throw.
    input.on('error', () => this.end());
    output.on('error', () => this.end());
    output.on('close', () => this.end());
    output.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  get closed(): boolean {
    return this.ended;
  }

  /** A command on the root connection, for Quire itself (start-up check, version). */
  call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      if (this.ended) {
        reject(new Error('the browser pipe is closed'));
        return;
      }
      this.write(undefined, { id: 0, method, params }, undefined, (reply) => {
        if (reply.error) reject(new Error(reply.error.message ?? 'CDP error'));
        else resolve(reply.result ?? {});
      });
    });
  }

  /** A browser session of its own for one client. */
  async openSession(hooks: PipeSessionHooks): Promise<PipeSession> {
    const { sessionId } = await this.call('Target.attachToBrowserTarget');
    const session = new PipeSession(this, String(sessionId), hooks);
    if (this.ended) {
      hooks.closed();
      return session;
    }
    this.owners.set(session.browserSessionId, session);
    this.open.add(session);
    return session;
  }

  /** @internal A client's command, sent under a pipe-wide id. */
  sendFor(session: PipeSession, command: CdpCommand): void {
    const sessionId = command.sessionId ?? session.browserSessionId;
    if (this.owners.get(sessionId) !== session || !this.ownsParams(session, command)) {
      // Chromium's own answer to an unknown session: another client's sessions are not visible.
      session.hooks.message(
        JSON.stringify({
          id: command.id,
          error: { code: -32001, message: 'Session with given id not found.' },
        }),
      );
      return;
    }
    this.write(session, command, sessionId);
  }

  /** @internal Forget a session and everything attached through it; detach it in the browser. */
  closeSession(session: PipeSession): void {
    if (!this.open.delete(session)) return;
    for (const [id, owner] of this.owners) if (owner === session) this.owners.delete(id);
    for (const [id, call] of this.calls) if (call.owner === session) this.calls.delete(id);
    if (!this.ended)
      this.call('Target.detachFromTarget', { sessionId: session.browserSessionId }).catch(() => {});
  }

  /** Detaching is the one command whose parameter names a session: it must be the client's own. */
  private ownsParams(session: PipeSession, command: CdpCommand): boolean {
    if (command.method !== 'Target.detachFromTarget') return true;
    const target = command.params?.sessionId;
    return (
      target === undefined ||
      (this.owners.get(String(target)) === session && target !== session.browserSessionId)
    );
  }

  private write(
    owner: PipeSession | undefined,
    command: CdpCommand,
    sessionId: string | undefined,
    settle?: (reply: Reply) => void,
  ): void {
    if (this.ended) return;
    const id = this.nextId++;
    this.calls.set(id, { owner, localId: command.id, method: command.method, settle });
    const message: CdpCommand = { ...command, id };
    if (sessionId) message.sessionId = sessionId;
    else delete message.sessionId;
    this.input.write(`${JSON.stringify(message)}\0`);
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (let nul = chunk.indexOf(0); nul !== -1; nul = chunk.indexOf(0, start)) {
      this.pending.push(chunk.subarray(start, nul));
      const text = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      start = nul + 1;
      this.route(text);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      // Chromium caps its own messages at this size: past it the stream is not CDP any more.
      if (this.pendingBytes > limits.cdpBrowserMessageBytes) {
        this.input.destroy();
        this.end();
      }
    }
  }

  /**
   * Route one message from the browser. Chromium writes `{"id":N,` first and a session's
   * `,"sessionId":"…"}` last, so both are read and rewritten on the text: a screenshot of tens of
   * MB is not parsed and serialised again. Messages that change who owns which session
   * (attachments) are parsed.
   */
  private route(text: string): void {
    const head = /^\{"(id|method)":(?:(\d+)|"([^"]+)"),/.exec(text.slice(0, 200));
    if (!head) return;
    const tail = /,"sessionId":"([^"]+)"\}$/.exec(text.slice(-120));
    const sessionId = tail?.[1];
    if (head[1] === 'id') {
      const call = this.calls.get(Number(head[2]));
      if (!call) return;
      this.calls.delete(Number(head[2]));
      if (call.settle) {
        call.settle(JSON.parse(text) as Reply);
        return;
      }
      const owner = call.owner!;
      if (attaching.has(call.method)) {
        const created = (JSON.parse(text) as Reply).result?.sessionId;
        if (typeof created === 'string') this.owners.set(created, owner);
      }
      const body = text.slice(head[0].length);
      owner.hooks.message(this.unscoped(`{"id":${call.localId},${body}`, owner, sessionId));
      return;
    }
    const method = head[3];
    if (sessionId === undefined) {
      // Root events: one of the client sessions was detached by the browser itself.
      if (method === 'Target.detachedFromTarget') {
        const detached = String((JSON.parse(text) as { params?: { sessionId?: unknown } }).params?.sessionId);
        const gone = this.owners.get(detached);
        if (gone?.browserSessionId === detached) {
          this.closeSession(gone);
          gone.hooks.closed();
        }
      }
      return;
    }
    const owner = this.owners.get(sessionId);
    if (!owner) return;
    if (method === 'Target.attachedToTarget' || method === 'Target.detachedFromTarget') {
      const child = (JSON.parse(text) as { params?: { sessionId?: unknown } }).params?.sessionId;
      if (typeof child === 'string') {
        if (method === 'Target.attachedToTarget') this.owners.set(child, owner);
        else this.owners.delete(child);
      }
    }
    owner.hooks.message(this.unscoped(text, owner, sessionId));
  }

  /** A client sees its browser session as its connection: that session id is taken off. */
  private unscoped(text: string, owner: PipeSession, sessionId: string | undefined): string {
    if (sessionId !== owner.browserSessionId) return text;
    return `${text.slice(0, text.length - `,"sessionId":"${sessionId}"}`.length)}}`;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const call of this.calls.values()) call.settle?.({ error: { message: 'the browser pipe closed' } });
    this.calls.clear();
    const sessions = [...this.open];
    this.open.clear();
    this.owners.clear();
    for (const session of sessions) session.hooks.closed();
  }
}

/** One client's browser session over the pipe, as if it had a connection of its own. */
export class PipeSession {
  readonly browserSessionId: string;
  /** @internal */
  readonly hooks: PipeSessionHooks;
  private readonly pipe: BrowserPipe;

  constructor(pipe: BrowserPipe, browserSessionId: string, hooks: PipeSessionHooks) {
    this.pipe = pipe;
    this.browserSessionId = browserSessionId;
    this.hooks = hooks;
  }

  send(command: CdpCommand): void {
    this.pipe.sendFor(this, command);
  }

  close(): void {
    this.pipe.closeSession(this);
  }
}
