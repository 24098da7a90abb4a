/** Where progress goes: standard error, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface RunTally {
  files: number;
  converted: number;
  failed: number;
  pages: number;
  seconds: number;
}

const redrawMs = 100;

/**
 * Files done of the total and pages converted, as one line redrawn in place on a terminal. Off the
 * terminal (a pipe, a log file, CI) only notes and the summary line are written: carriage
 * returns would garble the log. A timer redraws the elapsed time so that a long conversion is
 * visibly alive.
 */
export class Progress {
  private readonly stream: ProgressStream;
  private readonly bar: boolean;
  private readonly started = performance.now();
  private readonly tally: RunTally;
  private ticker: NodeJS.Timeout | undefined;
  private lastDraw = 0;

  constructor(stream: ProgressStream, files: number) {
    this.stream = stream;
    this.bar = stream.isTTY === true;
    this.tally = { files, converted: 0, failed: 0, pages: 0, seconds: 0 };
    if (this.bar) {
      this.ticker = setInterval(() => this.draw(), 1000);
      this.ticker.unref();
      this.draw();
    }
  }

  converted(pages: number): void {
    this.tally.converted++;
    this.tally.pages += pages;
    this.drawSoon();
  }

  failed(): void {
    this.tally.failed++;
    this.drawSoon();
  }

  /** A line of its own (a failure, a warning), above the bar. */
  note(line: string): void {
    this.stream.write(`${this.bar ? '\r\x1b[K' : ''}${line}\n`);
    if (this.bar) this.draw();
  }

  /** Removes the bar and writes the summary line; returns the tally. */
  finish(): RunTally {
    clearInterval(this.ticker);
    const t = { ...this.tally, seconds: (performance.now() - this.started) / 1000 };
    const failures = t.failed > 0 ? `, ${t.failed} failed` : '';
    this.stream.write(
      `${this.bar ? '\r\x1b[K' : ''}quire: ${t.converted}/${t.files} files converted, ${plural(t.pages, 'page')}, ${t.seconds.toFixed(1)} s${failures}\n`,
    );
    return t;
  }

  private drawSoon(): void {
    if (this.bar && performance.now() - this.lastDraw >= redrawMs) this.draw();
  }

  private draw(): void {
    this.lastDraw = performance.now();
    const t = this.tally;
    const done = t.converted + t.failed;
    const seconds = Math.round((this.lastDraw - this.started) / 1000);
    const text = ` ${done}/${t.files} files, ${plural(t.pages, 'page')}${t.failed ? `, ${t.failed} failed` : ''}, ${seconds} s`;
    const width = Math.max(10, Math.min(30, (this.stream.columns ?? 80) - text.length - 3));
    const filled = t.files === 0 ? width : Math.round((width * done) / t.files);
    this.stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${text}`);
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
