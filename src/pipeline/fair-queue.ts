/** Who a conversion is for: workers are shared fairly between teams, then between a team's keys. */
export interface Requester {
  team: string;
  key: string;
}

/** A worker held for one conversion; `release` hands it on, counting the time it was held. */
export interface WorkerSlot {
  release(): void;
}

/** Raised when the queue already holds as many waiting conversions as it may. */
export class QueueFullError extends Error {
  constructor() {
    super('the conversion queue is full');
  }
}

interface Ticket {
  who: Requester;
  grant: () => void;
}

export interface FairQueueSettings {
  /** Workers: conversions that may run at once. */
  slots: number;
  /** Conversions that may wait for a worker, all teams together. */
  maxWaiting: number;
  /** How fast a team's past worker time is forgiven: it halves every this many ms. */
  usageHalfLifeMs: number;
  /**
   * How long a team counts as still active after its last conversion was asked for or ended:
   * while it does and holds no worker, another team may not take the last free one.
   */
  reserveMs: number;
  /** Milliseconds from some fixed origin; injected so tests and benches need no real clock. */
  now?: () => number;
  /** Runs `fn` after `ms`; injected with `now`. Returns a cancel function. */
  later?: (fn: () => void, ms: number) => () => void;
}

/**
 * The order in which waiting conversions get a worker. First come, first served let one team
 * that sends slow, hostile files hold every worker while everyone else waited: here
 * - a team gets a free worker only while it holds fewer than its share of the workers
 *   (workers / teams running or waiting, at least one), unless no team under its share is
 *   waiting, so a lone team still uses every worker;
 * - among the teams that may take one, the team that used the least worker time lately goes
 *   first (time held, halving every `usageHalfLifeMs`), then the one waiting longest: a team
 *   whose files take ten times as long gets a tenth of the turns;
 * - within a team, its keys take turns, so one script cannot starve a colleague's;
 * - a team that already holds a worker may not take the last free ones while other teams were
 *   active within `reserveMs` and hold none: one worker stays free for each (all but one at
 *   most), so a team between two requests (a client's round trip) does not come back to every
 *   worker held for minutes by another team's slow files. Workers cannot be taken back from a
 *   conversion once it runs, so this is the only way to keep a team's latency while another
 *   floods the service; a lone team still uses every worker.
 * The cluster mode's queue (RedisJobQueue, ClusterFairness) keeps the second rule, least worker
 * time lately first, over usage kept in Redis, and makes a team's queued jobs count against its
 * next ones so that teams still alternate; a job's place is fixed when it is queued. It does
 * not keep the share of workers, the keys' turns or the reserve, which need the whole queue in
 * view at every dispatch (BullMQ workers each take the next job by priority alone). A conversion
 * that runs long continues in the background there too: the worker's own pool does that.
 */
export class FairQueue {
  private readonly settings: Required<FairQueueSettings>;
  private busy = 0;
  private waitingCount = 0;
  private readonly running = new Map<string, number>();
  /** team → key → tickets in arrival order; Map order is the keys' turn order. */
  private readonly waiting = new Map<string, Map<string, Ticket[]>>();
  /** Arrival number of each team's oldest waiting ticket, for ties. */
  private readonly oldest = new Map<string, number>();
  private readonly usage = new Map<string, { ms: number; at: number }>();
  /** When each team last asked for or gave back a worker, for the reserve. */
  private readonly lastSeen = new Map<string, number>();
  private cancelWakeUp: (() => void) | undefined;
  private arrivals = 0;

  constructor(settings: FairQueueSettings) {
    this.settings = {
      now: () => performance.now(),
      later: (fn, ms) => {
        const timer = setTimeout(fn, ms);
        timer.unref();
        return () => clearTimeout(timer);
      },
      ...settings,
    };
  }

  /** Waits for a worker for `who`; refuses at once when the queue is full, or when `signal` aborts. */
  acquire(who: Requester, signal: AbortSignal): Promise<WorkerSlot> {
    signal.throwIfAborted();
    this.lastSeen.set(who.team, this.settings.now());
    if (this.waitingCount === 0 && this.mayStart(who.team)) return Promise.resolve(this.start(who));
    if (this.waitingCount >= this.settings.maxWaiting) return Promise.reject(new QueueFullError());
    return new Promise((resolve, reject) => {
      const ticket: Ticket = {
        who,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.start(who));
        },
      };
      const onAbort = () => {
        this.withdraw(ticket);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.enqueue(ticket);
      this.dispatch();
    });
  }

  /** What is waiting and running now, for logs and health. */
  stats(): { busy: number; waiting: number; teams: number } {
    return { busy: this.busy, waiting: this.waitingCount, teams: this.activeTeams() };
  }

  private start(who: Requester): WorkerSlot {
    this.busy++;
    this.running.set(who.team, (this.running.get(who.team) ?? 0) + 1);
    const startedAt = this.settings.now();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.busy--;
        const left = (this.running.get(who.team) ?? 1) - 1;
        if (left > 0) this.running.set(who.team, left);
        else this.running.delete(who.team);
        this.charge(who.team, this.settings.now() - startedAt);
        this.lastSeen.set(who.team, this.settings.now());
        this.dispatch();
      },
    };
  }

  private enqueue(ticket: Ticket): void {
    const { team, key } = ticket.who;
    let keys = this.waiting.get(team);
    if (!keys) {
      keys = new Map();
      this.waiting.set(team, keys);
      this.oldest.set(team, this.arrivals);
    }
    this.arrivals++;
    const tickets = keys.get(key);
    if (tickets) tickets.push(ticket);
    else keys.set(key, [ticket]);
    this.waitingCount++;
  }

  private withdraw(ticket: Ticket): void {
    const { team, key } = ticket.who;
    const tickets = this.waiting.get(team)?.get(key);
    const at = tickets?.indexOf(ticket) ?? -1;
    if (!tickets || at < 0) return;
    tickets.splice(at, 1);
    this.waitingCount--;
    if (tickets.length === 0) this.dropKey(team, key);
  }

  private dropKey(team: string, key: string): void {
    const keys = this.waiting.get(team)!;
    keys.delete(key);
    if (keys.size === 0) {
      this.waiting.delete(team);
      this.oldest.delete(team);
    }
  }

  private dispatch(): void {
    this.cancelWakeUp?.();
    this.cancelWakeUp = undefined;
    while (this.busy < this.settings.slots && this.waitingCount > 0) {
      const team = this.nextTeam();
      if (team === undefined) {
        this.wakeUpWhenReserveEnds();
        return;
      }
      const keys = this.waiting.get(team)!;
      // The key whose turn it is goes to the back of the line once served.
      const [key, tickets] = keys.entries().next().value!;
      const ticket = tickets.shift()!;
      keys.delete(key);
      if (tickets.length > 0) keys.set(key, tickets);
      else if (keys.size === 0) {
        this.waiting.delete(team);
        this.oldest.delete(team);
      }
      if (this.waiting.has(team)) this.oldest.set(team, this.arrivals);
      this.waitingCount--;
      ticket.grant();
    }
  }

  /** The waiting team that gets the next free worker, if any may take it now. */
  private nextTeam(): string | undefined {
    const share = Math.max(1, Math.floor(this.settings.slots / this.activeTeams()));
    let best: string | undefined;
    let bestUnder = false;
    let bestUsage = 0;
    for (const team of this.waiting.keys()) {
      if (!this.mayStart(team)) continue;
      const under = (this.running.get(team) ?? 0) < share;
      const used = this.usageOf(team);
      const better =
        best === undefined ||
        (under && !bestUnder) ||
        (under === bestUnder &&
          (used < bestUsage || (used === bestUsage && this.oldest.get(team)! < this.oldest.get(best)!)));
      if (better) {
        best = team;
        bestUnder = under;
        bestUsage = used;
      }
    }
    return best;
  }

  /** Whether `team` may take a free worker now, given the workers held back for other teams. */
  private mayStart(team: string): boolean {
    const free = this.settings.slots - this.busy;
    if (free <= 0) return false;
    if (!this.running.has(team)) return true;
    return free - 1 >= Math.min(this.settings.slots - 1, this.idleRecentTeams(team).length);
  }

  /** Teams other than `team` active within the reserve window that hold and await no worker. */
  private idleRecentTeams(team: string): string[] {
    const now = this.settings.now();
    const idle: string[] = [];
    for (const [other, at] of this.lastSeen) {
      if (now - at >= this.settings.reserveMs) {
        // Stale entries go here, so the map holds only teams seen within the window.
        if (!this.running.has(other) && !this.waiting.has(other)) this.lastSeen.delete(other);
      } else if (other !== team && !this.running.has(other) && !this.waiting.has(other)) idle.push(other);
    }
    return idle;
  }

  /** A worker held back for an idle team is handed on once that team's window has passed. */
  private wakeUpWhenReserveEnds(): void {
    const now = this.settings.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (const [team, at] of this.lastSeen)
      if (!this.running.has(team) && !this.waiting.has(team))
        soonest = Math.min(soonest, at + this.settings.reserveMs - now);
    if (Number.isFinite(soonest))
      this.cancelWakeUp = this.settings.later(() => this.dispatch(), Math.max(1, soonest));
  }

  private activeTeams(): number {
    let n = this.running.size;
    for (const team of this.waiting.keys()) if (!this.running.has(team)) n++;
    return Math.max(1, n);
  }

  private usageOf(team: string): number {
    const u = this.usage.get(team);
    if (!u) return 0;
    return u.ms * 0.5 ** ((this.settings.now() - u.at) / this.settings.usageHalfLifeMs);
  }

  private charge(team: string, ms: number): void {
    this.usage.set(team, { ms: this.usageOf(team) + ms, at: this.settings.now() });
    // Forgotten teams are dropped, so the map does not grow with every team ever seen.
    if (this.usage.size > 10_000) {
      for (const t of this.usage.keys())
        if (this.usageOf(t) < 1 && !this.running.has(t)) this.usage.delete(t);
    }
  }
}
