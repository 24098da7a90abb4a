/**
 * Upload bytes held in the API process, node-wide and per team. A parse holds its upload from
 * the first byte until its answer is sent, so forty parallel 40 MB uploads from one key took
 * 750 MB before any team or pool limit looked at them. Bytes are counted as they arrive; past
 * either cap the upload is refused (429) and its bytes are given back at once.
 */
export class UploadBudget {
  private held = 0;
  private readonly byTeam = new Map<string, number>();
  private readonly nodeBytes: number;
  private readonly teamBytes: number;

  constructor(nodeBytes: number, teamBytes: number) {
    this.nodeBytes = nodeBytes;
    this.teamBytes = teamBytes;
  }

  /** An account for one request's upload: `take` as bytes arrive, `releaseAll` when it ends. */
  open(team: string): UploadHold {
    let mine = 0;
    return {
      take: (bytes) => {
        const teamHeld = this.byTeam.get(team) ?? 0;
        if (this.held + bytes > this.nodeBytes) return 'node';
        if (teamHeld + bytes > this.teamBytes) return 'team';
        this.held += bytes;
        this.byTeam.set(team, teamHeld + bytes);
        mine += bytes;
        return undefined;
      },
      releaseAll: () => {
        if (mine === 0) return;
        this.held -= mine;
        const left = (this.byTeam.get(team) ?? mine) - mine;
        if (left > 0) this.byTeam.set(team, left);
        else this.byTeam.delete(team);
        mine = 0;
      },
    };
  }
}

export interface UploadHold {
  /** Counts `bytes` more; names the cap it would pass instead (and counts nothing). */
  take(bytes: number): 'node' | 'team' | undefined;
  releaseAll(): void;
}
