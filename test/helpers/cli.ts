import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './server.ts';

/** The `quire` command, run by the tests as an operator runs it: a process of its own. */
export const quire = path.join(repoRoot, 'src/cli/quire.ts');

/**
 * The environment of a `quire` process: this one's, with V8's compiled code kept in a folder the
 * suite shares (keyed by each file's contents, so sharing it is safe), so that each start, and
 * each conversion worker it starts, loads its modules in about half the CPU.
 */
export const cliEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'quire-test-cli-compile-cache'),
};

/** `quire` with these arguments: its standard output; rejects when it exits non-zero. */
export type Cli = (...args: string[]) => Promise<string>;

const run = promisify(execFile);

/** The `quire` CLI on the store of `env` (QUIRE_DATA_DIR or QUIRE_DATABASE_URL). */
export function cliOn(env: Record<string, string>): Cli {
  return async (...args) =>
    (await run(process.execPath, [quire, ...args], { env: { ...cliEnv, ...env } })).stdout;
}
