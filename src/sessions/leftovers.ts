import fs from 'node:fs';
import path from 'node:path';

/**
 * Leaders of the process groups started for sessions under `root`, found by their command
 * line (never by name): browsers (their profile folder is there) and execute runs (their
 * scratch folder is). Helpers die with their group.
 */
export function leftoverProcesses(root: string): number[] {
  const folders = [`--user-data-dir=${root}${path.sep}`, `--allow-fs-write=${root}${path.sep}`];
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = readCmdline(Number(entry));
    if (
      cmdline?.some((arg) => folders.some((f) => arg.startsWith(f))) &&
      !cmdline.some((arg) => arg.startsWith('--type='))
    ) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

function readCmdline(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}
