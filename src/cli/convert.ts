import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import type { Command } from 'commander';
import { Option } from 'commander';
import { loadConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { ParseOptions } from '../options/parse-options.ts';
import { validateParseOptions } from '../options/validate.ts';
import { deadline } from '../pipeline/deadline.ts';
import { detectUpload } from '../pipeline/detect-upload.ts';
import type { ParseData } from '../pipeline/parse-document.ts';
import { poolFailure } from '../pipeline/pool-failure.ts';
import { PoolError } from '../pipeline/runner.ts';
import { ConversionPool } from '../pipeline/worker-pool.ts';
import { Progress } from './progress.ts';

/** What `--format` writes, and the extension of the file it writes in an output folder. */
const outputFormats = {
  markdown: '.md',
  html: '.html',
  json: '.json',
  links: '.links.txt',
  images: '.images.txt',
} as const;
type OutputFormat = keyof typeof outputFormats;

const redactModes = ['fast', 'aggressive', 'accurate'];

interface ConvertFlags {
  output?: string;
  format: OutputFormat;
  pdfMode?: string;
  maxPages?: string;
  onlyMainContent?: boolean;
  redactPii?: string | true;
  timeout?: string;
  name?: string;
  jobs?: string;
}

/** One thing to convert: a file, or standard input (`-`). */
interface Input {
  /** How messages name it: the path as given, or `-`. */
  label: string;
  /** The name its type is judged by, as an upload's filename is. */
  filename: string;
  read: () => Promise<Uint8Array>;
}

/** Where the outputs go. */
type Target = { kind: 'stdout' } | { kind: 'file'; path: string } | { kind: 'folder'; path: string };

/** A mistake in the command itself: nothing was converted. */
class UsageError extends Error {}

/** A file that could not be read: there is no API code for that, only the reason. */
class InputError extends Error {}

/** The same requester for every file: the fair queue has one caller to be fair to. */
const requester = { team: 'cli', key: 'cli' };

export function addConvertCommand(program: Command): void {
  program
    .command('convert')
    .description('convert documents to Markdown (or HTML, JSON, links, images) locally, without a server')
    .argument('[inputs...]', 'files, globs (quoted or not) or - for standard input')
    .option(
      '-o, --output <path>',
      'output file (one input) or folder (one output per input); default: standard output',
    )
    .addOption(
      new Option('-f, --format <format>', 'what to write; json is the whole parse envelope the API answers')
        .choices(Object.keys(outputFormats))
        .default('markdown'),
    )
    .option(
      '--pdf-mode <mode>',
      'PDF parsing: fast (text layer only), auto (OCR pages without text), ocr (every page)',
    )
    .option('--max-pages <n>', 'parse at most this many PDF pages')
    .option('--only-main-content', 'web pages: keep only the main content (the default)')
    .option('--no-only-main-content', 'web pages: keep the whole cleaned page')
    .option(
      '--redact-pii [mode]',
      'redact personal information: fast, aggressive or accurate (the default; without a language model it runs as aggressive, with a warning). Write --redact-pii=MODE before the inputs',
    )
    .option(
      '--timeout <ms>',
      `give up on a file after this long (default ${limits.timeoutMaxMs}, the most the API allows)`,
    )
    .option(
      '--name <filename>',
      'the file name standard input is judged by (report.pdf); default: its bytes decide',
    )
    .option(
      '-j, --jobs <n>',
      'files converted at once, each in its own worker process (default: the CPU count)',
    )
    .addHelpText(
      'after',
      `
Options are checked as the API checks them, so a wrong value gets the API's message. A failed file is
named with the API's error code and message, the others are still converted, and the exit code is 1.
On a terminal, a progress bar (files and pages) runs on standard error; a summary line ends every run.

Examples:
  quire convert report.pdf                      Markdown on standard output
  quire convert report.pdf -o report.md
  quire convert 'docs/**/*.docx' *.pdf -o out/   one .md per input in out/
  curl -s https://example.com | quire convert - --name page.html --format links
  quire convert scan.pdf --pdf-mode ocr --max-pages 5 --redact-pii=fast`,
    )
    .action(async (args: string[], flags: ConvertFlags, command: Command) => {
      try {
        process.exitCode = await convert(args, flags);
      } catch (error) {
        if (error instanceof UsageError) command.error(`quire convert: ${error.message}`, { exitCode: 2 });
        throw error;
      }
    });
}

async function convert(args: string[], flags: ConvertFlags): Promise<number> {
  const options = parseOptions(flags);
  // After the options, whose mode check can tell that --redact-pii took the only input as its mode.
  if (args.length === 0) throw new UsageError('give at least one file, glob, or - for standard input');
  const inputs = await expandInputs(args, flags.name);
  const target = chooseTarget(flags.output, inputs.length);
  const jobs = flags.jobs === undefined ? os.availableParallelism() : Number(flags.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new UsageError(`--jobs must be a whole number from 1, not "${flags.jobs}"`);
  if (target.kind === 'folder') await fs.promises.mkdir(target.path, { recursive: true });

  const config = loadConfig();
  const workers = Math.min(jobs, inputs.length);
  const pool = new ConversionPool({
    workers,
    // One user's files: a spare would spare nobody else a wait, and each costs a process start.
    spares: 0,
    heapMb: config.QUIRE_WORKER_HEAP_MB,
    queueSize: workers,
    reserveMs: config.QUIRE_FAIR_RESERVE_MS,
  });
  const progress = new Progress(process.stderr, inputs.length);
  const names = outputNames(inputs, flags.format);
  let next = 0;
  // As many runners as workers, each taking the next file when it is done with one: no file waits
  // in the pool's queue (so its timeout is its conversion's), and only the files being converted
  // are held in memory.
  const runner = async () => {
    for (let i = next++; i < inputs.length; i = next++) {
      const input = inputs[i]!;
      try {
        const { text, pages, warning } = await convertOne(pool, input, options, flags.format);
        if (target.kind === 'stdout') process.stdout.write(text);
        else
          await fs.promises.writeFile(
            target.kind === 'file' ? target.path : path.join(target.path, names[i]!),
            text,
          );
        if (warning) progress.note(`quire: ${input.label}: warning: ${warning}`);
        progress.converted(pages);
      } catch (error) {
        progress.note(`quire: ${input.label}: ${describeFailure(error)}`);
        progress.failed();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, runner));
  } finally {
    await pool.close();
  }
  return progress.finish().failed > 0 ? 1 : 0;
}

/**
 * The flags as the options object an API caller would send, validated by the API's own rules so
 * that a wrong value gets the same message. Numbers that do not parse are passed on as NaN, which
 * the schema refuses with the rule the field has.
 */
function parseOptions(flags: ConvertFlags): ParseOptions {
  const raw: Record<string, unknown> = {
    formats: [flags.format === 'json' ? 'markdown' : flags.format],
    timeout: flags.timeout === undefined ? limits.timeoutMaxMs : Number(flags.timeout),
  };
  if (flags.onlyMainContent !== undefined) raw.onlyMainContent = flags.onlyMainContent;
  if (flags.pdfMode !== undefined || flags.maxPages !== undefined) {
    const pdf: Record<string, unknown> = { type: 'pdf' };
    if (flags.pdfMode !== undefined) pdf.mode = flags.pdfMode;
    if (flags.maxPages !== undefined) pdf.maxPages = Number(flags.maxPages);
    // An explicit list replaces the default one, which also reads images.
    raw.parsers = [pdf, 'image'];
  }
  if (
    typeof flags.redactPii === 'string' &&
    !redactModes.includes(flags.redactPii) &&
    fs.existsSync(flags.redactPii)
  )
    throw new UsageError(
      `--redact-pii took "${flags.redactPii}" as its mode; write --redact-pii=MODE, or put --redact-pii after the inputs`,
    );
  if (flags.redactPii !== undefined)
    raw.redactPII = flags.redactPii === true ? true : { mode: flags.redactPii };
  try {
    return validateParseOptions(raw);
  } catch (error) {
    if (error instanceof ApiError) throw new UsageError(describeFailure(error));
    throw error;
  }
}

const globChars = /[*?[\]{}]/;

/**
 * Files from the arguments: a path that exists is taken as it is, anything else with glob
 * characters is expanded here (for shells that do not, and for quoted patterns), and the rest is
 * kept so that its failure names it. A file named twice is converted once.
 */
async function expandInputs(args: string[], name: string | undefined): Promise<Input[]> {
  const inputs: Input[] = [];
  const seen = new Set<string>();
  const addFile = (file: string) => {
    const resolved = path.resolve(file);
    if (seen.has(resolved)) return;
    seen.add(resolved);
    inputs.push({ label: file, filename: path.basename(file), read: () => readFile(file) });
  };
  for (const arg of args) {
    if (arg === '-') {
      if (seen.has('-')) continue;
      seen.add('-');
      inputs.push({ label: '-', filename: name ?? 'stdin', read: () => buffer(process.stdin) });
    } else if (fs.existsSync(arg) || !globChars.test(arg)) addFile(arg);
    else {
      const matched: string[] = [];
      for await (const entry of fs.promises.glob(arg, { withFileTypes: true }))
        if (entry.isFile()) matched.push(path.join(entry.parentPath, entry.name));
      if (matched.length === 0)
        inputs.push({
          label: arg,
          filename: arg,
          read: () => Promise.reject(new InputError('no file matches this pattern')),
        });
      // Relative to where the pattern was relative to, sorted so that runs are repeatable.
      for (const file of matched.sort())
        addFile(path.isAbsolute(arg) ? file : path.relative(process.cwd(), file));
    }
  }
  if (name !== undefined && !seen.has('-'))
    throw new UsageError('--name names standard input, but - is not among the inputs');
  return inputs;
}

async function readFile(file: string): Promise<Uint8Array> {
  try {
    return await fs.promises.readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError('no such file');
    if (code === 'EISDIR')
      throw new InputError(`is a folder; to convert its files, give a glob such as '${file}/**/*'`);
    throw error;
  }
}

function chooseTarget(output: string | undefined, count: number): Target {
  if (output === undefined) {
    if (count > 1) throw new UsageError(`${count} inputs: give -o <folder> for their outputs`);
    return { kind: 'stdout' };
  }
  const isFolder = fs.existsSync(output) && fs.statSync(output).isDirectory();
  if (isFolder || output.endsWith('/') || output.endsWith(path.sep)) return { kind: 'folder', path: output };
  if (count > 1) {
    if (fs.existsSync(output))
      throw new UsageError(`${count} inputs need an output folder, and ${output} is a file`);
    return { kind: 'folder', path: output };
  }
  return { kind: 'file', path: output };
}

/**
 * Each input's file name in an output folder: its own name with the format's extension
 * (report.pdf: report.md), numbered when two inputs would share one (report-2.md).
 */
function outputNames(inputs: Input[], format: OutputFormat): string[] {
  const taken = new Set<string>();
  return inputs.map((input) => {
    const stem = path.parse(input.filename).name || 'stdin';
    let name = `${stem}${outputFormats[format]}`;
    for (let n = 2; taken.has(name); n++) name = `${stem}-${n}${outputFormats[format]}`;
    taken.add(name);
    return name;
  });
}

interface Converted {
  text: string;
  pages: number;
  warning: string | undefined;
}

/** One file through the API's engine: detection, the worker pool, the answer envelope. */
async function convertOne(
  pool: ConversionPool,
  input: Input,
  options: ParseOptions,
  format: OutputFormat,
): Promise<Converted> {
  const file = { bytes: await input.read(), filename: input.filename, contentType: undefined };
  const { format: detected, warnings } = detectUpload(file, options, false);
  const clock = deadline(options.timeout, 'parse');
  let result: Awaited<ReturnType<ConversionPool['run']>>;
  try {
    const envelope = { scrapeId: randomUUID(), concurrencyLimited: false };
    result = await pool.run(
      { ...file, format: detected, options, warnings, envelope },
      requester,
      clock.signal,
    );
  } catch (error) {
    if (error instanceof PoolError) throw poolFailure(error, clock);
    throw error;
  } finally {
    clock.done();
  }
  if (!result.ok) throw new ApiError(400, result.code, result.message);
  // No summary, json or model redaction is asked for, so the worker answers with the whole body.
  if (!('body' in result)) throw new Error('the conversion worker answered without a body');
  const body = Buffer.from(result.body).toString('utf8');
  const { data } = JSON.parse(body) as { data: ParseData };
  const pages = typeof data.metadata.numPages === 'number' ? data.metadata.numPages : 0;
  return { text: withNewline(render(data, format, body)), pages, warning: data.warning };
}

function render(data: ParseData, format: OutputFormat, body: string): string {
  switch (format) {
    case 'json':
      return body;
    case 'markdown':
      return data.markdown ?? '';
    case 'html':
      return data.html ?? '';
    case 'links':
      return (data.links ?? []).join('\n');
    case 'images':
      return (data.images ?? []).join('\n');
  }
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * The API's code and message for a refusal; the reason alone when a file could not be read; and
 * for anything else, which the API would answer as a 500, its code with the error's own message.
 */
function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return error.code ? `${error.code}: ${error.message}` : error.message;
  if (error instanceof InputError) return error.message;
  return `UNKNOWN_ERROR: ${error instanceof Error ? error.message : String(error)}`;
}
