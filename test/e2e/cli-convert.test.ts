import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { useApp } from '../helpers/app.ts';
import { cliEnv, quire } from '../helpers/cli.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { corpusDir, parse, repoRoot } from '../helpers/server.ts';

const html = path.join(corpusDir, 'html/docling-hyperlink_01.html');
const docx = path.join(corpusDir, 'docx/pandoc-codeblock.docx');
const pdf = path.join(corpusDir, 'pdf/text/mid-receipt.pdf');
const encrypted = path.join(corpusDir, 'pdf/broken/doc-password-2206.01062_pg3.pdf');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a process, its standard streams pipes (so not a terminal), `input` on its stdin. */
function cli(args: string[], input?: Uint8Array | string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [quire, ...args], { cwd: repoRoot, env: cliEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const summary = /^quire: (\d+)\/(\d+) files converted, (\d+) pages?, [\d.]+ s(, (\d+) failed)?\n$/;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * `quire convert` as a process, the subject here: each run starts a pool of conversion workers,
 * so one run asserts what several inputs show together. Where the CLI must say what the API says,
 * the API is Quire's app in this process.
 */
describe('quire convert', firstPassOnly('the CLI converting in its own process, no server'), () => {
  const app = useApp({ QUIRE_WORKERS: '1' });

  it('converts one file to standard output, with only the summary line on stderr off a terminal', async () => {
    const run = await cli(['convert', html]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '# Something\n\nPlease follow the link to: [This page](#) .\n');
    // No progress bar: stderr is a pipe here, so no carriage return, no escape codes, one line.
    assert.match(run.stderr, summary);
    assert.ok(!run.stderr.includes('\r') && !run.stderr.includes('\x1b'), JSON.stringify(run.stderr));
    assert.match(run.stderr, /^quire: 1\/1 files converted, 0 pages/);
  });

  it('converts many files, standard input among them (its type from --name), one output per input in a folder, named after each; names each failed file with the API code and message, converts the rest, and exits non-zero', async () => {
    const junk = path.join(tmp, 'junk.bin');
    fs.writeFileSync(junk, Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 7]));
    const out = path.join(tmp, 'many');
    const run = await cli(
      [
        'convert',
        html,
        docx,
        pdf,
        '-',
        encrypted,
        junk,
        path.join(tmp, 'missing.pdf'),
        '--name',
        'report.docx',
        '-o',
        out,
        '--jobs',
        '2',
      ],
      fs.readFileSync(docx),
    );
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, '');
    // One output per converted input; the failed ones write nothing.
    assert.deepEqual(fs.readdirSync(out).sort(), [
      'docling-hyperlink_01.md',
      'mid-receipt.md',
      'pandoc-codeblock.md',
      'report.md',
    ]);
    assert.match(fs.readFileSync(path.join(out, 'docling-hyperlink_01.md'), 'utf8'), /^# Something/);
    assert.match(
      fs.readFileSync(path.join(out, 'pandoc-codeblock.md'), 'utf8'),
      /This is some code:[\s\S]*readDocx/,
    );
    assert.match(fs.readFileSync(path.join(out, 'mid-receipt.md'), 'utf8'), /TECHMART ELECTRONICS/);
    assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /This is some code:/);

    const api = await parse(app(), {
      file: { bytes: fs.readFileSync(encrypted), filename: path.basename(encrypted) },
    });
    assert.equal(api.status, 400);
    assert.ok(
      run.stderr.includes(`quire: ${encrypted}: ${api.body.code}: ${api.body.error}\n`),
      `${run.stderr}\nAPI: ${JSON.stringify(api.body)}`,
    );
    assert.match(run.stderr, new RegExp(`quire: ${junk}: UNSUPPORTED_FILE_TYPE: `));
    assert.match(run.stderr, /missing\.pdf: no such file\n/);
    const [, done, total, pages, , failed] = summary.exec(`${run.stderr.split('\n').at(-2)!}\n`) ?? [];
    assert.deepEqual([done, total, pages, failed], ['4', '7', '1', '3'], run.stderr);
  });

  it('expands a glob itself, for shells that do not, reads standard input for - (its type from its bytes), and writes the format asked for', async () => {
    const dir = path.join(tmp, 'glob');
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.copyFileSync(html, path.join(dir, 'a.html'));
    fs.copyFileSync(html, path.join(dir, 'sub', 'a.html'));
    const out = path.join(tmp, 'glob-out');
    const run = await cli(
      ['convert', `${dir}/**/*.html`, '-', '--format', 'html', '-o', `${out}/`],
      fs.readFileSync(html),
    );
    assert.equal(run.code, 0, run.stderr);
    // Two inputs named alike: the second output is numbered rather than overwriting the first;
    // standard input without --name is named `stdin`.
    assert.deepEqual(fs.readdirSync(out).sort(), ['a-2.html', 'a.html', 'stdin.html']);
    assert.match(fs.readFileSync(path.join(out, 'a.html'), 'utf8'), /<h1>Something<\/h1>/);
    assert.match(fs.readFileSync(path.join(out, 'stdin.html'), 'utf8'), /^<h1>Something<\/h1>/);
  });

  it('--format json writes the whole envelope the API answers', async () => {
    const run = await cli(['convert', pdf, '--format', 'json', '--pdf-mode', 'fast']);
    assert.equal(run.code, 0, run.stderr);
    const envelope = JSON.parse(run.stdout);
    assert.equal(envelope.success, true);
    assert.match(envelope.data.markdown, /TECHMART ELECTRONICS/);
    assert.equal(envelope.data.metadata.sourceURL, 'mid-receipt.pdf');
    assert.equal(envelope.data.metadata.url, 'https://uploads.quire.invalid/mid-receipt.pdf');
    assert.equal(envelope.data.metadata.contentType, 'application/pdf');
    assert.equal(envelope.data.metadata.numPages, 1);
    assert.equal(envelope.data.metadata.statusCode, 200);
    assert.match(envelope.data.metadata.scrapeId, /^[0-9a-f-]{36}$/);
  });

  it('refuses invalid options before converting anything, with the API message', async () => {
    const run = await cli(['convert', pdf, '--pdf-mode', 'slow', '--max-pages', '0']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    const api = await parse(app(), {
      file: { bytes: fs.readFileSync(pdf), filename: 'mid-receipt.pdf' },
      options: { parsers: [{ type: 'pdf', mode: 'slow', maxPages: 0 }, 'image'] },
    });
    assert.equal(api.status, 400);
    assert.ok(
      run.stderr.includes(`${api.body.code}: ${api.body.error}\n`),
      `${run.stderr}\nAPI: ${api.body.error}`,
    );
  });

  it('runs as an executable with the repository Node, whatever node is first on PATH', async () => {
    const { stdout } = await promisify(execFile)(quire, ['convert', '--help'], {
      env: { ...cliEnv, PATH: '/usr/bin:/bin' },
    });
    assert.match(stdout, /Usage: quire convert \[options\] \[inputs\.\.\.\]/);
    assert.match(stdout, /--pdf-mode <mode>/);
  });
});
