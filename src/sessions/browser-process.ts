import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { limits } from '../limits.ts';

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
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
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
  ];
  // Chromium refuses to start its sandbox as root; a non-root service user keeps it.
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  args.push('about:blank');
  return args;
}

/**
 * One session's Chromium, leading its own process group (so destroy kills renderers and
 * helpers with it) and listening for CDP on a port it picks itself, read back from the
 * DevToolsActivePort file it writes into its profile.
 */
export class BrowserProcess {
  readonly pid: number;
  /** ws://127.0.0.1:<port>/devtools/browser/<id> */
  readonly wsEndpoint: string;
  readonly exited: Promise<BrowserExit>;
  private readonly child: ChildProcess;

  private constructor(child: ChildProcess, wsEndpoint: string, exited: Promise<BrowserExit>) {
    this.child = child;
    this.pid = child.pid!;
    this.wsEndpoint = wsEndpoint;
    this.exited = exited;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  static async launch(opts: LaunchOptions): Promise<BrowserProcess> {
    const portFile = path.join(opts.userDataDir, 'DevToolsActivePort');
    fs.rmSync(portFile, { force: true });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: opts.homeDir };
    // Chromium prefers these to HOME for its folders (and the file naming the download folder).
    for (const name of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME']) delete env[name];
    const child = spawn(opts.executable, chromiumArgs(opts), {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    const exited = new Promise<BrowserExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
    spawnError.catch(() => {});
    const deadline = Date.now() + limits.browserStartMs;
    try {
      for (;;) {
        const content = readPortFile(portFile);
        if (content) {
          return new BrowserProcess(child, `ws://127.0.0.1:${content.port}${content.path}`, exited);
        }
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(
            `Chromium exited while starting (${child.exitCode ?? child.signalCode}): ${lastLine(stderr)}`,
          );
        }
        if (Date.now() > deadline) {
          throw new Error(
            `Chromium did not start within ${limits.browserStartMs / 1000} s: ${lastLine(stderr)}`,
          );
        }
        await Promise.race([sleep(25), spawnError]);
      }
    } catch (error) {
      if (child.pid !== undefined) killGroup(child.pid);
      throw error;
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
    // Helpers (zygotes, utility processes) can outlive the main process: kill the group anyway.
    killGroup(this.pid);
    return this.exited;
  }
}

function readPortFile(file: string): { port: number; path: string } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [port, wsPath] = text.split('\n');
  // Chromium writes the file in two steps; wait for both lines.
  if (!port || !wsPath || !/^\d+$/.test(port)) return undefined;
  return { port: Number(port), path: wsPath.trim() };
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
