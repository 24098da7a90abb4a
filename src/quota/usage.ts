import { type LanguageModel, meteredModel } from '../enrich/llm/provider.ts';
import type { Store, UsageMonth } from '../store/store.ts';

/** Who spends: a team, through one of its keys (the historical usage splits by key). */
export interface Account {
  team: string;
  keyId: string;
}

/** The calendar month (UTC) a time falls in, as 'YYYY-MM': Quire's billing period. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** A month's first instant and the next month's, as ISO times: the period is [start, end). */
export function monthBounds(month: string): { start: string; end: string } {
  const [year, index] = month.split('-').map(Number) as [number, number];
  return {
    start: new Date(Date.UTC(year, index - 1, 1)).toISOString(),
    end: new Date(Date.UTC(year, index, 1)).toISOString(),
  };
}

/**
 * What teams spend, by key and calendar month: the credits each answer was charged (whether or
 * not the team has a balance) and the model tokens spent for it. Kept apart from the audit log,
 * which a team may turn off, and holding no content, so zero data retention counts too.
 */
export class UsageLedger {
  private readonly store: Store;
  private readonly now: () => Date;

  /** `now`: the clock a spend is dated by, injected so that tests cross months. */
  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  async add(account: Account, spent: { credits?: number; tokens?: number }): Promise<void> {
    const credits = spent.credits ?? 0;
    const tokens = spent.tokens ?? 0;
    if (credits <= 0 && tokens <= 0) return;
    const at = this.now();
    await this.store.addUsage({ ...account, month: monthOf(at), credits, tokens, at: at.toISOString() });
  }

  /** The model as `account` uses it: the tokens of its calls are added to the account's usage. */
  modelFor(model: LanguageModel | undefined, account: Account): LanguageModel | undefined {
    return model && meteredModel(model, (tokens) => this.add(account, { tokens }));
  }

  read(team: string): Promise<UsageMonth[]> {
    return this.store.readUsage(team);
  }

  /** The current month, by the ledger's clock. */
  month(): string {
    return monthOf(this.now());
  }

  time(): Date {
    return this.now();
  }
}
