import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext } from 'puppeteer-core';
import { limits } from '../../limits.ts';
import { BrowserProcess, killGroup } from '../../sessions/browser-process.ts';
import { EgressProxy } from '../../sessions/egress-proxy.ts';
import { leftoverProcesses, singletonFolder } from '../../sessions/leftovers.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';
import { untilAborted } from '../vetted-address.ts';
import { pipeTransport } from './pipe-transport.ts';

export interface RenderPoolSettings {
  /** The Debian Chromium the interact sessions use (QUIRE_CHROMIUM_PATH). */
  executable: string;
  /** Parent of each render browser's profile folder, removed when that browser closes. */
  dir: string;
  /** What every request of a rendered page may reach: the scrape's own policy. */
  policy: NetPolicy;
}

/** One running browser, its egress proxy, and how many pages it has served and holds. */
interface Running {
  process: BrowserProcess;
  proxy: EgressProxy;
  browser: Browser;
  dir: string;
  served: number;
  open: number;
}

/**
 * One long-lived headless Chromium for scrapes, each page in a browser context of its own
 * (cookies, storage and cache not shared between scrapes), at most `limits.renderPages` at once.
 * Started on first need through the sessions' launch path (nice, CDP over a pipe, every request
 * through an egress proxy enforcing the scrape's net policy); replaced after
 * `limits.renderPagesPerBrowser` pages or when it dies; closed after `limits.renderIdleMs` idle.
 */
export class RenderPool {
  private readonly settings: RenderPoolSettings;
  private current: Promise<Running> | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private sweptLeftovers = false;

  constructor(settings: RenderPoolSettings) {
    this.settings = settings;
  }

  /** Whether a browser is up (or starting): for the bench's memory figure and the tests. */
  get browserPid(): Promise<number | undefined> {
    return this.current
      ? this.current.then(
          (r) => r.process.pid,
          () => undefined,
        )
      : Promise.resolve(undefined);
  }

  /**
   * Run `work` on a fresh browser context, within `signal`: the context is closed afterwards, or
   * as soon as the signal aborts (which ends whatever the page was doing).
   */
  async withContext<T>(signal: AbortSignal, work: (context: BrowserContext) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the render pool is closed');
    await this.slot(signal);
    clearTimeout(this.idleTimer);
    let running: Running | undefined;
    try {
      // The start is shared by every scrape waiting for it; each waits only within its own deadline.
      running = await untilAborted(this.browser(), signal);
      running.open++;
      running.served++;
      const context = await running.browser.createBrowserContext();
      const onAbort = () => void context.close().catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        signal.throwIfAborted();
        return await work(context);
      } catch (error) {
        throw signal.aborted ? signal.reason : error;
      } finally {
        signal.removeEventListener('abort', onAbort);
        await context.close().catch(() => {});
      }
    } finally {
      if (running) running.open--;
      this.release(running);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const current = this.current;
    this.current = undefined;
    if (current)
      await current.then(
        (r) => this.shut(r),
        () => {},
      );
  }

  /** Wait for one of the pool's page slots, or the signal. */
  private async slot(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.active < limits.renderPages) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(signal.reason);
      };
      this.waiting.push(turn);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(running: Running | undefined): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
    // A browser past its page budget is replaced once its last page is done.
    if (running && running.served >= limits.renderPagesPerBrowser && running.open === 0) this.retire(running);
    if (this.active === 0 && !this.closed) {
      this.idleTimer = setTimeout(() => {
        const current = this.current;
        this.current = undefined;
        current?.then(
          (r) => this.shut(r),
          () => {},
        );
      }, limits.renderIdleMs);
      this.idleTimer.unref();
    }
  }

  private retire(running: Running): void {
    this.current?.then(
      (r) => {
        if (r === running) this.current = undefined;
      },
      () => {},
    );
    void this.shut(running);
  }

  /** The running browser, started when there is none (or it died, or a start failed). */
  private browser(): Promise<Running> {
    if (!this.current) {
      const starting = this.launch();
      this.current = starting;
      // A failed start is not kept: the next scrape tries again.
      starting.catch(() => {
        if (this.current === starting) this.current = undefined;
      });
    }
    return this.current;
  }

  private async launch(): Promise<Running> {
    if (!this.sweptLeftovers) {
      // What a previous run of Quire left (killed before it could close its browser), found by
      // the profile folder on the command line as the sessions find theirs.
      for (const pid of leftoverProcesses(this.settings.dir)) killGroup(pid);
      await fs.rm(this.settings.dir, { recursive: true, force: true });
      this.sweptLeftovers = true;
    }
    const dir = path.join(this.settings.dir, randomUUID());
    const home = path.join(dir, 'home');
    await fs.mkdir(home, { recursive: true });
    const proxy = new EgressProxy(this.settings.policy);
    try {
      const proxyPort = await proxy.listen();
      const process = await BrowserProcess.launch({
        executable: this.settings.executable,
        userDataDir: path.join(dir, 'profile'),
        homeDir: home,
        proxyPort,
        memoryMb: limits.sessionMemoryMb,
        startMs: limits.renderBrowserStartMs,
      });
      // Loaded with the first render: a server that never renders starts without its modules.
      const { default: puppeteer } = await import('puppeteer-core');
      const browser = await puppeteer.connect({
        transport: await pipeTransport(process.pipe),
        defaultViewport: null,
        protocolTimeout: limits.timeoutMaxMs,
      });
      const running: Running = { process, proxy, browser, dir, served: 0, open: 0 };
      // A browser that dies is forgotten at once, so the next scrape starts another.
      void process.exited.then(() => {
        this.current?.then(
          (r) => {
            if (r === running) this.current = undefined;
          },
          () => {},
        );
        void this.shut(running);
      });
      return running;
    } catch (error) {
      await proxy.close();
      await fs.rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private async shut(running: Running): Promise<void> {
    const singleton = await singletonFolder(path.join(running.dir, 'profile'));
    await running.process.close(() => running.browser.close(), limits.browserCloseGraceMs);
    await running.proxy.close();
    for (const folder of [running.dir, singleton])
      if (folder) await fs.rm(folder, { recursive: true, force: true }).catch(() => {});
  }
}
