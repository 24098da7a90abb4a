import fs from 'node:fs';
import os from 'node:os';

/**
 * Whether this process may lower a thread's niceness again after raising it: with CAP_SYS_NICE
 * (root's, unless a container dropped it, as Docker does by default), or an RLIMIT_NICE of 20
 * and above (`ulimit -e 20`). Without it niceness only goes up, so whatever depends on putting
 * it back does not lower it in the first place.
 */
export const mayRaisePriority = hasCapSysNice() || rlimitNice() >= 20;

/**
 * Set every thread of process `pid` to `nice`. Niceness is per thread on Linux (setpriority on a
 * pid changes only its main thread); threads started later inherit their creator's. Blindly,
 * a syscall a thread, rather than reading each one's first.
 */
export function setThreadsNice(pid: number, nice: number): void {
  let threads: string[];
  try {
    threads = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const tid of threads) {
    try {
      os.setPriority(Number(tid), nice);
    } catch {
      // Gone meanwhile, or not ours to raise.
    }
  }
}

/** Set every thread of process `pid` and of all its descendants (OCR processes) to `nice`. */
export function setTreeNice(pid: number, nice: number): void {
  setThreadsNice(pid, nice);
  for (const child of childrenOf(pid)) setTreeNice(child, nice);
}

/** The children of process `pid`, from every thread's list (none once it is gone). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const list = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').trim();
      if (list) children.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    // Gone meanwhile.
  }
  return children;
}

/** CAP_SYS_NICE is bit 23 of the effective capability set. */
function hasCapSysNice(): boolean {
  try {
    const hex = /CapEff:\s+([0-9a-f]+)/.exec(fs.readFileSync('/proc/self/status', 'latin1'))?.[1];
    return hex !== undefined && (BigInt(`0x${hex}`) & (1n << 23n)) !== 0n;
  } catch {
    return false;
  }
}

/** The soft RLIMIT_NICE: a process may lower niceness down to 20 minus it. */
function rlimitNice(): number {
  try {
    const soft = /Max nice priority\s+(\S+)/.exec(fs.readFileSync('/proc/self/limits', 'latin1'))?.[1];
    return soft === 'unlimited' ? 40 : Number(soft ?? 0);
  } catch {
    return 0;
  }
}
