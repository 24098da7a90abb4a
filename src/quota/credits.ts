import type { FormatId } from '../detect/formats.ts';
import type { Usage } from '../pipeline/parse-document.ts';
import type { Store } from '../store/store.ts';
import type { TeamSettingsCache } from './team-settings.ts';
import { type Account, UsageLedger } from './usage.ts';

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

/**
 * What a request reserves before anything is read: a document costs at least this. A settlement
 * that costs more takes the rest from what is left, down to zero and never below: the work is done
 * by then, and refusing its answer would waste it (the README says so).
 */
export const RESERVED_CREDITS = 1;

export class Credits {
  private readonly store: Store;
  private readonly teams: TeamSettingsCache;
  /** What each team spent, balance or none. */
  readonly usage: UsageLedger;

  constructor(store: Store, teams: TeamSettingsCache, usage: UsageLedger = new UsageLedger(store)) {
    this.store = store;
    this.teams = teams;
    this.usage = usage;
  }

  /** A hold on the account's team's credits, or undefined when its balance cannot pay for a document. */
  async reserve(account: Account): Promise<CreditHold | undefined> {
    const { team } = account;
    let reserved = 0;
    // A team without a balance costs no balance write per request.
    if ((await this.teams.get(team)).metered) {
      const taken = await this.store.reserveCredits(team, RESERVED_CREDITS);
      if (taken === 'short') return undefined;
      if (taken === 'taken') reserved = RESERVED_CREDITS;
    }
    let open = true;
    const close = async (cost: number) => {
      if (!open) return;
      open = false;
      if (reserved !== cost && reserved > 0) await this.store.adjustCredits(team, reserved - cost);
      await this.usage.add(account, { credits: cost });
    };
    return { settle: (cost) => close(cost), release: () => close(0) };
  }
}
