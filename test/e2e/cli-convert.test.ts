import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Progress } from '../../src/cli/progress.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { corpusDir, parse, repoRoot, useServer } from '../helpers/server.ts';

const quire = path.join(repoRoot, 'src/cli/quire.ts');
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
    const child = spawn(process.execPath, [quire, ...args], { cwd: repoRoot });
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

describe('quire convert', firstPassOnly('the CLI converting in its own process, no server'), () => {
  it('converts one file to standard output, with only the summary line on stderr off a terminal', async () => {
    const run = await cli(['convert', html]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '# Something\n\nPlease follow the link to: [This page](#) .\n');
    // No progress bar: stderr is a pipe here, so no carriage return, no escape codes, one line.
    assert.match(run.stderr, summary);
    assert.ok(!run.stderr.includes('\r') && !run.stderr.includes('\x1b'), JSON.stringify(run.stderr));
    assert.match(run.stderr, /^quire: 1\/1 files converted, 0 pages/);
  });

  it('converts many files, one output per input in a folder, named after each', async () => {
    const out = path.join(tmp, 'many');
    const run = await cli(['convert', html, docx, pdf, '-o', out, '--jobs', '2']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.deepEqual(fs.readdirSync(out).sort(), [
      'docling-hyperlink_01.md',
      'mid-receipt.md',
      'pandoc-codeblock.md',
    ]);
    assert.match(fs.readFileSync(path.join(out, 'docling-hyperlink_01.md'), 'utf8'), /^# Something/);
    assert.match(
      fs.readFileSync(path.join(out, 'pandoc-codeblock.md'), 'utf8'),
      /This is some code:[\s\S]*readDocx/,
    );
    assert.match(fs.readFileSync(path.join(out, 'mid-receipt.md'), 'utf8'), /TECHMART ELECTRONICS/);
    const [, done, total, pages] = summary.exec(run.stderr) ?? [];
    assert.deepEqual([done, total, pages], ['3', '3', '1'], run.stderr);
  });

  it('expands a glob itself, for shells that do not, and writes the format asked for', async () => {
    const dir = path.join(tmp, 'glob');
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.copyFileSync(html, path.join(dir, 'a.html'));
    fs.copyFileSync(html, path.join(dir, 'sub', 'a.html'));
    const out = path.join(tmp, 'glob-out');
    const run = await cli(['convert', `${dir}/**/*.html`, '--format', 'html', '-o', `${out}/`]);
    assert.equal(run.code, 0, run.stderr);
    // Two inputs named alike: the second output is numbered rather than overwriting the first.
    assert.deepEqual(fs.readdirSync(out).sort(), ['a-2.html', 'a.html']);
    assert.match(fs.readFileSync(path.join(out, 'a.html'), 'utf8'), /<h1>Something<\/h1>/);
  });

  it('reads standard input for -, its type from --name or else from its bytes', async () => {
    const bytes = fs.readFileSync(docx);
    const named = await cli(['convert', '-', '--name', 'report.docx'], bytes);
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stdout, /This is some code:/);
    const sniffed = await cli(['convert', '-', '--format', 'html'], fs.readFileSync(html));
    assert.equal(sniffed.code, 0, sniffed.stderr);
    assert.match(sniffed.stdout, /^<h1>Something<\/h1>/);
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

  describe('failures, with the code and message the API gives', () => {
    const server = useServer();

    it('names each failed file and its reason, converts the rest, and exits non-zero', async () => {
      const junk = path.join(tmp, 'junk.bin');
      fs.writeFileSync(junk, Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 7]));
      const out = path.join(tmp, 'failing');
      const run = await cli(['convert', encrypted, html, junk, path.join(tmp, 'missing.pdf'), '-o', out]);
      assert.equal(run.code, 1, run.stderr);
      assert.deepEqual(fs.readdirSync(out), ['docling-hyperlink_01.md']);

      const api = await parse(server(), {
        file: { bytes: fs.readFileSync(encrypted), filename: path.basename(encrypted) },
      });
      assert.equal(api.status, 400);
      assert.ok(
        run.stderr.includes(`quire: ${encrypted}: ${api.body.code}: ${api.body.error}\n`),
        `${run.stderr}\nAPI: ${JSON.stringify(api.body)}`,
      );
      assert.match(run.stderr, new RegExp(`quire: ${junk}: UNSUPPORTED_FILE_TYPE: `));
      assert.match(run.stderr, /missing\.pdf: no such file\n/);
      const [, done, total, , , failed] = summary.exec(`${run.stderr.split('\n').at(-2)!}\n`) ?? [];
      assert.deepEqual([done, total, failed], ['1', '4', '3'], run.stderr);
    });

    it('refuses invalid options before converting anything, with the API message', async () => {
      const run = await cli(['convert', pdf, '--pdf-mode', 'slow', '--max-pages', '0']);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, '');
      const api = await parse(server(), {
        file: { bytes: fs.readFileSync(pdf), filename: 'mid-receipt.pdf' },
        options: { parsers: [{ type: 'pdf', mode: 'slow', maxPages: 0 }, 'image'] },
      });
      assert.equal(api.status, 400);
      assert.ok(
        run.stderr.includes(`${api.body.code}: ${api.body.error}\n`),
        `${run.stderr}\nAPI: ${api.body.error}`,
      );
    });
  });

  it('runs as an executable with the repository Node, whatever node is first on PATH', async () => {
    const { stdout } = await promisify(execFile)(quire, ['convert', '--help'], {
      env: { ...process.env, PATH: '/usr/bin:/bin' },
    });
    assert.match(stdout, /Usage: quire convert \[options\] \[inputs\.\.\.\]/);
    assert.match(stdout, /--pdf-mode <mode>/);
  });
});

describe('progress', firstPassOnly('the progress display alone, no server'), () => {
  const stream = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, isTTY, columns: 80, write: (text: string) => writes.push(text) };
  };

  it('draws a bar of files and pages in place on a terminal, and ends with the summary line', () => {
    const terminal = stream(true);
    const progress = new Progress(terminal, 2);
    progress.converted(3);
    progress.note('quire: b.pdf: ENCRYPTED_DOCUMENT: …');
    progress.failed();
    const tally = progress.finish();
    assert.deepEqual({ ...tally, seconds: 0 }, { files: 2, converted: 1, failed: 1, pages: 3, seconds: 0 });
    // Each redraw goes back to the line's start and clears it (ESC [K), shown here as <clear>.
    const text = terminal.writes.join('').replaceAll('\r\u001b[K', '<clear>');
    assert.match(text, /^<clear>\[-+\] 0\/2 files, 0 pages, 0 s/);
    assert.match(text, /<clear>\[#+-+\] 1\/2 files, 3 pages, 0 s/);
    assert.match(text, /<clear>quire: b\.pdf: ENCRYPTED_DOCUMENT: …\n/);
    assert.match(text, /<clear>quire: 1\/2 files converted, 3 pages, [\d.]+ s, 1 failed\n$/);
  });

  it('writes only notes and the summary line elsewhere', () => {
    const pipe = stream(false);
    const progress = new Progress(pipe, 1);
    progress.converted(1);
    progress.finish();
    assert.equal(pipe.writes.length, 1);
    assert.match(pipe.writes[0]!, /^quire: 1\/1 files converted, 1 page, [\d.]+ s\n$/);
  });
});
