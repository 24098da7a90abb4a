import fs from 'node:fs';
import os from 'node:os';
import { limits } from '../limits.ts';

/** coreutils' nice, which every Debian system has; without it, priority is lowered after start. */
const niceBinary = ['/usr/bin/nice', '/bin/nice'].find((file) => fs.existsSync(file));

/**
 * The command line that starts `executable` sessionNice below Quire: through nice, so that the
 * niceness is there before its first instruction and every process and thread it starts
 * inherits it (lowering it once started would miss the helpers forked in the first
 * milliseconds). nice execs the program, so the pid and command line are the program's own.
 */
export function niced(executable: string, args: readonly string[]): [string, string[]] {
  return niceBinary
    ? [niceBinary, ['-n', String(limits.sessionNice), executable, ...args]]
    : [executable, [...args]];
}

/**
 * Run a session's newly started process group leader below conversions: its niceness (again,
 * where there was no nice binary) and that of its autogroup. Session processes lead their own
 * session (setsid), and where the kernel groups scheduling by session (autogroup, on by default
 * in many kernels, for processes outside CPU cgroups) niceness only counts within the group:
 * each browser would otherwise get as much CPU as all of Quire. Lowering one's own priority
 * needs no privilege.
 */
export function lowerPriority(pid: number): void {
  try {
    if (os.getPriority(pid) < limits.sessionNice) os.setPriority(pid, limits.sessionNice);
  } catch {
    // Exited already; its exit is reported where it is awaited.
  }
  try {
    fs.writeFileSync(`/proc/${pid}/autogroup`, String(limits.sessionNice));
  } catch {
    // No autogroup scheduling in this kernel (or the process is gone): niceness is enough.
  }
}
