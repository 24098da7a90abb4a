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
  /** Whether the team has a balance to hold credits from. */
  readonly metered: boolean;
  /**
   * Hold up to `n` more credits, for work whose cost is learnt before it is done (a PDF's
   * pages); how many the balance gave (all `n` for a team without one).
   */
  extend(n: number): Promise<number>;
  settle(cost: number): Promise<void>;
  release(): Promise<void>;
}

/**
 * What a request reserves before anything is read: a document costs at least this. What else it
 * costs (a PDF's pages) is held with `extend` before that work is done; a settlement that costs
 * more than was held (a cached answer) takes the rest from what is left, down to zero and never
 * below.
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
    const metered = reserved > 0;
    const extend = async (n: number) => {
      if (!open || !metered) return n;
      let taken = (await this.store.takeCredits(team, n, 1)) ?? n;
      if (taken === 0 && reserved > 0) {
        // The balance may be all in holds like this one, each waiting for a page that none can
        // pay: give the document's credit back and ask for it and pages at once, so that some
        // request gets both rather than every one a 402.
        await this.store.adjustCredits(team, reserved);
        const both = (await this.store.takeCredits(team, reserved + n, reserved + 1)) ?? reserved + n;
        taken = both > 0 ? both - reserved : 0;
        if (both === 0) reserved = 0;
      }
      reserved += taken;
      return taken;
    };
    return { metered, extend, settle: (cost) => close(cost), release: () => close(0) };
  }
}
