import fs from 'node:fs';

// What /proc says about processes: memory, CPU time, children. Apart from load.ts (which
// registers exit handlers) so that a timed child process can read its own figures cheaply.

const clockTicks = 100; // USER_HZ: fixed at 100 on Linux for /proc/<pid>/stat

/** A memory figure of /proc/<pid>/status in kB: VmRSS now, VmHWM the peak since exec. */
export function readStatusKb(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .match(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The pid and all its descendants, through every thread's `children` list. */
export function processTree(pid: number): number[] {
  const seen = [pid];
  for (let i = 0; i < seen.length; i++) {
    const p = seen[i]!;
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        for (const c of fs.readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ')) {
          const n = Number(c);
          if (c.trim() && Number.isInteger(n) && !seen.includes(n)) seen.push(n);
        }
      } catch {
        // the thread or process ended between listing and reading
      }
    }
  }
  return seen;
}

/** The fields of /proc/<pid>/stat after the command name (which may itself contain spaces). */
function statFields(pid: number | 'self'): number[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
  } catch {
    return null;
  }
}

/** utime + stime + cutime + cstime in seconds. */
function cpuSeconds(pid: number): number | null {
  const f = statFields(pid);
  return f ? (f[11]! + f[12]! + f[13]! + f[14]!) / clockTicks : null;
}

/**
 * CPU ms (user + system) of this process's children that have ended and been reaped, every
 * thread of theirs included: the kernel adds each child's rusage here when it is waited for, so
 * the difference across one child's run is that child's whole-process CPU time (10 ms steps).
 */
export function reapedChildrenCpuMs(): number | null {
  const f = statFields('self');
  return f ? ((f[13]! + f[14]!) * 1000) / clockTicks : null;
}

/** CPU seconds of a process and every live descendant (ended ones are in their parent's cutime/cstime). */
export function treeCpuSeconds(pid: number): number | null {
  let total = 0;
  for (const p of processTree(pid)) {
    const s = cpuSeconds(p);
    if (s === null && p === pid) return null;
    total += s ?? 0;
  }
  return total;
}
