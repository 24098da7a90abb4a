import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './server.ts';
import { suiteCompileCache } from './test-env.ts';

/** The `quire` command, run by the tests as an operator runs it: a process of its own. */
export const quire = path.join(repoRoot, 'src/cli/quire.ts');

/**
 * The environment of a `quire` process: this one's, with the suite's compiled-code cache also
 * where this file runs outside scripts/run-tests.ts.
 */
export const cliEnv: NodeJS.ProcessEnv = { NODE_COMPILE_CACHE: suiteCompileCache, ...process.env };

/** `quire` with these arguments: its standard output; rejects when it exits non-zero. */
export type Cli = (...args: string[]) => Promise<string>;

const run = promisify(execFile);

/** The `quire` CLI on the store of `env` (QUIRE_DATA_DIR or QUIRE_DATABASE_URL). */
export function cliOn(env: Record<string, string>): Cli {
  return async (...args) =>
    (await run(process.execPath, [quire, ...args], { env: { ...cliEnv, ...env } })).stdout;
}
