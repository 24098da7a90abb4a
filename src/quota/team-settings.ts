import { zdrForbidden } from '../errors.ts';
import { type Store, type TeamSettings, teamDefaults, type ZdrPolicy } from '../store/store.ts';

/** A team's settings with the server's defaults filled in: what its requests are held to. */
export interface EffectiveSettings {
  concurrency: number;
  /** Requests that may wait for a concurrency slot at once; null: no limit. */
  queueDepth: number | null;
  /** Requests per minute for the team; 0: no limit. */
  ratePerMinute: number;
  /** Requests per minute for each key; 0: no limit. */
  keyRatePerMinute: number;
  audit: boolean;
  zdr: ZdrPolicy;
  /** Whether the team has a credit balance (null in the store: unlimited). */
  metered: boolean;
}

/** What applies where a team has set nothing: today's environment variables. */
export interface SettingsDefaults {
  concurrency: number;
  ratePerMinute: number;
}

/**
 * How long a team's settings are reused before the store is read again. Every request looks at
 * them (rate limit, concurrency, audit, zero data retention, credits), so without a cache each
 * would cost a store read; a change made with `quire teams set` takes effect within this time.
 * Credit balances are not cached: only whether a team has one.
 */
export const SETTINGS_TTL_MS = 5_000;

export class TeamSettingsCache {
  private readonly entries = new Map<string, { until: number; settings: Promise<EffectiveSettings> }>();
  private readonly store: Store;
  private readonly defaults: SettingsDefaults;
  private readonly now: () => number;

  /** `now`: milliseconds from a fixed origin, injected so that tests move the cache's clock. */
  constructor(store: Store, defaults: SettingsDefaults, now: () => number = () => performance.now()) {
    this.store = store;
    this.defaults = defaults;
    this.now = now;
  }

  get(team: string): Promise<EffectiveSettings> {
    const now = this.now();
    const cached = this.entries.get(team);
    if (cached && cached.until > now) return cached.settings;
    // Concurrent requests of one team share a single read; a failed read is not kept.
    const settings = this.store.getTeam(team).then((stored) => this.effective(stored ?? teamDefaults(team)));
    settings.catch(() => {
      if (this.entries.get(team)?.settings === settings) this.entries.delete(team);
    });
    this.entries.set(team, { until: now + SETTINGS_TTL_MS, settings });
    return settings;
  }

  private effective(stored: TeamSettings): EffectiveSettings {
    return {
      concurrency: stored.concurrency ?? this.defaults.concurrency,
      // No server-wide default: unset, a team's waiters are bounded only by their own timeouts.
      queueDepth: stored.queueDepth,
      ratePerMinute: stored.ratePerMinute ?? this.defaults.ratePerMinute,
      keyRatePerMinute: stored.keyRatePerMinute ?? 0,
      audit: stored.audit,
      zdr: stored.zdr,
      metered: stored.credits !== null,
    };
  }
}

/**
 * A request's options under its team's zero-data-retention policy: `forced` turns it on,
 * `forbidden` refuses a request that asks for it (behaviour doc, decision 8).
 */
export function underZdrPolicy<T extends { zeroDataRetention: boolean }>(options: T, policy: ZdrPolicy): T {
  if (policy === 'forbidden' && options.zeroDataRetention) throw zdrForbidden();
  return policy === 'forced' ? { ...options, zeroDataRetention: true } : options;
}
