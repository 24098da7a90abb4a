import type { FormatId } from '../detect/formats.ts';
import type { Usage } from '../pipeline/parse-document.ts';
import type { Store } from '../store/store.ts';
import type { TeamSettingsCache } from './team-settings.ts';

/** What a document costs: one credit, plus one per PDF page parsed (its OCR'd pages are among them). */
export function creditCost(format: FormatId, usage: Usage): number {
  return 1 + (format === 'pdf' ? usage.pages : 0);
}

/**
 * Credits held for one request from its start: `settle` charges what the document cost, `release`
 * gives them all back (a failed request costs nothing). Whichever comes first counts; later
 * calls do nothing, so a route can release in `finally` after settling.
 */
export interface CreditHold {
  settle(cost: number): Promise<void>;
  release(): Promise<void>;
}

const unmetered: CreditHold = { settle: async () => {}, release: async () => {} };

/**
 * What a request reserves before anything is read: a document costs at least this. A settlement
 * that costs more takes the rest from what is left, down to zero and never below: the work is done
 * by then, and refusing its answer would waste it (the README says so).
 */
export const RESERVED_CREDITS = 1;

export class Credits {
  private readonly store: Store;
  private readonly teams: TeamSettingsCache;

  constructor(store: Store, teams: TeamSettingsCache) {
    this.store = store;
    this.teams = teams;
  }

  /** A hold on the team's credits, or undefined when its balance cannot pay for a document. */
  async reserve(team: string): Promise<CreditHold | undefined> {
    // A team without a balance costs no store write per request.
    if (!(await this.teams.get(team)).metered) return unmetered;
    const reserved = await this.store.reserveCredits(team, RESERVED_CREDITS);
    if (reserved === 'short') return undefined;
    if (reserved === 'unlimited') return unmetered;
    let open = true;
    const close = async (delta: number) => {
      if (!open) return;
      open = false;
      if (delta !== 0) await this.store.adjustCredits(team, delta);
    };
    return { settle: (cost) => close(RESERVED_CREDITS - cost), release: () => close(RESERVED_CREDITS) };
  }
}
