import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { limits } from '../../src/limits.ts';
import { residentBytes } from '../../src/pipeline/worker-pool.ts';

/**
 * Uploads run through what the server runs for them (option validation, detectFormat, the
 * conversion worker's entry), in a child process with the workers' heap limit, one at a time,
 * each bounded in time and memory by the parent. What the server would answer is the outcome:
 * a refusal (4xx), a result, or one of the failures the fuzzer and hostile suites hunt.
 */

export interface Upload {
  bytes: Uint8Array;
  filename: string;
  contentType?: string;
  /** The `options` object as a client sends it (validated here, as the server does). */
  options?: Record<string, unknown>;
}

export type Outcome =
  /** 200: the JSON size of `data` and whether it carries a warning. */
  | { kind: 'ok'; ms: number; jsonBytes: number; warning: boolean }
  /** A documented refusal: what the server answers with its status and code. */
  | { kind: 'refused'; ms: number; status: number; code: string; message: string }
  /** An exception the server would answer with a 500. */
  | { kind: 'crash'; ms: number; error: string; stack: string }
  /** Still converting when the bound passed. */
  | { kind: 'hang'; ms: number }
  /** Over the heap or resident-memory bound: the server answers RESOURCE_LIMIT (the worker dies alone). */
  | { kind: 'oom'; ms: number }
  /** The process died otherwise (a native crash): the server answers RESOURCE_LIMIT, but it is a bug. */
  | { kind: 'died'; ms: number; exit: string; stderr: string };

/** Outcomes that are findings: the server would answer 500, hang, or lose a worker to a crash. */
export const isFinding = (o: Outcome): boolean =>
  o.kind === 'crash' || o.kind === 'hang' || o.kind === 'died';

export interface ChildOptions {
  /**
   * Per-upload bound (ms) of CPU time, the child's own and its threads': past it, a hang. CPU
   * time, not wall time, so that a machine busy with other work does not turn a slow file into
   * a finding; a conversion blocked without using CPU is a hang past ten times the bound in wall time.
   */
  timeMs: number;
  /** Heap of the child, as QUIRE_WORKER_HEAP_MB gives the server's workers. */
  heapMb?: number;
}

/** Messages between the parent and the child (convert-entry.ts): `ready` once it has loaded. */
export type Reply = { id: number; outcome: Outcome } | { ready: true };
export type Request = { id: number; upload: Upload };

/** Clock ticks per second of /proc's CPU times: 100 on Linux for every architecture Node runs on. */
const TICKS_PER_S = 100;

/** CPU time a process has used, its threads and reaped children (tesseract) included, from /proc. */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces): utime, stime, cutime, cstime are 14-17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i]), 0);
    return (ticks * 1000) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** One child process serving uploads one after another; replaced after any that kills it. */
export class ConvertChild {
  private child: ChildProcess | undefined;
  private stderr = '';
  private nextId = 0;
  private readonly opts: Required<ChildOptions>;
  /** Processes started, the first included: each after the first replaced one killed or lost. */
  starts = 0;

  constructor(opts: ChildOptions) {
    this.opts = { heapMb: loadConfig({}).QUIRE_WORKER_HEAP_MB, ...opts };
  }

  /** A new child, once it has loaded the converters (so that loading is not counted as converting). */
  private spawn(): Promise<ChildProcess> {
    this.starts++;
    this.stderr = '';
    // Its own process group, so that a kill also takes what it started (tesseract, pdf threads).
    const child = fork(new URL('./convert-entry.ts', import.meta.url), [], {
      execArgv: [`--max-old-space-size=${this.opts.heapMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      detached: true,
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    return new Promise((resolve, reject) => {
      child.once('message', () => resolve(child));
      child.once('exit', (code) =>
        reject(new Error(`the conversion child exited (${code}) while loading: ${this.stderr}`)),
      );
    });
  }

  async run(upload: Upload): Promise<Outcome> {
    this.child ??= await this.spawn();
    const child = this.child;
    const id = ++this.nextId;
    const started = performance.now();
    const maxRss = (this.opts.heapMb + limits.workerOffHeapMb) * 1024 * 1024;
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const finish = (outcome: Outcome, kill: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watchdog);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (kill) this.kill(child);
        resolve(outcome);
      };
      const ms = () => performance.now() - started;
      const onMessage = (reply: Reply) => {
        if ('id' in reply && reply.id === id) finish(reply.outcome, false);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        this.child = undefined;
        const oom = /heap out of memory|Reached heap limit|allocation failed/i.test(this.stderr);
        finish(
          oom
            ? { kind: 'oom', ms: ms() }
            : { kind: 'died', ms: ms(), exit: signal ?? `code ${code}`, stderr: this.stderr.slice(-1000) },
          false,
        );
      };
      const timer = setTimeout(() => finish({ kind: 'hang', ms: ms() }, true), this.opts.timeMs * 10);
      const cpuAtStart = child.pid === undefined ? 0 : cpuMs(child.pid);
      // The server's watchdog: a worker whose resident memory outgrows its heap limit by too much dies.
      const watchdog = setInterval(() => {
        if (child.pid === undefined) return;
        if (residentBytes(child.pid) > maxRss) finish({ kind: 'oom', ms: ms() }, true);
        else if (cpuMs(child.pid) - cpuAtStart > this.opts.timeMs) finish({ kind: 'hang', ms: ms() }, true);
      }, limits.workerWatchdogMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      const request: Request = { id, upload };
      child.send(request);
    });
  }

  private kill(child: ChildProcess): void {
    if (this.child === child) this.child = undefined;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }

  close(): void {
    if (this.child) this.kill(this.child);
  }
}
