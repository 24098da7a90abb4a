import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type FormatId, formatInfo } from '../src/detect/formats.ts';
import { limits } from '../src/limits.ts';
import { bigDocumentsSection, runBigDocuments } from './big-documents.ts';
import { type Case, corpusDir, findCases, repoRoot } from './corpus.ts';
import { crawlSection, runCrawlBench } from './crawl.ts';
import { dash, fmtInt, fmtMb, fmtMs, fmtRatio, fmtScore, table } from './format.ts';
import { hostileSection, runHostileBench } from './hostile.ts';
import { type LoadResult, loadTest, quireSpec, type ServerSpec, type Upload, unmeasured } from './load.ts';
import { machineLine } from './machine.ts';
import { type MainContentResult, mainContentSection, runMainContent } from './maincontent.ts';
import { measureThroughput, pdfSection, runPdfBench } from './pdf.ts';
import { pdfMixSection, runPdfMix } from './pdf-mix.ts';
import { pandocReader, pandocStartupCommand, pandocStartupMs, pandocVersion } from './peers/pandoc.ts';
import { type PdfTool, pdfPeers } from './peers/pdf.ts';
import {
  anydoc,
  anydocVersion,
  lessStartUp,
  pandoc,
  ratioHeader,
  type StartUp,
  startUpNote,
  type Tool,
  timedAs,
} from './peers.ts';
import {
  type FormatScore,
  howTimed,
  loadQuire,
  runQuality,
  type ScoreReport,
  score,
  type ToolRun,
} from './quality.ts';
import { renderSection, runRenderBench } from './render.ts';
import { runScalingBench, scalingSection } from './scaling.ts';
import { runSessionsBench, sessionsSection } from './sessions.ts';
import { median, nowMs, ratio, supportedPercentiles } from './stats.ts';

// npm run bench: corpus quality and ms/doc against pandoc and anydoc, main-content extraction
// against Readability, defuddle and pandoc, PDF against pdftotext, pdf.js, anydoc and Tesseract
// (and the corpus's PDFs as one file against pdftotext, by CPU),
// big synthetic documents against anydoc, then HTTP load against a pandoc-per-request server, the
// embedded mode against cluster mode with 1, 2 and 4 conversion processes (and cluster mode
// overloaded), a second team's small parses while one team sends hostile files (against the same
// parses unloaded), interact sessions against a bare Chromium, and rendered scrapes against a bare
// puppeteer-core loop, crawls against Crawlee and a map against a plain fetch loop (and a second team's
// parses during a crawl), all measured in this one run; writes bench/RESULTS.md.
//
// Environment: QUIRE_CORPUS_DIR (default ../shared/corpus), QUIRE_BENCH_LOAD_SECONDS (default
// 30; 0 skips the load test), QUIRE_BENCH_CONCURRENCY (default 16), QUIRE_BENCH_SESSION_RUNS (create
// latency runs per side, default 20), QUIRE_BENCH_SESSIONS_HELD (sessions held at once, default 30),
// QUIRE_BENCH_HOSTILE_SAMPLES (small parses per phase of the fairness section, default 600: the
// p99 of 200 is their second worst, and the unloaded one moved 17-31 ms between runs),
// QUIRE_BENCH_RENDER_PAGES (app shells rendered per side, default 40), QUIRE_BENCH_CRAWL_PAGES (the two site
// sizes crawled by Quire and by Crawlee, default 500,5000; the larger is also the fairness crawl).
// While working on one part, QUIRE_BENCH_ONLY (sections, comma-separated) and QUIRE_BENCH_FORMATS
// (corpus formats, and the big documents of those formats) narrow the run; a narrowed run writes
// bench/out/RESULTS.partial.md and leaves bench/RESULTS.md alone.

const benchDir = path.join(repoRoot, 'bench');
const outRoot = path.join(benchDir, 'out');
const resultsPath = path.join(benchDir, 'RESULTS.md');
const partialResultsPath = path.join(outRoot, 'RESULTS.partial.md');
const sections = [
  'corpus',
  'maincontent',
  'pdf',
  'pdfmix',
  'big',
  'load',
  'scaling',
  'hostile',
  'sessions',
  'render',
  'crawl',
  'pii',
  'extract',
  'params',
  'product',
] as const;
type Section = (typeof sections)[number];
const apiKey = 'bench-key';
/** pandoc start-up samples taken before and again after the sections that run pandoc. */
const startUpRuns = 20;
const quireMain = path.join(repoRoot, 'src/main.ts');

function intEnv(name: string, fallback: number, min: number, maxValue: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > maxValue)
    throw new Error(`${name} must be an integer from ${min} to ${maxValue}`);
  return n;
}

/** A comma-separated list from the environment, each item checked against what is allowed. */
function listEnv<T extends string>(name: string, allowed: readonly T[]): T[] | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const items = raw.split(',').map((x) => x.trim());
  const unknown = items.filter((x) => !allowed.includes(x as T));
  if (unknown.length > 0)
    throw new Error(`${name}: unknown ${unknown.join(', ')} (known: ${allowed.join(', ')})`);
  return items as T[];
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

// ------------------------------------------------------------------ machine

function commandLine(cmd: string, args: string[]): string | null {
  try {
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      cwd: repoRoot,
    }).trim();
  } catch {
    return null;
  }
}

function machine(): string[] {
  const commit = commandLine('git', ['rev-parse', '--short', 'HEAD']);
  return [
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- Node ${process.version}, pandoc ${pandocVersion()}, @firecrawl/anydoc ${anydocVersion()}`,
    `- Quire: ${commit ? `commit ${commit}` : 'working tree (no commit yet)'}`,
  ];
}

// ------------------------------------------------------------------ quality section

interface Scored {
  run: ToolRun;
  report: ScoreReport | null;
  /** A process-per-document tool's start-up, measured apart (pandoc's). */
  startUp?: StartUp;
}

function scoreCell(s: Scored, format: string): string {
  if (!s.run.formats.includes(format)) return 'n/a';
  const f = s.report?.formats[format];
  if (!f) return dash;
  return f.failed > 0 ? `${fmtScore(f.overall)} (${f.failed}/${f.n} failed)` : fmtScore(f.overall);
}

function formatScore(s: Scored, format: string): FormatScore | undefined {
  return s.run.formats.includes(format) ? s.report?.formats[format] : undefined;
}

/** Median of a format's per-case median times, at full precision (the scorer rounds to 0.1 ms). */
function medianMs(s: Scored, format: string): number | null {
  if (!s.run.formats.includes(format)) return null;
  return median(
    Object.entries(s.run.timings)
      .filter(([key]) => key.startsWith(`${format}/`))
      .map(([, ms]) => ms),
  );
}

function qualitySection(scored: Scored[], formats: string[], cases: Case[]): string[] {
  const quire = scored.find((s) => s.run.tool.id === 'quire');
  const peers = scored.filter((s) => s.run.tool.id !== 'quire');
  const reads = (s: Scored, format: string) => s.run.formats.includes(format);
  /** The peer's time against Quire's, as measured and, for a process per document, less its start-up. */
  const ratioColumns = (q: Scored, p: Scored) => [
    { less: false, header: ratioHeader(q.run.tool, p.run.tool) },
    ...(p.startUp ? [{ less: true, header: ratioHeader(q.run.tool, p.run.tool, 'less start-up') }] : []),
  ];
  const peerMs = (p: Scored, format: string, less: boolean) =>
    less && p.startUp ? lessStartUp(medianMs(p, format), p.startUp) : medianMs(p, format);
  const head = [
    'format',
    'cases',
    ...scored.map((s) => `${s.run.tool.label} score`),
    ...scored.flatMap((s) => [
      `${s.run.tool.label} ms/doc (${timedAs(s.run.tool)})`,
      ...(s.startUp ? [`${s.run.tool.label} ms/doc less its start-up`] : []),
    ]),
    ...(quire ? peers.flatMap((p) => ratioColumns(quire, p).map((c) => c.header)) : []),
  ];
  const rows = formats.map((format) => [
    format,
    String(cases.filter((c) => c.format === format).length),
    ...scored.map((s) => scoreCell(s, format)),
    ...scored.flatMap((s) => [
      reads(s, format) ? fmtMs(medianMs(s, format)) : 'n/a',
      ...(s.startUp ? [reads(s, format) ? fmtMs(peerMs(s, format, true)) : 'n/a'] : []),
    ]),
    ...(quire
      ? peers.flatMap((p) =>
          ratioColumns(quire, p).map((c) =>
            reads(p, format) ? fmtRatio(ratio(medianMs(quire, format), peerMs(p, format, c.less))) : 'n/a',
          ),
        )
      : []),
  ]);

  const metrics = ['text', 'order', 'headings', 'lists', 'tables', 'vectors'] as const;
  const metricRows: string[][] = [];
  for (const format of formats) {
    for (const s of scored) {
      const f = formatScore(s, format);
      if (!f) continue;
      metricRows.push([format, s.run.tool.label, fmtScore(f.overall), ...metrics.map((m) => fmtScore(f[m]))]);
    }
  }

  const failures: string[] = [];
  for (const s of scored) {
    for (const [key, message] of Object.entries(s.run.errors)) {
      failures.push(`- ${s.run.tool.label}, \`${key}\`: ${message.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
  }

  return [
    '## Corpus: quality and speed',
    '',
    'Score: the shared scorer’s `overall` (0–100, mean over the cases of a format; a failed case scores 0). ' +
      'ms/doc: median over the cases of each case’s median wall time. Ratios below 1× mean Quire is faster; each ' +
      'header says what the two times include: Quire and anydoc run in this process, warm, while pandoc starts ' +
      'a new process for every document (it has no server mode), so its times are shown as measured and less its ' +
      'start-up. `n/a`: the tool does not read that format.',
    '',
    table(head, rows),
    '',
    'How each tool ran:',
    '',
    ...scored.map((s) => `- ${s.run.tool.label}: ${s.run.tool.how}; ${howTimed(s.run.tool)}.`),
    ...scored.flatMap((s) => (s.startUp ? [startUpNote(s.run.tool, s.startUp)] : [])),
    '',
    '<details><summary>Per-metric scores</summary>',
    '',
    table(['format', 'tool', 'overall', ...metrics], metricRows),
    '',
    '</details>',
    '',
    ...(failures.length > 0 ? ['Failed cases:', '', ...failures, ''] : []),
  ];
}

// ------------------------------------------------------------------ load section

function latencyPercentile(r: LoadResult, p: number): number | null {
  return p === 50 ? r.p50 : p === 90 ? r.p90 : p === 99 ? r.p99 : null;
}

function loadSection(
  results: LoadResult[],
  opts: { seconds: number; concurrency: number; uploads: Upload[]; processes: number },
): string[] {
  const [quire, peer] = results;
  if (!quire || !peer) return [];
  const both = (f: (r: LoadResult) => string) => [f(quire), f(peer)];
  const withRatio = (
    label: string,
    get: (r: LoadResult) => number | null,
    show: (x: number | null) => string,
  ) => [
    label,
    show(get(quire)),
    show(get(peer)),
    quire.error || peer.error ? dash : fmtRatio(ratio(get(quire), get(peer))),
  ];
  const statuses = (r: LoadResult) =>
    Object.entries(r.statuses)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ') || dash;
  const failures = (r: LoadResult) =>
    Object.entries(r.failures)
      .map(([k, v]) => `${k.slice(0, 60)}: ${v}`)
      .join('; ') || '0';
  const cpuPerRequest = (r: LoadResult) => (r.cpuS === null || r.ok === 0 ? null : (r.cpuS * 1000) / r.ok);
  const rows = [
    ['responses by status', ...both(statuses), ''],
    ['client-side failures', ...both(failures), ''],
    withRatio(
      'successful requests/s',
      (r) => (r.error && r.requests === 0 ? null : r.okRps),
      (x) => (x === null ? dash : x.toFixed(1)),
    ),
    // Only the percentiles both sides' sample counts support (see supportedPercentiles).
    ...supportedPercentiles(Math.min(quire.latencySamples, peer.latencySamples)).map((p) =>
      withRatio(`latency p${p} (ms)`, (r) => latencyPercentile(r, p), fmtMs),
    ),
    withRatio('latency max (ms)', (r) => r.maxMs, fmtMs),
    ['latencies measured (n)', String(quire.latencySamples), String(peer.latencySamples), ''],
    withRatio('peak RSS, server process (MB)', (r) => r.peakRssKb, fmtMb),
    withRatio('peak RSS, server + child processes (MB)', (r) => r.peakTreeRssKb, fmtMb),
    withRatio('VmHWM at end, server process (MB)', (r) => r.vmHwmKb, fmtMb),
    withRatio('CPU ms per successful request (server + children)', cpuPerRequest, fmtMs),
    withRatio(
      'startup to healthy (ms)',
      (r) => r.startupMs ?? null,
      (x) => (x === null ? dash : fmtInt(x)),
    ),
  ];
  const kinds = [...new Set(opts.uploads.map((u) => path.extname(u.name)))].join(', ');
  const errors = results
    .filter((r) => r.error)
    .map((r) => `- ${r.label}: ${r.error!.replace(/\s+/g, ' ').slice(0, 600)}`);
  return [
    '## HTTP load',
    '',
    `${opts.concurrency} concurrent clients for ${opts.seconds} s (after an unmeasured warm-up) each send ` +
      '`POST /v2/parse` (multipart `file` + `options` `{"formats":["markdown"]}`) one after another, cycling over ' +
      `the ${opts.uploads.length} corpus files (${kinds}); latency is send to last response byte, from Node’s fetch ` +
      'in the bench process on the same machine. RSS is sampled from /proc every 100 ms. Quire converts in a pool of ' +
      `${opts.processes} worker processes (QUIRE_WORKERS, the core count); the peer is a minimal node:http server ` +
      '(bench/peers/pandoc-http.ts) that pipes each upload into its own `pandoc -t gfm` process (pandoc 2.17 has ' +
      `no server mode), at most ${opts.processes} at once with the rest waiting in arrival order, like Quire’s queue. ` +
      'So both ratios compare whole requests, each side’s process and thread starts included. For both, the ' +
      '"server + child processes" rows count those processes, and CPU is that of the server and all its child ' +
      'processes.',
    '',
    table(['', quire.label, peer.label, 'Quire / peer (whole requests, same clients)'], rows),
    '',
    ...(errors.length > 0 ? ['Errors:', '', ...errors, ''] : []),
  ];
}

// ------------------------------------------------------------------ main

/** The Content-Type a client would send: the format's first MIME type. */
function mimeTypeOf(format: string): string {
  return formatInfo(format as FormatId).mimeTypes[0] ?? 'application/octet-stream';
}

async function main(): Promise<void> {
  const started = nowMs();
  const loadSeconds = intEnv('QUIRE_BENCH_LOAD_SECONDS', 30, 0, 600);
  const concurrency = intEnv('QUIRE_BENCH_CONCURRENCY', 16, 1, 256);
  const only = listEnv('QUIRE_BENCH_ONLY', sections);
  const runs = (section: Section) => !only || only.includes(section);
  const corpus = corpusDir();
  if (!fs.existsSync(corpus)) throw new Error(`corpus not found at ${corpus} (set QUIRE_CORPUS_DIR)`);

  const notes: string[] = [];
  const quire = await loadQuire();
  let formats: string[];
  const tools: Tool[] = [];
  if (quire.ok) {
    formats = quire.formats;
    tools.push(quire.tool);
  } else {
    formats = ['csv', 'html'];
    notes.push(`Quire could not be loaded in-process, so it was not measured on the corpus: ${quire.error}`);
    log(`! Quire not loadable: ${quire.error}`);
  }
  tools.push(pandoc, anydoc);

  // PDF has its own section (bench/pdf.ts); the other formats share the table below.
  formats = formats.filter((f) => f !== 'pdf');
  const onlyFormats = listEnv('QUIRE_BENCH_FORMATS', formats);
  if (onlyFormats) formats = onlyFormats;
  const cases = findCases(corpus, formats);
  // pandoc's process start, measured apart before and after the sections that run it, so that
  // its per-document times can be shown less the start-up as well as measured.
  const wantsPandoc = runs('corpus') || runs('maincontent');
  const startUpSamples = wantsPandoc ? await pandocStartupMs(startUpRuns) : [];

  let scored: Scored[] = [];
  if (runs('corpus')) {
    log(
      `corpus ${corpus}: ${cases.length} cases in ${formats.join(', ')}; tools ${tools.map((t) => t.id).join(', ')}`,
    );
    for (const run of await runQuality(tools, cases, outRoot))
      scored.push({ run, report: await score(corpus, run) });
    log(`corpus done in ${((nowMs() - started) / 1000).toFixed(0)} s`);
  }

  // Main content: web pages scored on what onlyMainContent keeps, against Readability and defuddle.
  let mainContent: MainContentResult | undefined;
  if (runs('maincontent')) {
    if (quire.ok) mainContent = await runMainContent(quire.tool, corpus, outRoot, log);
    else notes.push('Quire could not be loaded, so the main-content section was not run.');
  }

  if (wantsPandoc) startUpSamples.push(...(await pandocStartupMs(startUpRuns)));
  const startUp: StartUp | undefined =
    startUpSamples.length > 0
      ? { command: pandocStartupCommand, samples: startUpSamples, ms: median(startUpSamples)! }
      : undefined;
  scored = scored.map((s) =>
    s.run.tool.runsIn === 'a process per document' && startUp ? { ...s, startUp } : s,
  );
  const qualityLines = scored.length > 0 ? qualitySection(scored, formats, cases) : [];
  const mainContentLines = mainContent ? mainContentSection(mainContent, startUp) : [];

  // PDF: its corpus is organised by subset, and its peers differ.
  let pdfLines: string[] = [];
  if (runs('pdf')) {
    const pdfTools: PdfTool[] = [];
    if (quire.ok && quire.formats.includes('pdf')) {
      pdfTools.push({
        id: 'quire',
        label: 'Quire',
        how: 'in-process `parseDocument`, mode auto (OCR only for pages without a usable text layer)',
        runsIn: 'this process',
        maxPages: true,
        convert: (file, bytes, opts) =>
          quire.convertWith(bytes, path.basename(file), 'pdf', {
            parsers: [{ type: 'pdf', mode: 'auto', ...(opts.maxPages ? { maxPages: opts.maxPages } : {}) }],
          }),
      });
    } else notes.push('Quire does not convert PDF in this build; the PDF section shows the peers only.');
    pdfTools.push(...pdfPeers);
    log('pdf corpus, by subset');
    const pdfResult = await runPdfBench(pdfTools, corpus, outRoot, log);
    const bigPdf = pdfResult.cases.find((c) => c.subset === 'big');
    const throughput = bigPdf
      ? await measureThroughput(bigPdf.file, bigPdf.vectors.maxPages?.pages ?? 0)
      : [];
    pdfLines = pdfSection(pdfResult, throughput);
  }
  // The corpus's PDFs as one file: speed on many unrelated documents, by CPU.
  if (runs('pdfmix')) {
    log('pdf mix: the corpus PDFs concatenated');
    pdfLines.push(...pdfMixSection(await runPdfMix(corpus, path.join(outRoot, 'pdf-mix'), log)));
  }

  let bigLines: string[] = [];
  if (runs('big')) {
    log('big documents: one conversion per tool in a fresh process');
    bigLines = bigDocumentsSection(
      await runBigDocuments(path.join(outRoot, 'big'), log, onlyFormats && new Set<string>(onlyFormats)),
    );
  }

  // HTTP load: the formats both servers read.
  let loadLines: string[] = [];
  const loadFormats: string[] = formats.filter((f) => pandocReader(f) !== undefined);
  const uploads: Upload[] = cases
    .filter((c) => loadFormats.includes(c.format))
    .map((c) => ({ name: c.name, type: mimeTypeOf(c.format), bytes: c.bytes }));
  if (runs('load') && loadSeconds > 0 && uploads.length > 0) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-'));
    // Quire's default pool size, given to both servers explicitly so the two cannot drift apart.
    const processes = os.availableParallelism();
    try {
      const opts = {
        concurrency,
        seconds: loadSeconds,
        warmupSeconds: Math.min(3, Math.max(1, Math.round(loadSeconds / 10))),
        uploads,
        apiKey,
        options: '{"formats":["markdown"]}',
      };
      const quire = quireSpec(dataDir, apiKey, { QUIRE_WORKERS: String(processes) });
      const peerSpec: ServerSpec = {
        id: 'pandoc-http',
        label: 'pandoc-http',
        script: 'bench/peers/pandoc-http.ts',
        env: { PEER_API_KEY: apiKey, PEER_PANDOC_PROCESSES: String(processes) },
      };
      const results: LoadResult[] = [];
      for (const spec of [quire, peerSpec]) {
        if (spec.id === 'quire' && !fs.existsSync(quireMain)) {
          log('! src/main.ts does not exist yet: Quire’s HTTP load test is skipped');
          results.push(unmeasured(spec, 'src/main.ts does not exist yet, so Quire was not load-tested.'));
          continue;
        }
        log(
          `load: ${spec.label}, ${concurrency} clients, ${opts.warmupSeconds} s warm-up + ${loadSeconds} s`,
        );
        const r = await loadTest(spec, opts);
        log(
          `  ${r.error ? `error: ${r.error.slice(0, 300)}; ` : ''}${r.ok} ok, ${r.okRps.toFixed(1)} req/s, p50 ${fmtMs(r.p50)} ms, p99 ${fmtMs(r.p99)} ms, peak RSS ${fmtMb(r.peakTreeRssKb)} MB`,
        );
        results.push(r);
      }
      loadLines = loadSection(results, { seconds: loadSeconds, concurrency, uploads, processes });
      fs.writeFileSync(path.join(outRoot, 'load.json'), `${JSON.stringify(results, null, 1)}\n`);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  } else if (runs('load')) {
    notes.push('The HTTP load test was skipped (QUIRE_BENCH_LOAD_SECONDS=0 or no HTML/CSV cases).');
  }

  // Scaling: the corpus's documents of every format, with the PDFs that are neither scanned nor big.
  let scalingLines: string[] = [];
  if (runs('scaling')) {
    const pdfs = findCases(path.join(corpus, 'pdf'), ['text', 'tables', 'multicolumn', 'cjk']);
    const mixed: Upload[] = [...findCases(corpus, formats), ...pdfs].map((c) => ({
      name: c.name,
      type: mimeTypeOf(path.extname(c.name).slice(1) === 'pdf' ? 'pdf' : c.format),
      bytes: c.bytes,
    }));
    const seconds = Math.max(10, Math.min(loadSeconds || 20, 20));
    const result = await runScalingBench(
      {
        uploads: mixed,
        apiKey,
        seconds,
        warmupSeconds: 3,
        concurrency: 8,
        workers: [1, 2, 4],
        overloadClients: 48,
        overloadQueue: 8,
      },
      log,
    );
    scalingLines = scalingSection(result);
    fs.mkdirSync(outRoot, { recursive: true });
    fs.writeFileSync(path.join(outRoot, 'scaling.json'), `${JSON.stringify(result, null, 1)}\n`);
  }

  let hostileLines: string[] = [];
  if (runs('hostile')) {
    const result = await runHostileBench(
      {
        samples: intEnv('QUIRE_BENCH_HOSTILE_SAMPLES', 600, 20, 100_000),
        paceMs: 50,
        hostileClients: [1, os.availableParallelism()],
        maxPhaseSeconds: 300,
      },
      log,
    );
    hostileLines = hostileSection(result);
    fs.mkdirSync(outRoot, { recursive: true });
    fs.writeFileSync(path.join(outRoot, 'hostile.json'), `${JSON.stringify(result, null, 1)}\n`);
  }

  let sessionLines: string[] = [];
  if (runs('sessions')) {
    const result = await runSessionsBench(
      {
        runs: intEnv('QUIRE_BENCH_SESSION_RUNS', 20, 1, 1000),
        held: intEnv('QUIRE_BENCH_SESSIONS_HELD', 30, 1, 500),
      },
      log,
    );
    sessionLines = sessionsSection(result);
    fs.mkdirSync(outRoot, { recursive: true });
    fs.writeFileSync(path.join(outRoot, 'sessions.json'), `${JSON.stringify(result, null, 1)}\n`);
  }

  let renderLines: string[] = [];
  if (runs('render')) {
    const result = await runRenderBench(
      { pages: intEnv('QUIRE_BENCH_RENDER_PAGES', 40, 1, 10_000), concurrency: limits.renderPages },
      log,
    );
    renderLines = renderSection(result);
    fs.mkdirSync(outRoot, { recursive: true });
    fs.writeFileSync(path.join(outRoot, 'render.json'), `${JSON.stringify(result, null, 1)}\n`);
  }

  let crawlLines: string[] = [];
  if (runs('crawl')) {
    const sizes = (process.env.QUIRE_BENCH_CRAWL_PAGES || '500,5000').split(',').map(Number);
    if (sizes.length !== 2 || sizes.some((n) => !Number.isInteger(n) || n < 10 || n > 100_000))
      throw new Error('QUIRE_BENCH_CRAWL_PAGES must be two page counts from 10 to 100000, e.g. 500,5000');
    const result = await runCrawlBench(
      {
        pages: sizes,
        concurrency: 8,
        sitemapUrls: 10_000,
        mapRuns: 3,
        samples: 600,
        paceMs: 50,
        fairnessPages: Math.max(...sizes),
      },
      log,
    );
    crawlLines = crawlSection(result);
    fs.mkdirSync(outRoot, { recursive: true });
    fs.writeFileSync(path.join(outRoot, 'crawl.json'), `${JSON.stringify(result, null, 1)}\n`);
  }

  // The labelled sets of redactPII and of offline json have their own scripts (each also writes its
  // folder's RESULTS.md); their reports are taken in whole, one heading level down.
  const scriptReport = (script: string, title: string): string[] => {
    log(`${title}: node ${script}`);
    try {
      execFileSync(process.execPath, [path.join(repoRoot, script), '--write'], {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const report = fs.readFileSync(path.join(repoRoot, path.dirname(script), 'RESULTS.md'), 'utf8');
      return [
        ...report
          .trim()
          .split('\n')
          .map((l) => (l.startsWith('#') ? `#${l}` : l)),
        '',
      ];
    } catch (error) {
      return [
        `## ${title}`,
        '',
        `Not measured: ${error instanceof Error ? error.message : String(error)}`,
        '',
      ];
    }
  };
  const piiLines = runs('pii') ? scriptReport('bench/pii/score.ts', 'PII redaction') : [];
  const extractLines = runs('extract')
    ? scriptReport('bench/extract/score.ts', 'Offline json extraction')
    : [];
  const paramsLines = runs('params')
    ? scriptReport('bench/params-preview/score.ts', 'Params-preview offline reader')
    : [];
  const productLines = runs('product') ? scriptReport('bench/product/score.ts', 'product evidence') : [];

  const totalS = (nowMs() - started) / 1000;
  const md = [
    '# Quire benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); every figure is set against a peer measured in the same run, ' +
      'because absolute numbers on this shared machine are noisy.',
    '',
    'The quality figures come from the corpus Quire’s converters were tuned on (the modern main-content set is a ' +
      'tuning split too), so Quire will likely score lower on documents it has not seen; the peers never saw them.',
    '',
    ...machine(),
    `- Corpus: ${path.relative(repoRoot, corpus) || corpus} (${cases.length} cases); bench run time ${totalS.toFixed(0)} s`,
    '',
    ...(notes.length > 0 ? [...notes.map((n) => `> ${n}`), ''] : []),
    ...(only || onlyFormats
      ? [`> Partial run: sections ${(only ?? sections).join(', ')}; formats ${formats.join(', ')}.`, '']
      : []),
    ...qualityLines,
    ...mainContentLines,
    ...pdfLines,
    ...bigLines,
    ...loadLines,
    ...scalingLines,
    ...hostileLines,
    ...sessionLines,
    ...renderLines,
    ...crawlLines,
    ...piiLines,
    ...extractLines,
    ...paramsLines,
    ...productLines,
    '## How to reproduce',
    '',
    '`npm run bench` (needs `pandoc` on PATH and the shared corpus at ../shared/corpus or `QUIRE_CORPUS_DIR`; ' +
      '`QUIRE_BENCH_LOAD_SECONDS` sets the load duration, 0 skips it). Outputs, timings.json and errors.json per ' +
      'tool are in bench/out/<tool>/; rescore one with ' +
      '`node ../shared/eval/score.mjs --dir ../shared/corpus --outputs bench/out/quire --formats html,csv`.',
    '',
  ].join('\n');
  const target = only || onlyFormats ? partialResultsPath : resultsPath;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, md);
  log(`wrote ${path.relative(process.cwd(), target)} in ${totalS.toFixed(0)} s`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
