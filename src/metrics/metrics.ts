import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Usage } from '../pipeline/parse-document.ts';

/** What the metrics read of the service's state when scraped, rather than being told of each change. */
export interface MetricsSources {
  /** Busy workers and waiting conversions, now. */
  pool: () => { busy: number; waiting: number; workers: number };
  /** Browser sessions this node holds, now. */
  activeSessions: () => number;
}

/**
 * The service's Prometheus metrics (prom-client), one registry per server so that two servers in
 * one process (tests, benches) do not share counters. Label values are bounded sets: route
 * templates (never raw URLs), formats, status codes, outcome codes.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly requestSeconds: Histogram<'route'>;
  private readonly conversionSeconds: Histogram<'format' | 'outcome'>;
  private readonly pages: Counter<'format'>;
  private readonly ocrPages: Counter<'format'>;
  private readonly queueWaitSeconds: Histogram;
  private readonly workersLost: Counter;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'quire_' });
    this.requests = new Counter({
      name: 'quire_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'quire_http_request_duration_seconds',
      help: 'Time from request to answer, by route template.',
      labelNames: ['route'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.conversionSeconds = new Histogram({
      name: 'quire_conversion_duration_seconds',
      help: 'Time a conversion took, waiting for a worker included, by detected format and outcome (ok or the error code).',
      labelNames: ['format', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.pages = new Counter({
      name: 'quire_pages_parsed_total',
      help: 'Pages of paged documents (PDF, images) parsed.',
      labelNames: ['format'],
      registers,
    });
    this.ocrPages = new Counter({
      name: 'quire_ocr_pages_total',
      help: 'Pages OCR was run on.',
      labelNames: ['format'],
      registers,
    });
    this.queueWaitSeconds = new Histogram({
      name: 'quire_queue_wait_seconds',
      help: 'Time a conversion waited for a worker.',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers,
    });
    this.workersLost = new Counter({
      name: 'quire_worker_restarts_total',
      help: 'Conversion workers replaced after being killed (deadline, memory, client gone) or crashing.',
      registers,
    });
    new Gauge({
      name: 'quire_queue_depth',
      help: 'Conversions waiting for a worker.',
      registers,
      collect() {
        this.set(sources.pool().waiting);
      },
    });
    new Gauge({
      name: 'quire_workers_busy',
      help: 'Conversion workers running a conversion.',
      registers,
      collect() {
        this.set(sources.pool().busy);
      },
    });
    new Gauge({
      name: 'quire_workers',
      help: 'Conversion workers in the pool.',
      registers,
      collect() {
        this.set(sources.pool().workers);
      },
    });
    new Gauge({
      name: 'quire_sessions_active',
      help: 'Browser sessions this node holds.',
      registers,
      collect() {
        this.set(sources.activeSessions());
      },
    });
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.requestSeconds.observe({ route }, seconds);
  }

  conversion(format: string, outcome: string, seconds: number, usage: Usage | undefined): void {
    this.conversionSeconds.observe({ format, outcome }, seconds);
    if (usage?.pages) this.pages.inc({ format }, usage.pages);
    if (usage?.ocrPages) this.ocrPages.inc({ format }, usage.ocrPages);
  }

  queueWait(seconds: number): void {
    this.queueWaitSeconds.observe(seconds);
  }

  workerLost(): void {
    this.workersLost.inc();
  }
}
