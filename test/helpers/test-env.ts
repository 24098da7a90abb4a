import os from 'node:os';
import path from 'node:path';

/**
 * Where the suite's processes keep V8's compiled code (NODE_COMPILE_CACHE, set by
 * scripts/run-tests.ts for every test file and what it starts): each of the suite's hundreds of
 * Node starts (test files, servers, conversion workers, CLI runs) then loads its modules in about
 * half the CPU. Node keys each entry by the file's contents, so a changed file is compiled anew.
 */
export const suiteCompileCache = path.join(os.tmpdir(), 'quire-test-compile-cache');

/**
 * The settings every Quire the suite starts shares, in-process app or server process: a data
 * folder of its own, one known key, quiet logs, and the two settings below.
 */
export function testEnv(dataDir: string, key: string): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    QUIRE_DATA_DIR: dataDir,
    QUIRE_API_KEYS: key,
    QUIRE_LOG_LEVEL: 'warn',
    // Shared by the suite's servers (each has its own data folder): the lists are parsed once,
    // not seconds of CPU per server; the file is keyed by the lists, so sharing it is safe.
    QUIRE_FILTER_ENGINE_CACHE: path.join(os.tmpdir(), 'quire-test-filter-engine.bin'),
    // Long PDFs on two threads whatever the machine (by default one below 4 cores), so that
    // the suite reads pages on both, as the machines that run Quire with more cores do.
    QUIRE_PDF_THREADS: '2',
    // No idle spare processes (two by default): each costs a process start that loads every
    // converter, most of a second of CPU, and the suite starts its servers and apps a hundred
    // times. Spares shorten the wait after a kill, which no test times; the files about the
    // pool (lifecycle, fair-queue, hostile) run with the default.
    QUIRE_SPARE_WORKERS: '0',
  };
}
