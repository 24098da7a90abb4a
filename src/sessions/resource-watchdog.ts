import fs from 'node:fs';
import { limits } from '../limits.ts';
import { mayRaisePriority, setThreadsNice } from '../process-priority.ts';
import { foldersBytes } from './disk-usage.ts';
import { readProcessState } from './process-group.ts';

const MiB = 1024 * 1024;

/** What one session may use, enforced by ending it. */
export interface SessionCaps {
  memoryMb: number;
  diskMb: number;
  processes: number;
}

export interface WatchedSession {
  /** The browser's process group (its pid: it leads the group). */
  pgid: number;
  /** The session's folder: profile, downloads, uploads, execute scratch. */
  dir: string;
  /** The session went over a cap; called once, with the reason in words. */
  over(reason: string, cap: keyof SessionCaps): void;
}

/**
 * Per-session limits where the host gives Quire no cgroup of its own (cgroup v1, or v2 without
 * delegated controllers): one pass over /proc every sessionMemoryWatchMs sums each browser's
 * private memory and counts its processes; one `du` over the session folders every
 * sessionDiskWatchMs measures their disk, and then any thread a browser running as root raised
 * above sessionNice is lowered again. A session over a cap is reported once and forgotten.
 */
export class ResourceWatchdog {
  private readonly caps: SessionCaps;
  private readonly watched = new Set<WatchedSession>();
  private memoryTimer: NodeJS.Timeout | undefined;
  private diskTimer: NodeJS.Timeout | undefined;
  private measuringDisk = false;
  /** The watched browsers' processes, as the last pass over /proc found them. */
  private members: number[] = [];

  constructor(caps: SessionCaps) {
    this.caps = caps;
  }

  /** Watch a session until the returned function is called (or it goes over a cap). */
  watch(session: WatchedSession): () => void {
    this.watched.add(session);
    this.memoryTimer ??= setInterval(() => this.checkProcesses(), limits.sessionMemoryWatchMs);
    this.diskTimer ??= setInterval(() => void this.checkDisk(), limits.sessionDiskWatchMs);
    return () => this.forget(session);
  }

  close(): void {
    this.watched.clear();
    this.stopTimers();
  }

  private forget(session: WatchedSession): void {
    this.watched.delete(session);
    if (this.watched.size === 0) this.stopTimers();
  }

  private stopTimers(): void {
    clearInterval(this.memoryTimer);
    clearInterval(this.diskTimer);
    this.memoryTimer = undefined;
    this.diskTimer = undefined;
  }

  private report(session: WatchedSession, reason: string, cap: keyof SessionCaps): void {
    if (!this.watched.has(session)) return;
    this.forget(session);
    session.over(reason, cap);
  }

  private checkProcesses(): void {
    const byGroup = new Map<number, WatchedSession>();
    for (const session of this.watched) byGroup.set(session.pgid, session);
    if (byGroup.size === 0) return;
    const totals = new Map<number, { bytes: number; processes: number }>();
    const members: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      const usage = readProcessState(pid);
      if (!usage || usage.zombie || !byGroup.has(usage.pgrp)) continue;
      members.push(pid);
      const total = totals.get(usage.pgrp) ?? { bytes: 0, processes: 0 };
      total.bytes += privateBytes(pid);
      total.processes += 1;
      totals.set(usage.pgrp, total);
    }
    this.members = members;
    for (const [pgid, total] of totals) {
      const session = byGroup.get(pgid)!;
      if (total.bytes > this.caps.memoryMb * MiB) {
        this.report(
          session,
          `its browser used ${Math.ceil(total.bytes / MiB)} MB of memory, over the session cap of ${this.caps.memoryMb} MB`,
          'memoryMb',
        );
      } else if (total.processes > this.caps.processes) {
        this.report(
          session,
          `its browser ran ${total.processes} processes, over the session cap of ${this.caps.processes}`,
          'processes',
        );
      }
    }
  }

  private async checkDisk(): Promise<void> {
    // A slow disk must not pile up walks: the next tick waits for this one.
    if (this.measuringDisk || this.watched.size === 0) return;
    if (mayRaisePriority) renice(this.members);
    this.measuringDisk = true;
    try {
      const sessions = [...this.watched];
      const sizes = await foldersBytes(sessions.map((s) => s.dir));
      for (const session of sessions) {
        const bytes = sizes.get(session.dir) ?? 0;
        if (bytes > this.caps.diskMb * MiB) {
          this.report(
            session,
            `its folder (profile, downloads, uploads) took ${Math.ceil(bytes / MiB)} MB of disk, over the session cap of ${this.caps.diskMb} MB`,
            'diskMb',
          );
        }
      }
    } finally {
      this.measuringDisk = false;
    }
  }
}

/**
 * Chromium raises some of its threads' priority (display and IO threads to nice -8), which only
 * a process allowed to (root, with CAP_SYS_NICE) manages; as another user it cannot, and the
 * niceness every thread inherits at start holds. So the watchdog puts them back where it can.
 */
function renice(pids: readonly number[]): void {
  for (const pid of pids) setThreadsNice(pid, limits.sessionNice);
}

/**
 * Resident memory that is the process's own (RssAnon: heaps, JavaScript, buffers), leaving out
 * mapped files and shared memory, which every Chromium process of a session would count again.
 */
function privateBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^RssAnon:\s+(\d+) kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * What this host's cgroups offer, for the log line saying how session limits are enforced: a
 * cgroup per session needs cgroup v2 with the memory, cpu and pids controllers delegated to
 * Quire, which this build does not set up yet.
 */
export function hostCgroups(): string {
  try {
    const controllers = fs.readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').trim();
    return `cgroup v2 (controllers: ${controllers || 'none'})`;
  } catch {
    return fs.existsSync('/sys/fs/cgroup/unified')
      ? 'cgroup v1, with a v2 hierarchy of no memory, cpu or pids controller (hybrid)'
      : 'cgroup v1 or none';
  }
}
