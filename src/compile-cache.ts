import module from 'node:module';
import path from 'node:path';

/**
 * Keeps V8's compiled code, with the types already stripped, in the data folder, for this process
 * and the ones it starts (conversion workers inherit NODE_COMPILE_CACHE): a start then loads its
 * modules in about half the CPU, which a replaced worker and a restarted server spend while
 * others convert. The folder is the service's own, not a shared temporary one, because what is
 * in it runs as code. Where NODE_COMPILE_CACHE is set already, Node has used it from the start.
 */
export function enableCompileCache(dataDir: string): void {
  if (process.env.NODE_COMPILE_CACHE) return;
  const { directory } = module.enableCompileCache(path.resolve(dataDir, 'compile-cache'));
  if (directory) process.env.NODE_COMPILE_CACHE = directory;
}
