import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** One process's group and state, from /proc/<pid>/stat. */
export interface ProcessState {
  pgrp: number;
  zombie: boolean;
}

export function readProcessState(pid: number): ProcessState | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name in parentheses may hold spaces; fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { zombie: fields[0] === 'Z', pgrp: Number(fields[2]) };
}

/** The processes of group `pgid` that still run or are still exiting (zombies left out). */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const state = readProcessState(Number(entry));
    if (state && !state.zombie && state.pgrp === pgid) members.push(Number(entry));
  }
  return members;
}

/**
 * Resolves once group `pgid` has no live process (true), or after `ms` (false). A SIGKILLed
 * process is not gone at once: one with a large heap takes a while to give its memory back,
 * longer on a busy machine, and until then it still counts against the host's free memory.
 */
export async function groupGone(pgid: number, ms: number, pollMs = 20): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (liveGroupMembers(pgid).length > 0) {
    if (performance.now() >= deadline) return false;
    await sleep(pollMs);
  }
  return true;
}
