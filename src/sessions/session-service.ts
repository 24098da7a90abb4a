import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import { Slots } from '../quota/slots.ts';
import type { KeyOwner, SessionRecord, SessionStatus, Store } from '../store/store.ts';
import { Admission } from './admission.ts';
import { BrowserProcess, killGroup } from './browser-process.ts';
import { CdpClient, type CdpEvent } from './cdp-client.ts';
import type { FirewallScope } from './cdp-firewall.ts';
import { relayCdp } from './cdp-relay.ts';
import { ClusterNodes, nodeUrl } from './cluster-nodes.ts';
import { EgressProxy } from './egress-proxy.ts';
import { type ExecuteResult, runExecute } from './execute.ts';
import { leftoverProcesses, singletonFolder } from './leftovers.ts';
import { LiveView } from './live-view.ts';
import { NetPolicy } from './net-policy.ts';
import { ForwardAuth, HOP_HEADER, pipeUpgrade } from './node-forward.ts';
import { Profiles } from './profiles.ts';
import { hostCgroups, ResourceWatchdog } from './resource-watchdog.ts';
import { realTimers, SessionClock, type SessionTimers } from './session-clock.ts';
import { matchToken, SessionTokens, type TokenScope, UUID, uuidv7 } from './tokens.ts';

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where callers reach Quire, for the URLs handed out: http(s) and ws(s) forms. */
export interface PublicBase {
  http: string;
  ws: string;
}

export interface CreateInput {
  ttl: number;
  activityTtl: number;
  streamWebView: boolean;
  profile?: { name: string; saveChanges: boolean } | undefined;
}

export interface SessionUrls {
  cdpUrl: string;
  liveViewUrl: string;
  interactiveLiveViewUrl: string;
}

/** A list item: exactly the contract's fields. */
export interface SessionView extends SessionUrls {
  id: string;
  status: SessionStatus;
  streamWebView: boolean;
  createdAt: string;
  lastActivity: string;
}

/** One session this node holds. */
interface Held {
  record: SessionRecord;
  dir: string;
  scope: FirewallScope;
  /** Settles once the browser is up (or failed to come up). */
  ready: Promise<void>;
  browser: BrowserProcess | undefined;
  cdp: CdpClient | undefined;
  live: LiveView | undefined;
  clock: SessionClock;
  sockets: Set<WebSocket>;
  executions: Set<() => void>;
  /** Stops the resource watchdog looking at this session. */
  unwatch: () => void;
  /** It went over its disk cap: its profile is not saved, whatever size it has now. */
  overDisk: boolean;
  /** Chromium's singleton folder in the host's TMPDIR, removed with the session (see leftovers.ts). */
  singletonFolder: string | undefined;
  ending: Promise<void> | undefined;
}

/** Another node of the cluster that holds a session, and where to reach it. */
export interface RemoteNode {
  nodeId: string;
  url: string;
}

/**
 * Where a request for a session is answered: here (held here, ended, or not in a cluster), on
 * the live node that holds it, or nowhere for now (its node's entry has lapsed: it is gone, and
 * its sessions are marked destroyed shortly, or it is cut off from Redis for a moment).
 */
export type Location =
  | { at: 'here' }
  | { at: 'node'; node: RemoteNode }
  | { at: 'unreachable'; nodeId: string };

/** What a session token opens: a session held here, or the node to hand the request to. */
type Access = { held: Held; scope: TokenScope; remote?: undefined } | { remote: RemoteNode };

const notFound = () => new ApiError(404, undefined, 'Browser session not found.');
const gone = () => new ApiError(410, undefined, 'Browser session has been destroyed.');

/** Schemes a tab may show; anything else got past the relay somehow and is closed. */
const tabSchemes = /^(https?|data|blob|about|chrome-error):/;

/**
 * Interact sessions on this node: one Chromium process group and folder per session, started
 * once Admission lets it and ended by its SessionClock (ttl, activityTtl), a DELETE, a crash or
 * shutdown; the CDP relay and live view sockets its tokens open, execute, and clean-up after a
 * crashed run.
 */
export class SessionService {
  private readonly store: Store;
  private readonly config: Config;
  private readonly tokens: SessionTokens;
  private readonly policy: NetPolicy;
  private readonly proxy: EgressProxy;
  private readonly profiles: Profiles;
  private readonly runRoot: string;
  private readonly held = new Map<string, Held>();
  private readonly admission: Admission;
  /**
   * Browsers starting at once: they start at low priority, and on a busy machine many starting
   * together share what CPU is left so thinly that all could run past their start deadline; in
   * line, each gets its share and the wait is not counted against it.
   */
  private readonly launchSlots = new Slots(limits.sessionLaunches);
  private readonly watchdog: ResourceWatchdog;
  private readonly cdpSockets = new WebSocketServer({
    noServer: true,
    maxPayload: limits.cdpClientMessageBytes,
    perMessageDeflate: false,
  });
  private readonly viewerSockets = new WebSocketServer({
    noServer: true,
    maxPayload: limits.viewerMessageBytes,
    perMessageDeflate: false,
  });
  private proxyPort = 0;
  private log: Logger;
  private closed = false;
  /** In a cluster (Redis): the registry of the nodes that hold sessions, and their trust. */
  private readonly nodes: ClusterNodes | undefined;
  private readonly forwarding: ForwardAuth | undefined;
  /** The clock sessions' times (created, expires, last activity, closed) and timeouts run on. */
  private readonly timers: SessionTimers;

  /**
   * Logs go to the HTTP server's logger, handed over by useLogger once it exists. `cluster`: the
   * cluster's Redis, where this node registers so that requests for its sessions reach it.
   */
  constructor(
    store: Store,
    config: Config,
    cluster?: { redis: Redis; prefix: string },
    timers: SessionTimers = realTimers,
  ) {
    this.store = store;
    this.config = config;
    this.timers = timers;
    this.admission = new Admission(config);
    this.watchdog = new ResourceWatchdog({
      memoryMb: config.QUIRE_SESSION_MEMORY_MB,
      diskMb: config.QUIRE_SESSION_DISK_MB,
      processes: limits.sessionProcesses,
    });
    this.log = { info() {}, warn() {}, error() {} };
    this.tokens = SessionTokens.load(config.QUIRE_SESSION_SECRET, config.QUIRE_DATA_DIR);
    this.policy = new NetPolicy(
      config.QUIRE_SESSIONS_ALLOWED_HOSTS.split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    );
    this.proxy = new EgressProxy(this.policy);
    const root = path.join(config.QUIRE_DATA_DIR, 'sessions');
    this.runRoot = path.join(root, 'run');
    this.profiles = new Profiles(path.join(root, 'profiles'));
    if (cluster) {
      this.forwarding = new ForwardAuth(
        this.tokens.derive('cluster forwarding'),
        cluster.redis,
        cluster.prefix,
      );
      this.nodes = new ClusterNodes(
        cluster.redis,
        cluster.prefix,
        config.QUIRE_NODE_ID,
        this.forwarding.keyId,
      );
    }
  }

  /** Clean up after a previous run and open the egress proxy; before the server listens. */
  async start(): Promise<void> {
    // The node id first: another live process using it would lose its sessions to the clean-up.
    await this.nodes?.claim(() => this.clusterBeat());
    if (this.nodes && this.config.QUIRE_SESSION_SECRET === '') {
      this.log.warn(
        {},
        "cluster mode without QUIRE_SESSION_SECRET: set the same one on every API process, or lists show other nodes' sessions with URLs that do not open them and requests for them are not forwarded",
      );
    }
    await this.cleanUpLeftovers();
    this.proxyPort = await this.proxy.listen();
    this.log.info(
      {
        enforcedBy: 'a /proc and du watchdog (no cgroup per session)',
        hostCgroups: hostCgroups(),
        memoryMb: this.config.QUIRE_SESSION_MEMORY_MB,
        diskMb: this.config.QUIRE_SESSION_DISK_MB,
        processes: limits.sessionProcesses,
        nice: limits.sessionNice,
      },
      'session limits',
    );
  }

  useLogger(log: Logger): void {
    this.log = log;
    this.nodes?.useLogger(log);
  }

  /** The server listens on `port`: in a cluster, publish where the other nodes reach this one. */
  async listening(port: number): Promise<void> {
    await this.nodes?.publish(nodeUrl(this.config.QUIRE_NODE_URL, this.config.HOST, port));
  }

  // ---------------------------------------------------------------- start-up

  /**
   * A previous run that stopped without ending its sessions (crash, kill -9) left browsers,
   * execute processes and folders behind: kill them (found by their session folder on the
   * command line, which only our launches have, never by name), mark their sessions destroyed
   * and remove the folders.
   */
  private async cleanUpLeftovers(): Promise<void> {
    fs.mkdirSync(this.runRoot, { recursive: true });
    this.profiles.recover();
    const killed = leftoverProcesses(this.runRoot);
    for (const pid of killed) killGroup(pid);
    const now = new Date().toISOString();
    for (const record of await this.store.listActiveSessions(this.config.QUIRE_NODE_ID)) {
      await this.store.markSessionDestroyed(record.id, now, 'the server restarted while the session ran');
    }
    for (const entry of fs.readdirSync(this.runRoot)) {
      fs.rmSync(path.join(this.runRoot, entry), { recursive: true, force: true });
    }
    if (killed.length > 0) this.log.warn({ pids: killed }, 'killed processes left by a previous run');
  }

  // ---------------------------------------------------------------- create

  async create(
    team: string,
    input: CreateInput,
    base: PublicBase,
  ): Promise<SessionUrls & { id: string; expiresAt: string }> {
    if (this.closed) throw new ApiError(503, undefined, 'The server is shutting down.');
    // Not before the other nodes can reach it: a session of an unregistered node counts as lost.
    await this.nodes?.published;
    const teamHeld = [...this.held.values()].filter((h) => h.record.team === team && !h.ending).length;
    const release = this.admission.admit(team, { node: this.held.size, team: teamHeld });
    let held: Held;
    try {
      held = await this.register(team, input);
    } finally {
      release();
    }
    const { id } = held.record;
    try {
      await held.ready;
    } catch (error) {
      this.log.error({ err: error, sessionId: id }, 'browser did not start');
      await this.end(held, `the browser did not start: ${(error as Error).message}`);
      throw new ApiError(
        502,
        undefined,
        `The browser for this session did not start: ${(error as Error).message}`,
      );
    }
    // Idle from now, when the caller gets the session: a create that waited its turn to launch
    // (at most four browsers start at once) or launched on a loaded machine could otherwise take
    // longer than activityTtl, and the session would end before its caller could use it.
    held.clock.touch();
    held.clock.start();
    return { id, ...this.urls(id, base), expiresAt: held.record.expiresAt };
  }

  /** Record the session (the store decides the profile's one writer) and hold it. */
  private async register(team: string, input: CreateInput): Promise<Held> {
    const id = uuidv7();
    const now = new Date(this.timers.now());
    const record: SessionRecord = {
      id,
      team,
      status: 'active',
      createdAt: now.toISOString(),
      lastActivity: now.toISOString(),
      expiresAt: new Date(now.getTime() + input.ttl * 1000).toISOString(),
      ttlS: input.ttl,
      activityTtlS: input.activityTtl,
      streamWebView: input.streamWebView,
      profileName: input.profile?.name ?? null,
      profileWriter: input.profile?.saveChanges ?? false,
      nodeId: this.config.QUIRE_NODE_ID,
      pid: null,
      closedAt: null,
      closeReason: null,
    };
    if (!(await this.store.insertSession(record, this.tokens.hashes(id)))) {
      throw new ApiError(
        409,
        undefined,
        `Profile "${input.profile?.name}" already has an active session saving changes to it; use saveChanges: false to open it read-only, or wait until that session ends.`,
      );
    }
    const dir = path.join(this.runRoot, id);
    const held: Held = {
      record,
      dir,
      scope: {
        policy: this.policy,
        downloadsDir: path.join(dir, 'downloads'),
        uploadsDir: path.join(dir, 'uploads'),
      },
      ready: Promise.resolve(),
      browser: undefined,
      cdp: undefined,
      live: undefined,
      clock: new SessionClock(
        record,
        {
          expire: (reason) => void this.end(held, reason),
          flush: () =>
            this.store
              .touchSession(id, record.lastActivity)
              .catch((err: unknown) => this.log.error({ err }, 'session activity not recorded')),
        },
        this.timers,
      ),
      sockets: new Set(),
      executions: new Set(),
      unwatch: () => {},
      overDisk: false,
      singletonFolder: undefined,
      ending: undefined,
    };
    this.held.set(id, held);
    held.ready = this.launch(held);
    return held;
  }

  private async launch(held: Held): Promise<void> {
    const { record, scope } = held;
    const userDataDir = path.join(held.dir, 'profile');
    const homeDir = path.join(held.dir, 'home');
    for (const dir of [userDataDir, homeDir, scope.downloadsDir, scope.uploadsDir]) {
      await fs.promises.mkdir(dir, { recursive: true });
    }
    if (record.profileName) await this.profiles.restore(record.team, record.profileName, userDataDir);
    const free = await this.launchSlots.acquire();
    let browser: BrowserProcess;
    try {
      browser = await BrowserProcess.launch({
        executable: this.config.QUIRE_CHROMIUM_PATH,
        userDataDir,
        proxyPort: this.proxyPort,
        homeDir,
        memoryMb: this.config.QUIRE_SESSION_MEMORY_MB,
      });
    } finally {
      free();
    }
    held.browser = browser;
    // Read now: a browser that is killed while it shuts down may have removed its link already.
    held.singletonFolder = await singletonFolder(userDataDir);
    record.pid = browser.pid;
    held.unwatch = this.watchdog.watch({
      pgid: browser.pid,
      dir: held.dir,
      over: (reason, cap) => {
        this.log.warn({ sessionId: record.id, reason }, 'session over its limits');
        held.overDisk = cap === 'diskMb';
        void this.end(held, reason);
      },
    });
    void browser.exited.then((exit) => {
      if (held.ending) return;
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      this.log.warn({ sessionId: record.id, ...exit }, 'browser exited unexpectedly');
      void this.end(held, `the browser exited unexpectedly (${how})`);
    });
    await this.store.setSessionPid(record.id, browser.pid);
    const cdp = await CdpClient.open(browser.pipe);
    held.cdp = cdp;
    cdp.on('event', (event: CdpEvent) => this.watchTabs(held, event));
    held.live = new LiveView(cdp, () => held.clock.touch(), this.timers);
    await held.live.start();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: scope.downloadsDir });
  }

  /** A tab showing a scheme the relay refuses got there some other way: close it. */
  private watchTabs(held: Held, event: CdpEvent): void {
    if (event.method !== 'Target.targetCreated' && event.method !== 'Target.targetInfoChanged') return;
    const info = event.params.targetInfo as { targetId: string; type: string; url: string };
    if ((info.type !== 'page' && info.type !== 'iframe') || info.url === '' || tabSchemes.test(info.url))
      return;
    this.log.warn(
      { sessionId: held.record.id, url: info.url.slice(0, 200) },
      'closed a tab with a refused URL',
    );
    held.cdp?.send('Target.closeTarget', { targetId: info.targetId }).catch(() => {});
  }

  // ---------------------------------------------------------------- end

  /**
   * End a held session once: close its sockets and executions, let the browser close (so it
   * flushes cookies), kill its process group, save its profile if it is the writer, remove its
   * folder and mark it destroyed.
   */
  private end(held: Held, reason: string): Promise<void> {
    held.ending ??= (async () => {
      const { record } = held;
      let closeReason = reason;
      try {
        held.clock.stop();
        held.unwatch();
        held.live?.end(reason);
        for (const socket of held.sockets) socket.close(1000, 'session destroyed');
        for (const kill of held.executions) kill();
        await held.ready.catch(() => {});
        const { browser, cdp } = held;
        if (browser) {
          await browser.close(
            () => cdp?.send('Browser.close') ?? Promise.resolve(),
            limits.browserCloseGraceMs,
          );
        }
        cdp?.close();
        if (browser && record.profileName && record.profileWriter && held.overDisk) {
          closeReason = `${reason}; its profile "${record.profileName}" was not saved: the session went over its disk cap`;
        } else if (browser && record.profileName && record.profileWriter) {
          const capMb = this.config.QUIRE_SESSION_DISK_MB;
          const saved = await this.profiles.save(
            record.team,
            record.profileName,
            path.join(held.dir, 'profile'),
            capMb * 2 ** 20,
          );
          if (!saved.saved) {
            // The caller learns it from the session's closeReason; the saved profile stays as it was.
            closeReason = `${reason}; its profile "${record.profileName}" was not saved: it took ${Math.round(saved.bytes / 2 ** 20)} MB, over the cap of ${capMb} MB`;
            this.log.warn({ sessionId: record.id, bytes: saved.bytes }, 'profile over its cap, not saved');
          }
        }
      } catch (err) {
        this.log.error({ err, sessionId: record.id }, 'session did not end cleanly');
      }
      // Whatever failed above, the folder goes and the session is recorded as ended.
      if (held.singletonFolder)
        await fs.promises.rm(held.singletonFolder, { recursive: true, force: true }).catch(() => {});
      await fs.promises.rm(held.dir, { recursive: true, force: true }).catch(() => {});
      try {
        await this.store.touchSession(record.id, record.lastActivity);
        await this.store.markSessionDestroyed(record.id, this.isoNow(), closeReason);
      } catch (err) {
        this.log.error({ err, sessionId: record.id }, 'session end not recorded');
      }
      this.held.delete(record.id);
      this.log.info({ sessionId: record.id, reason: closeReason }, 'session destroyed');
    })();
    return held.ending;
  }

  private isoNow(): string {
    return new Date(this.timers.now()).toISOString();
  }

  /** End every session (server shutdown) and stop the proxy. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.held.values()].map((h) => this.end(h, 'the server shut down')));
    this.watchdog.close();
    await this.nodes?.close();
    // Upgraded sockets would hold the HTTP server's close open; a peer that is slow to answer
    // the close handshake is cut off.
    for (const server of [this.cdpSockets, this.viewerSockets]) {
      for (const socket of server.clients) socket.terminate();
      server.close();
    }
    await this.proxy.close();
  }

  // ---------------------------------------------------------------- API

  urls(id: string, base: PublicBase): SessionUrls {
    return {
      cdpUrl: `${base.ws}/v2/interact/${id}/cdp?token=${this.tokens.token(id, 'cdp')}`,
      liveViewUrl: `${base.http}/v2/interact/${id}/live?token=${this.tokens.token(id, 'view')}`,
      interactiveLiveViewUrl: `${base.http}/v2/interact/${id}/live?token=${this.tokens.token(id, 'control')}`,
    };
  }

  /** The record with this node's in-memory last activity, which the store may trail. */
  private current(record: SessionRecord): SessionRecord {
    const held = this.held.get(record.id);
    return held && record.status === 'active'
      ? { ...record, lastActivity: held.record.lastActivity }
      : record;
  }

  view(record: SessionRecord, base: PublicBase): SessionView {
    return {
      id: record.id,
      status: record.status,
      ...this.urls(record.id, base),
      streamWebView: record.streamWebView,
      createdAt: record.createdAt,
      lastActivity: record.lastActivity,
    };
  }

  /** Sessions this node holds now (for metrics). */
  activeCount(): number {
    return this.held.size;
  }

  async list(team: string, status: SessionStatus | undefined): Promise<SessionRecord[]> {
    return (await this.store.listSessions(team, status)).map((r) => this.current(r));
  }

  /**
   * A session of the caller's team. Another team's answers 404 like one that does not exist,
   * so that ids cannot be probed (upstream answers 403).
   */
  async get(team: string, id: string): Promise<SessionRecord> {
    const record = UUID.test(id) ? await this.store.getSession(id) : undefined;
    if (!record || record.team !== team) throw notFound();
    return this.current(record);
  }

  // ---------------------------------------------------------------- cluster

  /**
   * Where a request for this session is answered. `hopped`: the request was forwarded here
   * already, so it is never sent on again (two nodes registered at one address would otherwise
   * pass it back and forth).
   */
  async locate(record: SessionRecord, hopped: boolean): Promise<Location> {
    if (
      !this.nodes ||
      record.status !== 'active' ||
      record.nodeId === this.config.QUIRE_NODE_ID ||
      this.held.has(record.id)
    ) {
      return { at: 'here' };
    }
    if (hopped) {
      throw new ApiError(
        502,
        undefined,
        `This session is held by node "${record.nodeId}", and the request forwarded to it reached node "${this.config.QUIRE_NODE_ID}": check that every node's QUIRE_NODE_URL is its own.`,
      );
    }
    const entry = await this.nodes.lookup(record.nodeId);
    if (!entry?.url) return { at: 'unreachable', nodeId: record.nodeId };
    return { at: 'node', node: { nodeId: record.nodeId, url: entry.url } };
  }

  /** Whether a request came forwarded from another node. */
  static hopped(headers: IncomingMessage['headers']): boolean {
    return headers[HOP_HEADER] !== undefined;
  }

  /**
   * The signature for forwarding an API-key request to `node`, which must share this node's
   * QUIRE_SESSION_SECRET to accept it.
   */
  async signFor(node: RemoteNode, request: FastifyRequest): Promise<string> {
    const entry = await this.nodes!.lookup(node.nodeId);
    if (entry && entry.keyId !== this.forwarding!.keyId) {
      throw new ApiError(
        503,
        undefined,
        `This session is held by node "${node.nodeId}", whose QUIRE_SESSION_SECRET differs from this node's: the operator must set the same one on every API process.`,
      );
    }
    return this.forwarding!.sign(
      request.method,
      request.url,
      this.config.QUIRE_NODE_ID,
      request.principal!,
      request.body,
    );
  }

  /**
   * The caller of a request another node forwarded, signed (see ForwardAuth); undefined for a
   * request that is not one. Its body is checked once parsed (forwardedBodyMatches).
   */
  async forwardedPrincipal(
    request: FastifyRequest,
  ): Promise<(KeyOwner & { bodyDigest: string }) | undefined> {
    return this.forwarding?.verify(request);
  }

  static forwardedBodyMatches(body: unknown, bodyDigest: string): boolean {
    return ForwardAuth.bodyMatches(body, bodyDigest);
  }

  /** The session's node cannot be reached now; its sessions are marked destroyed once it is known to be gone. */
  static unreachable(nodeId: string): ApiError {
    const retryS = Math.ceil((limits.nodeTtlMs + limits.nodeLostAfterMs + limits.nodeHeartbeatMs) / 1000);
    return new ApiError(
      503,
      undefined,
      `The node "${nodeId}" holding this browser session cannot be reached; if it is gone, the session is marked destroyed within ${retryS} s.`,
      { headers: { 'retry-after': String(retryS) } },
    );
  }

  /**
   * Each heartbeat in a cluster: mark destroyed the active sessions of nodes whose registry
   * entry has lapsed (any surviving node does it; marking is conditional, so several at once are
   * harmless), and end the sessions held here that the cluster marked destroyed meanwhile (this
   * node was judged lost, or a DELETE reached the store while it could not be reached).
   */
  private async clusterBeat(): Promise<void> {
    const nodes = this.nodes!;
    for (const nodeId of await nodes.lost(await this.store.listActiveSessionNodes())) {
      const reason = `the node "${nodeId}" holding the session was lost (it stopped renewing its registration in the cluster)`;
      let marked = 0;
      for (const record of await this.store.listActiveSessions(nodeId)) {
        if (await this.store.markSessionDestroyed(record.id, new Date().toISOString(), reason)) marked++;
      }
      if (marked > 0)
        this.log.warn({ nodeId, sessions: marked }, 'marked the sessions of a lost node destroyed');
    }
    // Taken before the store is read, so that a session registered meanwhile is not among them.
    const mine = [...this.held.values()].filter((h) => !h.ending);
    if (mine.length === 0) return;
    const active = new Set((await this.store.listActiveSessions(this.config.QUIRE_NODE_ID)).map((r) => r.id));
    for (const held of mine) {
      if (active.has(held.record.id)) continue;
      const record = await this.store.getSession(held.record.id);
      void this.end(held, record?.closeReason ?? 'it was marked destroyed elsewhere in the cluster');
    }
  }

  /** Idempotent: an already destroyed session answers the same, with its duration. */
  async destroy(team: string, id: string): Promise<{ sessionDurationMs: number }> {
    const record = await this.get(team, id);
    if (record.status === 'active') {
      const held = this.held.get(id);
      if (held) await this.end(held, 'deleted by the caller');
      // Held by a node that cannot be reached (or not at all): marked here; a node that holds it
      // after all ends its browser at its next heartbeat.
      else await this.store.markSessionDestroyed(id, this.isoNow(), 'deleted by the caller');
    }
    const final = (await this.store.getSession(id))!;
    return { sessionDurationMs: Math.max(0, Date.parse(final.closedAt!) - Date.parse(final.createdAt)) };
  }

  async deleteProfile(team: string, name: string): Promise<void> {
    if (await this.store.profileInUse(team, name)) {
      throw new ApiError(409, undefined, `Profile "${name}" is in use by an active session.`);
    }
    if (!(await this.profiles.remove(team, name))) throw new ApiError(404, undefined, 'Profile not found.');
  }

  async execute(
    team: string,
    id: string,
    body: { code: string; timeout: number },
    localBase: string,
  ): Promise<ExecuteResult & { error?: string }> {
    if (!this.config.QUIRE_SESSIONS_EXECUTE) {
      throw new ApiError(
        403,
        undefined,
        "Execute is turned off on this server: it runs the caller's code on the host. The operator turns it on with QUIRE_SESSIONS_EXECUTE=true.",
      );
    }
    const record = await this.get(team, id);
    const held = this.held.get(id);
    if (record.status !== 'active' || !held || held.ending) throw gone();
    if (held.executions.size >= limits.sessionExecutions) {
      throw new ApiError(
        429,
        undefined,
        `This session already runs ${limits.sessionExecutions} execute calls; wait for one to finish.`,
      );
    }
    held.clock.touch();
    const result = await runExecute({
      code: body.code,
      timeoutS: body.timeout,
      cdpUrl: `${localBase}/v2/interact/${id}/cdp?token=${this.tokens.token(id, 'cdp')}`,
      scratchDir: path.join(held.dir, `exec-${randomUUID()}`),
      onStart: (kill) => {
        held.executions.add(kill);
        return () => held.executions.delete(kill);
      },
    });
    held.clock.touch();
    if (result.exitCode === 0 && !result.killed) return result;
    const error = result.killed
      ? held.ending
        ? 'The session ended during execution.'
        : `Execution timed out after ${body.timeout} s.`
      : result.stderr.trim() || 'Execution failed.';
    return { ...result, error };
  }

  // ---------------------------------------------------------------- token-authenticated access

  /**
   * The held session a session token opens, checked in the order that reveals least: unknown id
   * (404), wrong token or scope (401), ended (410).
   */
  async authorize(
    id: string,
    token: string | undefined,
    scopes: readonly TokenScope[],
    hopped: boolean,
  ): Promise<Access> {
    const hashes = UUID.test(id) ? await this.store.getSessionTokenHashes(id) : undefined;
    if (!hashes) throw notFound();
    const scope = token ? matchToken(token, hashes) : undefined;
    if (!scope || !scopes.includes(scope)) {
      throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: invalid or missing session token.');
    }
    const held = this.held.get(id);
    if (!held && this.nodes) {
      // Checked here first, so that only a caller with the token makes a connection to the owner.
      const record = await this.store.getSession(id);
      const where = record ? await this.locate(record, hopped) : { at: 'here' as const };
      if (where.at === 'node') return { remote: where.node };
      if (where.at === 'unreachable') throw SessionService.unreachable(where.nodeId);
    }
    if (!held || held.ending) throw gone();
    await held.ready.catch(() => {
      throw gone();
    });
    return { held, scope };
  }

  /** /json/version as the browser answers it, pointing at the relay rather than the browser. */
  async jsonVersion(
    id: string,
    token: string | undefined,
    base: PublicBase,
    hopped: boolean,
  ): Promise<{ remote: RemoteNode } | { remote?: undefined; body: Record<string, unknown> }> {
    const access = await this.authorize(id, token, ['cdp'], hopped);
    if (access.remote) return { remote: access.remote };
    const { held } = access;
    const version = held.browser!.version;
    held.clock.touch();
    // The fields Chromium's own /json/version has, from Browser.getVersion (there is no port).
    const webkit = /AppleWebKit\/([\d.]+)/.exec(version.userAgent)?.[1] ?? '537.36';
    return {
      body: {
        Browser: version.product,
        'Protocol-Version': version.protocolVersion,
        'User-Agent': version.userAgent,
        'V8-Version': version.jsVersion,
        'WebKit-Version': `${webkit} (${version.revision})`,
        webSocketDebuggerUrl: this.urls(id, base).cdpUrl,
      },
    };
  }

  /** The live view page may be served here (undefined), or by the node given. */
  async livePage(id: string, token: string | undefined, hopped: boolean): Promise<RemoteNode | undefined> {
    const access = await this.authorize(id, token, ['view', 'control'], hopped);
    if (access.remote) return access.remote;
    if (!access.held.record.streamWebView) throw liveOff();
    return undefined;
  }

  /**
   * WebSocket upgrades: `/v2/{interact,browser}/{id}/cdp` (CDP relay) and `.../live/ws` (live view).
   * The token is checked before the upgrade is accepted; refusals are plain HTTP answers.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Node hands over upgraded sockets without an 'error' listener: a client that resets the
    // connection while its token is checked would otherwise end the process on our answer.
    socket.on('error', () => socket.destroy());
    // Node passes absolute-form targets through unparsed ("http://["): new URL would throw here.
    const url = URL.parse(req.url ?? '/', 'http://upgrade.invalid');
    const match = url && /^\/v2\/(?:interact|browser)\/([^/]+)\/(cdp|live\/ws)\/?$/.exec(url.pathname);
    if (!url || !match) {
      const where = url ? ` at ${url.pathname}` : ' at that address';
      refuseUpgrade(socket, new ApiError(404, 'NOT_FOUND', `No WebSocket endpoint${where}.`));
      return;
    }
    const [, id, kind] = match as unknown as [string, string, string];
    const scopes: TokenScope[] = kind === 'cdp' ? ['cdp'] : ['view', 'control'];
    this.authorize(id, url.searchParams.get('token') ?? undefined, scopes, SessionService.hopped(req.headers))
      .then((access) => {
        if (access.remote) {
          const { url: base } = access.remote;
          pipeUpgrade(req, socket, head, base, this.config.QUIRE_NODE_ID, (e) => refuseUpgrade(socket, e));
          return;
        }
        const { held, scope } = access;
        if (kind !== 'cdp' && !held.record.streamWebView) throw liveOff();
        if (held.sockets.size >= limits.sessionSockets) {
          throw new ApiError(429, undefined, `A session takes at most ${limits.sessionSockets} connections.`);
        }
        const server = kind === 'cdp' ? this.cdpSockets : this.viewerSockets;
        server.handleUpgrade(req, socket, head, (ws) => {
          if (held.ending) {
            ws.close(1000, 'session destroyed');
            return;
          }
          held.sockets.add(ws);
          ws.once('close', () => held.sockets.delete(ws));
          if (kind === 'cdp') {
            relayCdp(ws, held.browser!.pipe, held.scope, held.dir, {
              onActivity: () => held.clock.touch(),
              onRefused: (method, reason) =>
                this.log.info({ sessionId: id, method, reason }, 'CDP command refused'),
            });
          } else {
            held.live!.add(ws, scope === 'control');
          }
          held.clock.touch();
        });
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError) refuseUpgrade(socket, error);
        else {
          this.log.error({ err: error }, 'WebSocket upgrade failed');
          refuseUpgrade(socket, new ApiError(500, 'UNKNOWN_ERROR', 'The connection could not be set up.'));
        }
      });
  }
}

const liveOff = () =>
  new ApiError(
    403,
    undefined,
    'The live view is off for this session (it was created with streamWebView: false).',
  );

function refuseUpgrade(socket: Duplex, error: ApiError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(error.body());
  const headers = Object.entries(error.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`,
  );
}
