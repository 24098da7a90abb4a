import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { limits } from '../limits.ts';
import { lowerPriority, niced } from './priority.ts';

export interface ExecuteResult {
  stdout: string;
  result: string;
  stderr: string;
  exitCode: number;
  killed: boolean;
}

const runner = path.join(import.meta.dirname, 'execute-runner.ts');
const playwrightDir = path.dirname(
  fs.realpathSync(createRequire(import.meta.url).resolve('playwright-core/package.json')),
);

/** Read a stream, keeping at most `max` bytes and saying when the rest was cut. */
function bounded(stream: Readable, max: number): () => string {
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  stream.on('data', (chunk: Buffer) => {
    if (kept >= max) {
      cut = true;
      return;
    }
    const part = chunk.subarray(0, max - kept);
    if (part.length < chunk.length) cut = true;
    chunks.push(part);
    kept += part.length;
  });
  return () => Buffer.concat(chunks).toString('utf8') + (cut ? `\n[output cut at ${max} bytes]` : '');
}

/**
 * Run the caller's Node code against a session in a child process: Node's permission model
 * lets it read only Playwright and write only its scratch folder, start no processes and load
 * no addons; it reaches the browser through the session's CDP relay (so the firewall applies),
 * with a wall-time limit and bounded output.
 */
export function runExecute(opts: {
  code: string;
  timeoutS: number;
  cdpUrl: string;
  scratchDir: string;
  onStart: (kill: () => void) => () => void;
}): Promise<ExecuteResult> {
  fs.mkdirSync(opts.scratchDir, { recursive: true });
  const [command, args] = niced(process.execPath, [
    '--permission',
    `--allow-fs-read=${playwrightDir}`,
    `--allow-fs-read=${runner}`,
    `--allow-fs-read=${opts.scratchDir}`,
    `--allow-fs-write=${opts.scratchDir}`,
    // Playwright probes these at load to detect WSL; they are harmless to read.
    '--allow-fs-read=/proc/sys/fs/binfmt_misc/WSLInterop',
    '--allow-fs-read=/run/WSL',
    `--max-old-space-size=${limits.executeHeapMb}`,
    runner,
  ]);
  const child = spawn(command, args, {
    // Its own process group, as the browsers: a restart after a crash finds and kills it.
    detached: true,
    cwd: opts.scratchDir,
    env: {
      PATH: process.env.PATH ?? '',
      TMPDIR: opts.scratchDir,
      HOME: opts.scratchDir,
      QUIRE_EXECUTE_CDP_URL: opts.cdpUrl,
    },
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  // Caller code may spin: it runs below conversions, as the browsers do.
  if (child.pid !== undefined) lowerPriority(child.pid);
  const stdout = bounded(child.stdout!, limits.executeOutputBytes);
  const stderr = bounded(child.stderr!, limits.executeOutputBytes);
  const result = bounded(child.stdio[3] as Readable, limits.executeOutputBytes);
  child.stdin!.on('error', () => {});
  child.stdin!.end(opts.code);
  let killed = false;
  const kill = () => {
    killed = true;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, opts.timeoutS * 1000);
  const forget = opts.onStart(kill);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      forget();
      fs.rmSync(opts.scratchDir, { recursive: true, force: true });
      const exitCode = code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0);
      resolve({ stdout: stdout(), result: result(), stderr: stderr(), exitCode, killed });
    });
  });
}
