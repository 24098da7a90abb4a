import fs from 'node:fs';
import os from 'node:os';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';

const MiB = 1024 * 1024;

/** Sessions held now, on this node and by the team asking for another. */
export interface HeldCount {
  node: number;
  team: number;
}

const busy = (message: string) => new ApiError(429, undefined, message, { headers: { 'retry-after': '30' } });

/**
 * Whether this node starts another session: under its own cap and the team's, with enough
 * free memory and free disk, else 429 before anything is launched. A session counts as starting from its
 * admission until it is held, so concurrent creates see each other.
 */
export class Admission {
  private readonly config: Config;
  private readonly starting = new Map<string, number>();

  constructor(config: Config) {
    this.config = config;
  }

  /** Admit one session of `team`; it counts as starting until the returned function is called. */
  admit(team: string, held: HeldCount): () => void {
    const max = this.config.QUIRE_SESSIONS_MAX;
    if (max === 0) {
      throw new ApiError(
        503,
        undefined,
        'Browser sessions are turned off on this server (QUIRE_SESSIONS_MAX=0).',
      );
    }
    const starting = [...this.starting.values()].reduce((a, b) => a + b, 0);
    if (held.node + starting >= max) {
      throw busy(
        `This server holds its maximum number of concurrent browser sessions (${max}). Please retry after a session ends.`,
      );
    }
    const perTeam = this.config.QUIRE_SESSIONS_PER_TEAM;
    if (held.team + (this.starting.get(team) ?? 0) >= perTeam) {
      throw busy(
        `You have reached the maximum number of concurrent browser sessions (${perTeam}). Delete a session or wait for one to expire.`,
      );
    }
    const freeMb = Math.floor(os.freemem() / MiB);
    if (freeMb < this.config.QUIRE_SESSIONS_MIN_FREE_MB) {
      throw busy(
        `Not enough free memory to start another browser session (${freeMb} MB free, ${this.config.QUIRE_SESSIONS_MIN_FREE_MB} MB kept). Please retry later.`,
      );
    }
    // Measured on the data folder's disk, which sessions' folders and the store share.
    const disk = fs.statfsSync(this.config.QUIRE_DATA_DIR);
    const freeDiskMb = Math.floor((disk.bavail * disk.bsize) / MiB);
    if (freeDiskMb < this.config.QUIRE_SESSIONS_MIN_FREE_DISK_MB) {
      throw busy(
        `Not enough free disk to start another browser session (${freeDiskMb} MB free, ${this.config.QUIRE_SESSIONS_MIN_FREE_DISK_MB} MB kept). Please retry later.`,
      );
    }
    this.starting.set(team, (this.starting.get(team) ?? 0) + 1);
    return () => {
      const left = (this.starting.get(team) ?? 1) - 1;
      if (left === 0) this.starting.delete(team);
      else this.starting.set(team, left);
    };
  }
}
