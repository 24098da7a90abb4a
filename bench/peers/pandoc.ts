import { execFileSync, spawn } from 'node:child_process';

// pandoc as a user runs it. Kept apart from ../peers.ts so that the pandoc HTTP peer loads
// nothing but this (no native anydoc binding inflating its memory figures).

/** Pandoc's reader for each Quire format it can read; the others are n/a. */
const pandocReaders: Record<string, string> = {
  html: 'html',
  csv: 'csv',
  docx: 'docx',
  docm: 'docx',
  odt: 'odt',
  epub: 'epub',
  rtf: 'rtf',
};

export function pandocReader(format: string): string | undefined {
  return Object.hasOwn(pandocReaders, format) ? pandocReaders[format] : undefined;
}

/** The command line a user would run: GFM out, no hard wrapping for HTML. */
export function pandocArgs(format: string): string[] {
  const reader = pandocReader(format);
  if (!reader) throw new Error(`pandoc cannot read ${format}`);
  return reader === 'html' ? ['-f', 'html', '-t', 'gfm', '--wrap=none'] : ['-f', reader, '-t', 'gfm'];
}

export interface PandocRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * One pandoc process with the bytes on stdin. Killed after `timeoutMs`; stdout and stderr
 * are capped so a runaway conversion cannot exhaust memory.
 */
export function runPandoc(bytes: Uint8Array, format: string, timeoutMs = 60_000): Promise<PandocRun> {
  return spawnPandoc(pandocArgs(format), bytes, timeoutMs);
}

function spawnPandoc(args: string[], bytes: Uint8Array, timeoutMs: number): Promise<PandocRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('pandoc', args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    const cap = 256 * 1024 * 1024;
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > cap) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    // A pandoc that exits early (bad arguments) closes stdin under us; the exit code tells.
    child.stdin.on('error', () => {});
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr }));
    child.stdin.end(bytes);
  });
}

/** What the start-up samples were taken with, for RESULTS.md. */
export const pandocStartupCommand = '`pandoc -f markdown -t gfm` on empty stdin';

/**
 * pandoc's own start-up: wall ms of `samples` runs of pandoc converting nothing, spawned and
 * timed exactly as a document's run is. A process per document pays this every time; what is
 * left of a document's time is reading and writing it. (pandoc 2.17 has no server mode, so
 * there is no warm pandoc to measure instead.)
 */
export async function pandocStartupMs(samples: number): Promise<number[]> {
  const times: number[] = [];
  const empty = new Uint8Array(0);
  await spawnPandoc(['-f', 'markdown', '-t', 'gfm'], empty, 10_000); // page cache, like the documents' warm-up
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const r = await spawnPandoc(['-f', 'markdown', '-t', 'gfm'], empty, 10_000);
    const dt = performance.now() - t0;
    if (r.code !== 0) throw new Error(`pandoc start-up run failed: ${r.stderr.trim().slice(0, 300)}`);
    times.push(dt);
  }
  return times;
}

export function pandocVersion(): string {
  try {
    return execFileSync('pandoc', ['--version'], { encoding: 'utf8' })
      .split('\n')[0]!
      .replace(/^pandoc\s+/, '');
  } catch {
    return 'not installed';
  }
}
