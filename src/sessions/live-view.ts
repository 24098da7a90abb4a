import WebSocket from 'ws';
import { z } from 'zod';
import { limits } from '../limits.ts';
import type { CdpClient, CdpEvent } from './cdp-client.ts';
import { keepAlive } from './cdp-relay.ts';
import { realTimers, type SessionTimers } from './session-clock.ts';

const modifiers = z.number().int().min(0).max(15).default(0);
const coordinate = z.number().finite().min(-100_000).max(100_000);

/** What a viewer page may send; input kinds only take effect for interactive viewers. */
const viewerMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('mouse'),
    event: z.enum(['mousePressed', 'mouseReleased', 'mouseMoved']),
    x: coordinate,
    y: coordinate,
    button: z.enum(['none', 'left', 'middle', 'right']).default('none'),
    clickCount: z.number().int().min(0).max(3).default(0),
    modifiers,
  }),
  z.object({
    type: z.literal('wheel'),
    x: coordinate,
    y: coordinate,
    deltaX: coordinate,
    deltaY: coordinate,
    modifiers,
  }),
  z.object({
    type: z.literal('key'),
    event: z.enum(['down', 'up']),
    key: z.string().max(32),
    code: z.string().max(32),
    text: z.string().max(4).optional(),
    keyCode: z.number().int().min(0).max(255).default(0),
    modifiers,
  }),
  z.object({ type: z.literal('paste'), text: z.string().max(limits.livePasteChars) }),
  z.object({ type: z.literal('tab'), targetId: z.string().max(64) }),
]);
type ViewerMessage = z.infer<typeof viewerMessage>;

interface Viewer {
  socket: WebSocket;
  interactive: boolean;
}

interface PageTarget {
  id: string;
  url: string;
  title: string;
}

/**
 * The live view of one session: one screencast of the followed tab (the newest one unless an
 * interactive viewer picks another), fanned out to every viewer. Input from interactive
 * viewers becomes Input.* commands; read-only viewers' input is dropped here, on the server.
 */
export class LiveView {
  private readonly cdp: CdpClient;
  private readonly onActivity: () => void;
  private readonly viewers = new Set<Viewer>();
  /** Page targets in creation order; the last is the newest. */
  private readonly pages = new Map<string, PageTarget>();
  private followed: { targetId: string; sessionId: string } | undefined;
  private switching: Promise<void> = Promise.resolve();
  private lastFrame: string | undefined;
  private readonly timers: SessionTimers;
  private stopActivity: (() => void) | undefined;

  /** `timers`: the session's clock, on which a viewer's keep-alive counts. */
  constructor(cdp: CdpClient, onActivity: () => void, timers: SessionTimers = realTimers) {
    this.cdp = cdp;
    this.onActivity = onActivity;
    this.timers = timers;
    cdp.on('event', (event: CdpEvent) => this.onEvent(event));
  }

  /** Start tracking tabs; called once the browser is up. */
  async start(): Promise<void> {
    await this.cdp.send('Target.setDiscoverTargets', { discover: true });
  }

  add(socket: WebSocket, interactive: boolean): void {
    const viewer = { socket, interactive };
    this.viewers.add(viewer);
    keepAlive(socket);
    send(socket, { type: 'mode', interactive });
    send(socket, this.tabsMessage());
    if (this.lastFrame) socket.send(this.lastFrame);
    if (this.viewers.size === 1) {
      this.follow(this.newestPage());
      // An open viewer keeps the session alive, as someone is watching it.
      this.stopActivity = this.timers.every(limits.activityFlushMs, this.onActivity);
      this.onActivity();
    }
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.onViewerMessage(viewer, data.toString());
    });
    // ws reports a peer's protocol error (bad UTF-8, an oversized message) as 'error' and closes
    // the socket itself; unheard, the error would end the process.
    socket.on('error', () => {});
    socket.once('close', () => {
      this.viewers.delete(viewer);
      if (this.viewers.size === 0) {
        this.stopActivity?.();
        this.follow(undefined);
      }
    });
  }

  /** Tell every viewer the session ended and close their sockets. */
  end(reason: string): void {
    this.stopActivity?.();
    for (const { socket } of this.viewers) {
      send(socket, { type: 'ended', reason });
      socket.close(1000, 'session ended');
    }
    this.viewers.clear();
  }

  private newestPage(): string | undefined {
    return [...this.pages.keys()].at(-1);
  }

  /** Move the screencast to another tab (or stop it), one switch at a time. */
  private follow(targetId: string | undefined): void {
    this.switching = this.switching.then(async () => {
      const wanted = this.viewers.size > 0 ? targetId : undefined;
      if (this.followed?.targetId === wanted) return;
      const previous = this.followed;
      this.followed = undefined;
      this.lastFrame = undefined;
      if (previous) {
        await this.cdp.send('Page.stopScreencast', {}, previous.sessionId).catch(() => {});
        await this.cdp.send('Target.detachFromTarget', { sessionId: previous.sessionId }).catch(() => {});
      }
      if (wanted === undefined || !this.cdp.open) return;
      try {
        const { sessionId } = (await this.cdp.send('Target.attachToTarget', {
          targetId: wanted,
          flatten: true,
        })) as {
          sessionId: string;
        };
        this.followed = { targetId: wanted, sessionId };
        await this.cdp.send(
          'Page.startScreencast',
          {
            format: 'jpeg',
            quality: limits.screencastQuality,
            maxWidth: limits.screencastMaxWidth,
            maxHeight: limits.screencastMaxHeight,
          },
          sessionId,
        );
      } catch {
        // The tab went away meanwhile; target events will pick the next one.
      }
      this.broadcast(this.tabsMessage());
    });
  }

  private onEvent(event: CdpEvent): void {
    const p = event.params;
    switch (event.method) {
      case 'Page.screencastFrame': {
        if (!this.followed || event.sessionId !== this.followed.sessionId) return;
        // Without the ack Chromium sends no further frames.
        this.cdp.send('Page.screencastFrameAck', { sessionId: p.sessionId }, event.sessionId).catch(() => {});
        this.lastFrame = JSON.stringify({ type: 'frame', data: p.data, metadata: p.metadata });
        for (const { socket } of this.viewers) {
          if (socket.bufferedAmount < limits.viewerBufferedBytes) socket.send(this.lastFrame);
        }
        return;
      }
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged': {
        const info = p.targetInfo as { targetId: string; type: string; url: string; title: string };
        if (info.type !== 'page') return;
        const known = this.pages.has(info.targetId);
        this.pages.set(info.targetId, { id: info.targetId, url: info.url, title: info.title });
        if (!known && this.viewers.size > 0) this.follow(info.targetId);
        else this.broadcast(this.tabsMessage());
        return;
      }
      case 'Target.targetDestroyed': {
        const targetId = p.targetId as string;
        if (!this.pages.delete(targetId)) return;
        if (this.followed?.targetId === targetId) this.follow(this.newestPage());
        else this.broadcast(this.tabsMessage());
        return;
      }
      case 'Target.targetCrashed':
        if (p.targetId === this.followed?.targetId) this.broadcast({ type: 'crashed' });
        return;
    }
  }

  private onViewerMessage(viewer: Viewer, text: string): void {
    let message: ViewerMessage;
    try {
      const parsed = viewerMessage.safeParse(JSON.parse(text));
      if (!parsed.success) {
        send(viewer.socket, { type: 'error', message: 'unknown or malformed viewer message' });
        return;
      }
      message = parsed.data;
    } catch {
      return;
    }
    if (!viewer.interactive) {
      send(viewer.socket, { type: 'error', message: 'this live view is read-only' });
      return;
    }
    this.onActivity();
    if (message.type === 'tab') {
      if (this.pages.has(message.targetId)) this.follow(message.targetId);
      return;
    }
    const sessionId = this.followed?.sessionId;
    if (!sessionId) return;
    const [method, params] = inputCommand(message);
    this.cdp.send(method, params, sessionId).catch(() => {});
  }

  private tabsMessage(): Record<string, unknown> {
    return {
      type: 'tabs',
      tabs: [...this.pages.values()].map((t) => ({ ...t, followed: t.id === this.followed?.targetId })),
    };
  }

  private broadcast(message: Record<string, unknown>): void {
    for (const { socket } of this.viewers) send(socket, message);
  }
}

function inputCommand(message: Exclude<ViewerMessage, { type: 'tab' }>): [string, Record<string, unknown>] {
  switch (message.type) {
    case 'mouse':
      return [
        'Input.dispatchMouseEvent',
        {
          type: message.event,
          x: message.x,
          y: message.y,
          button: message.button,
          clickCount: message.clickCount,
          modifiers: message.modifiers,
        },
      ];
    case 'wheel':
      return [
        'Input.dispatchMouseEvent',
        {
          type: 'mouseWheel',
          x: message.x,
          y: message.y,
          deltaX: message.deltaX,
          deltaY: message.deltaY,
          modifiers: message.modifiers,
        },
      ];
    case 'key':
      return [
        'Input.dispatchKeyEvent',
        {
          type: message.event === 'up' ? 'keyUp' : message.text ? 'keyDown' : 'rawKeyDown',
          key: message.key,
          code: message.code,
          windowsVirtualKeyCode: message.keyCode,
          modifiers: message.modifiers,
          ...(message.event === 'down' && message.text
            ? { text: message.text, unmodifiedText: message.text }
            : {}),
        },
      ];
    case 'paste':
      return ['Input.insertText', { text: message.text }];
  }
}

function send(socket: WebSocket, message: Record<string, unknown>): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}
