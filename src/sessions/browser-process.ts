import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { limits } from '../limits.ts';
import { BrowserPipe } from './cdp-pipe.ts';
import { lowerPriority, niced } from './priority.ts';
import { groupGone } from './process-group.ts';

export interface LaunchOptions {
  executable: string;
  /** The session's own profile folder (--user-data-dir). */
  userDataDir: string;
  /** Port of the egress proxy every request of this browser goes through. */
  proxyPort: number;
  /**
   * The browser's HOME, in the session's folder: what Chromium keeps there (downloads when a
   * client asks for the `default` download behaviour, crash reports, the NSS database) would
   * otherwise land in the service user's home, shared by every session.
   */
  homeDir: string;
  /**
   * The session's memory cap, also given to V8 as each renderer's heap limit: a backstop for an
   * allocation faster than the watchdog looks, ending that page rather than growing on.
   */
  memoryMb: number;
  /** How long it may take to answer on its pipe; `limits.browserStartMs` unless the caller waits longer. */
  startMs?: number;
}

export interface BrowserExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Kept from the browser's stderr, to say why it did not start. */
const STDERR_TAIL = 4096;

/**
 * The flags every session browser runs with. Background networking, component updates and sync
 * would reach out on their own (and fail on a closed network, slowly); the proxy flags send
 * every request, loopback included, through the egress proxy, and keep WebRTC from going around
 * it over UDP.
 */
function chromiumArgs(opts: LaunchOptions): string[] {
  const args = [
    '--headless',
    // CDP over fds 3 and 4 only: a debugging port would let any process on the host (execute's
    // code among them) drive the browser past the relay's checks.
    '--remote-debugging-pipe',
    `--user-data-dir=${opts.userDataDir}`,
    `--proxy-server=http://127.0.0.1:${opts.proxyPort}`,
    '--proxy-bypass-list=<-loopback>',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-domain-reliability',
    '--disable-breakpad',
    '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-dev-shm-usage',
    '--password-store=basic',
    '--mute-audio',
    '--window-size=1280,800',
    `--js-flags=--max-old-space-size=${opts.memoryMb}`,
    `--disk-cache-size=${limits.sessionHttpCacheBytes}`,
  ];
  // Chromium refuses to start its sandbox as root; a non-root service user keeps it.
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  args.push('about:blank');
  return args;
}

/** Browser.getVersion's answer, which /json/version is made from. */
export interface BrowserVersion {
  protocolVersion: string;
  product: string;
  revision: string;
  userAgent: string;
  jsVersion: string;
}

/**
 * One session's Chromium, leading its own process group (so destroy kills renderers and
 * helpers with it), driven over its CDP pipe; it is up once it answers Browser.getVersion there.
 */
export class BrowserProcess {
  readonly pid: number;
  readonly pipe: BrowserPipe;
  readonly version: BrowserVersion;
  readonly exited: Promise<BrowserExit>;
  private readonly child: ChildProcess;

  private constructor(
    child: ChildProcess,
    pipe: BrowserPipe,
    version: BrowserVersion,
    exited: Promise<BrowserExit>,
  ) {
    this.child = child;
    this.pid = child.pid!;
    this.pipe = pipe;
    this.version = version;
    this.exited = exited;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  static async launch(opts: LaunchOptions): Promise<BrowserProcess> {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: opts.homeDir };
    // Chromium prefers these to HOME for its folders (and the file naming the download folder).
    for (const name of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME']) delete env[name];
    const [command, args] = niced(opts.executable, chromiumArgs(opts));
    const child = spawn(command, args, {
      detached: true,
      // fd 3: commands to the browser; fd 4: its replies and events.
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      env,
    });
    // Below conversions from its first moment (the watchdog lowers any process Chromium raises).
    if (child.pid !== undefined) lowerPriority(child.pid);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    const exited = new Promise<BrowserExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
    spawnError.catch(() => {});
    const pipe = new BrowserPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
    let timer: NodeJS.Timeout | undefined;
    const startMs = opts.startMs ?? limits.browserStartMs;
    try {
      const version = await Promise.race([
        pipe.call('Browser.getVersion'),
        spawnError,
        exited.then((exit) => {
          throw new Error(
            `Chromium exited while starting (${exit.code ?? exit.signal}): ${lastLine(stderr)}`,
          );
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Chromium did not start within ${startMs / 1000} s: ${lastLine(stderr)}`)),
            startMs,
          );
        }),
      ]);
      return new BrowserProcess(child, pipe, asVersion(version), exited);
    } catch (error) {
      if (child.pid !== undefined) killGroup(child.pid);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Give the browser `graceMs` to exit after `ask` (Browser.close over CDP, which flushes
   * cookies to disk), then kill its group; resolves once the browser is gone.
   */
  async close(ask: () => Promise<unknown>, graceMs: number): Promise<BrowserExit> {
    if (this.running) {
      ask().catch(() => {});
      await Promise.race([this.exited, sleep(graceMs)]);
    }
    // Helpers (zygotes, utility processes) can outlive the main process: kill the group anyway,
    // and resolve once every one of them has gone, its memory given back.
    killGroup(this.pid);
    const exit = await this.exited;
    await groupGone(this.pid, limits.browserGroupExitMs);
    return exit;
  }
}

function asVersion(result: Record<string, unknown>): BrowserVersion {
  const text = (key: string) => (typeof result[key] === 'string' ? result[key] : '');
  return {
    protocolVersion: text('protocolVersion'),
    product: text('product'),
    revision: text('revision'),
    userAgent: text('userAgent'),
    jsVersion: text('jsVersion'),
  };
}

export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function lastLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/dbus|DBus/.test(l));
  return lines.at(-1) ?? 'no output';
}
