import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../helpers/server.ts';

const run = promisify(execFile);

/** A Node process that imports `module` from src/ and prints what `expression` gives. */
function probe(module: string, expression: string): string[] {
  const url = path.join(repoRoot, 'src', module);
  return [
    process.execPath,
    '--input-type=module',
    '-e',
    `import * as m from ${JSON.stringify(url)}; console.log(JSON.stringify(${expression}));`,
  ];
}

/** What a process learns at its start about itself: priorities it may set, its compiled-code cache. */
describe('a process at its start', () => {
  it('may raise a lowered priority again with CAP_SYS_NICE, not without it and an RLIMIT_NICE under 20', {
    skip: process.getuid?.() !== 0 && 'dropping capabilities needs root',
  }, async () => {
    const answer = async (argv: string[]) =>
      JSON.parse((await run(argv[0]!, argv.slice(1))).stdout) as boolean;
    const mayRaise = probe('process-priority.ts', 'm.mayRaisePriority');
    // Root, with the capability (this machine's root has it; a container may drop it).
    const { stdout } = await run('grep', ['CapEff', '/proc/self/status']);
    const hasCap = (BigInt(`0x${stdout.split(/\s+/)[1]}`) & (1n << 23n)) !== 0n;
    assert.equal(await answer(mayRaise), hasCap);
    // Root without its capabilities and with the soft and hard RLIMIT_NICE at 0.
    const unprivileged = ['prlimit', '--nice=0:0', 'setpriv', '--inh-caps=-all', '--bounding-set=-all', '--'];
    assert.equal(await answer([...unprivileged, ...mayRaise]), false);
  });

  it('keeps its compiled code in the data folder, and tells the processes it starts', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-compile-'));
    try {
      const [node, ...args] = probe(
        'compile-cache.ts',
        `(m.enableCompileCache(${JSON.stringify(dataDir)}), process.env.NODE_COMPILE_CACHE)`,
      );
      const env = { ...process.env };
      delete env.NODE_COMPILE_CACHE;
      const { stdout } = await run(node!, args, { env });
      assert.equal(JSON.parse(stdout), path.join(dataDir, 'compile-cache'));
      assert.ok(fs.statSync(path.join(dataDir, 'compile-cache')).isDirectory());
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
