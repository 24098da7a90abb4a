/**
 * At most `limit` holders at once (model calls in flight, browsers starting); more wait in
 * order. A waiter whose request is cancelled (its deadline, its client gone) leaves the line.
 */
export class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.running >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(wake), 1);
          reject(signal?.reason);
        };
        this.waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } else this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so `running` counts it throughout.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }
}
