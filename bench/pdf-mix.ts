import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './corpus.ts';
import { dash, fmtRatio, table } from './format.ts';
import { measureThroughput, type Throughput, timedProcess } from './pdf.ts';
import { errorText } from './quality.ts';
import { ratio } from './stats.ts';

const execFileAsync = promisify(execFile);

/**
 * Speed on a real mix: the corpus's PDFs concatenated into one file with qpdf (many unrelated
 * documents, so many fonts, images and a few scanned pages), Quire's fast mode against
 * pdftotext by CPU as well as wall time, and Quire's auto mode against fast mode plus the OCR
 * of the scanned pages alone. The big subset is left out: it is one book, measured on its own
 * above, and would be most of the file.
 */
const excluded = new Set(['big']);
/** Rounds of the throughput measurement: a Quire conversion of the mix is seconds of CPU. */
const MIX_ROUNDS = 3;
const SCANNED = 'scanned';

interface Part {
  file: string;
  subset: string;
  pages: number;
}

export interface PdfMix {
  file: string;
  pages: number;
  parts: Part[];
  /** Corpus files qpdf refused (encrypted or beyond its repair), with its reason. */
  skipped: string[];
  /** The mix's pages that come from the scanned subset, in a file of their own. */
  scannedFile: string;
  scannedPages: number;
}

/** qpdf's exit code (0 done, 2 failed, 3 done with warnings), output and first error line. */
async function qpdf(args: string[]): Promise<{ code: number; stdout: string; error: string }> {
  try {
    const { stdout } = await execFileAsync('qpdf', args, { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, error: '' };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    // The first line, less the file name qpdf repeats: "file is damaged", "Loop detected in /Pages".
    const first = (e.stderr || errorText(err)).trim().split('\n')[0] ?? '';
    const error = first.slice(first.lastIndexOf(': ') + 2).slice(0, 100);
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', error };
  }
}

/** Done, perhaps with warnings (a file qpdf repaired on the way). */
const done = (r: { code: number }) => r.code === 0 || r.code === 3;

/** The mix, built afresh in `dir` from `<corpus>/pdf/<subset>/*.pdf` in name order. */
export async function buildPdfMix(corpus: string, dir: string): Promise<PdfMix> {
  fs.mkdirSync(dir, { recursive: true });
  const root = path.join(corpus, 'pdf');
  const parts: Part[] = [];
  const skipped: string[] = [];
  const probe = path.join(dir, 'probe.pdf');
  for (const subset of fs.readdirSync(root).sort()) {
    if (excluded.has(subset) || !fs.statSync(path.join(root, subset)).isDirectory()) continue;
    for (const name of fs.readdirSync(path.join(root, subset)).sort()) {
      if (!name.endsWith('.pdf')) continue;
      const file = path.join(root, subset, name);
      const label = `${subset}/${name}`;
      // --requires-password exits 2 for a file that is not encrypted at all.
      if ((await qpdf(['--requires-password', file])).code !== 2) {
        skipped.push(`${label} (encrypted)`);
        continue;
      }
      const alone = await qpdf(['--empty', '--pages', file, '--', probe]);
      const pages = done(alone) ? Number((await qpdf(['--show-npages', probe])).stdout.trim()) : 0;
      if (!(pages > 0)) {
        skipped.push(`${label} (${done(alone) ? 'no pages' : alone.error})`);
        continue;
      }
      parts.push({ file, subset, pages });
    }
  }
  fs.rmSync(probe, { force: true });
  const file = path.join(dir, 'corpus-mix.pdf');
  const made = await qpdf(['--empty', '--pages', ...parts.map((p) => p.file), '--', file]);
  if (!done(made)) throw new Error(`qpdf could not concatenate the corpus: ${made.error}`);
  const scannedFile = path.join(dir, 'corpus-mix-scanned.pdf');
  const scanned = parts.filter((p) => p.subset === SCANNED);
  const madeScanned = await qpdf(['--empty', '--pages', ...scanned.map((p) => p.file), '--', scannedFile]);
  if (!done(madeScanned))
    throw new Error(`qpdf could not concatenate the scanned PDFs: ${madeScanned.error}`);
  return {
    file,
    pages: parts.reduce((n, p) => n + p.pages, 0),
    parts,
    skipped,
    scannedFile,
    scannedPages: scanned.reduce((n, p) => n + p.pages, 0),
  };
}

/** One Quire conversion in a fresh process: the conversion's own CPU, Tesseract's included. */
interface QuireRun {
  cpuMs: number | null;
  wallMs: number | null;
  ocrPages: number | null;
  error?: string;
}

async function quireOnce(file: string, mode: 'fast' | 'auto' | 'ocr'): Promise<QuireRun> {
  const options = JSON.stringify({ parsers: [{ type: 'pdf', mode }] });
  try {
    const { report } = await timedProcess({
      command: process.execPath,
      args: [
        '--max-old-space-size=1536',
        path.join(repoRoot, 'bench/convert-file.ts'),
        'quire',
        file,
        'pdf',
        options,
      ],
    });
    return { cpuMs: report?.cpuMs ?? null, wallMs: report?.ms ?? null, ocrPages: report?.ocrPages ?? null };
  } catch (err) {
    return { cpuMs: null, wallMs: null, ocrPages: null, error: errorText(err) };
  }
}

export interface PdfMixResult {
  mix: PdfMix;
  throughput: Throughput[];
  auto: { mixAuto: QuireRun; mixFast: QuireRun; scannedOcr: QuireRun; scannedFast: QuireRun };
}

export async function runPdfMix(
  corpus: string,
  dir: string,
  log: (line: string) => void,
): Promise<PdfMixResult> {
  const mix = await buildPdfMix(corpus, dir);
  log(`  pdf mix: ${mix.parts.length} PDFs, ${mix.pages} pages (${mix.skipped.length} refused by qpdf)`);
  const throughput = await measureThroughput(
    mix.file,
    mix.pages,
    ['quire', 'quire-1t', 'pdftotext'],
    MIX_ROUNDS,
  );
  log('  pdf mix: auto mode');
  const auto = {
    mixAuto: await quireOnce(mix.file, 'auto'),
    mixFast: await quireOnce(mix.file, 'fast'),
    scannedOcr: await quireOnce(mix.scannedFile, 'ocr'),
    scannedFast: await quireOnce(mix.scannedFile, 'fast'),
  };
  return { mix, throughput, auto };
}

const perCpuSecond = (pages: number, cpuMs: number | null | undefined) =>
  cpuMs == null || cpuMs === 0 ? null : pages / (cpuMs / 1000);
const fmtRate = (x: number | null) => (x === null ? dash : x.toFixed(0));
const seconds = (ms: number | null | undefined) => (ms == null ? dash : (ms / 1000).toFixed(2));
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

export function pdfMixSection(result: PdfMixResult): string[] {
  const { mix, throughput, auto } = result;
  const pages = mix.pages;
  const base = throughput.find((t) => t.id === 'pdftotext')?.fresh;
  const baseRate = perCpuSecond(pages, base?.cpuMs);
  const row = (t: Throughput, measured: string, f: { wallMs: number | null; cpuMs: number | null }) => {
    const rate = perCpuSecond(pages, f.cpuMs);
    const vs = t.id === 'pdftotext' ? dash : fmtRatio(ratio(rate, baseRate));
    return [t.label, t.threads, measured, seconds(f.wallMs), seconds(f.cpuMs), fmtRate(rate), vs];
  };
  const rows = throughput.flatMap((t) =>
    t.fresh.wallMs === null
      ? [[t.label, t.threads, `failed: ${t.error?.slice(0, 120) ?? ''}`]]
      : [
          row(t, 'fresh process, spawn to exit', t.fresh),
          ...(t.warm ? [row(t, 'warm: the second conversion in the same process', t.warm)] : []),
          ...(t.settled
            ? [row(t, 'settled: the 3rd to 5th conversions in the same process', t.settled)]
            : []),
        ],
  );
  const { mixAuto, mixFast, scannedOcr, scannedFast } = auto;
  const extra = minus(mixAuto.cpuMs, mixFast.cpuMs);
  const ocrAlone = minus(scannedOcr.cpuMs, scannedFast.cpuMs);
  const failures = Object.entries(auto).flatMap(([k, r]) =>
    r.error ? [`- ${k}: ${r.error.slice(0, 200)}`] : [],
  );
  const bySubset = new Map<string, { files: number; pages: number }>();
  for (const p of mix.parts) {
    const s = bySubset.get(p.subset) ?? { files: 0, pages: 0 };
    s.files++;
    s.pages += p.pages;
    bySubset.set(p.subset, s);
  }
  return [
    '## PDF: a mix of real documents',
    '',
    `The corpus's PDFs (every subset but big) concatenated with \`qpdf --empty --pages\` into one file of ` +
      `${pages} pages from ${mix.parts.length} unrelated documents (` +
      [...bySubset].map(([s, n]) => `${s} ${n.files} files / ${n.pages} pages`).join(', ') +
      `): many fonts, images and ${mix.scannedPages} scanned pages. ${mix.skipped.length} files qpdf refuses ` +
      `(encrypted, or damaged past its repair) are left out: ${mix.skipped.join('; ') || 'none'}.`,
    '',
    `Medians of ${MIX_ROUNDS} rounds, the tools taking turns, measured as for the big PDF above (CPU is user + ` +
      'system time of the process, every thread and child process included). Pages per CPU-second is the ' +
      'throughput a service bounded by CPU gets; the ratio divides Quire’s by pdftotext’s, pdftotext always as ' +
      'a fresh process (its start included, it has no other mode): a fresh Quire row compares two whole ' +
      'processes (Quire’s includes starting Node, loading its modules and, with two threads, starting the ' +
      'helper), a warm row compares one conversion in a Quire worker that has converted before with ' +
      'pdftotext’s whole process, and a settled row the median of the conversions after that (V8 still ' +
      'optimises the code a conversion runs over the first few; a long-lived worker runs it settled). Above 1× ' +
      'Quire reads more pages per CPU-second.',
    '',
    table(
      [
        'tool',
        'threads reading pages',
        'measured',
        'wall s',
        'CPU s',
        'pages per CPU-second',
        'pages/CPU-s ÷ pdftotext’s (whole process)',
      ],
      rows,
    ),
    '',
    'Auto mode OCRs the pages without a usable text layer. Its cost beyond fast mode on the mix should be the ' +
      'OCR of those pages and nothing more, which is measured apart on a file of the mix’s scanned pages alone ' +
      '(`ocr` mode less `fast` mode there). One fresh process per conversion, the conversion’s own CPU ' +
      '(after module load; Tesseract’s processes included), Quire’s default threads (`QUIRE_PDF_THREADS`: one on machines of fewer than 4 cores), one run each:',
    '',
    table(
      ['conversion', 'pages OCR’d', 'wall s', 'CPU s'],
      [
        [
          'auto mode, the mix',
          String(mixAuto.ocrPages ?? dash),
          seconds(mixAuto.wallMs),
          seconds(mixAuto.cpuMs),
        ],
        ['fast mode, the mix', '0', seconds(mixFast.wallMs), seconds(mixFast.cpuMs)],
        [
          `ocr mode, the ${mix.scannedPages} scanned pages alone`,
          String(scannedOcr.ocrPages ?? dash),
          seconds(scannedOcr.wallMs),
          seconds(scannedOcr.cpuMs),
        ],
        ['fast mode, the scanned pages alone', '0', seconds(scannedFast.wallMs), seconds(scannedFast.cpuMs)],
        ['auto − fast on the mix (what auto adds)', '', '', seconds(extra)],
        ['ocr − fast on the scanned pages (their OCR)', '', '', seconds(ocrAlone)],
        [
          'what auto adds ÷ the scanned pages’ OCR (1× is nothing more)',
          '',
          '',
          fmtRatio(ratio(extra, ocrAlone)),
        ],
      ],
    ),
    '',
    ...(failures.length > 0 ? ['Failures:', '', ...failures, ''] : []),
  ];
}
