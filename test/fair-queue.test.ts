import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { corpusFile, parse, repoRoot, startServer } from './helpers/server.ts';

const run = promisify(execFile);

/** Resolves once the server has logged `count` conversions submitted for `team`. */
async function submitted(output: () => string, team: string, count: number): Promise<void> {
  const pattern = new RegExp(`"team":"${team}".*"msg":"conversion submitted"`, 'g');
  while ((output().match(pattern)?.length ?? 0) < count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('fair queue', () => {
  it('gives a free worker to a waiting team before the team that holds it gets another', async () => {
    // One worker, so the order in which conversions get it is the whole story.
    const server = await startServer({
      QUIRE_WORKERS: '1',
      QUIRE_TEAM_CONCURRENCY: '8',
      QUIRE_LOG_LEVEL: 'debug',
    });
    try {
      const cli = await run(
        process.execPath,
        [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create', '--team', 'other'],
        {
          env: { ...process.env, QUIRE_DATA_DIR: server.dataDir },
        },
      );
      const otherKey = cli.stdout.trim();
      // A 352-page book OCR'd page by page runs far past these timeouts: each of team
      // default's conversions holds the worker until its own deadline, never less.
      const book = corpusFile('pdf/big/pjs-freeculture-352p.pdf');
      const slow = (timeout: number, controller: AbortController) =>
        fetchParse(
          server,
          book,
          { parsers: [{ type: 'pdf', mode: 'ocr' }], timeout },
          server.key,
          controller,
        );
      const first = slow(3000, new AbortController());
      await submitted(server.output, 'default', 1);
      const later = new AbortController();
      const queued = [slow(60_000, later), slow(60_000, later)];
      const settled: boolean[] = [false, false];
      for (const [i, p] of queued.entries()) {
        const done = () => {
          settled[i] = true;
        };
        p.then(done, done);
      }
      await submitted(server.output, 'default', 3);

      // Team other arrives last, behind two of team default's conversions.
      const small = await parse(server, {
        file: { bytes: '<html><body><h1>Hello</h1><p>Small page.</p></body></html>', filename: 'small.html' },
        key: otherKey,
      });
      assert.equal(small.status, 200, JSON.stringify(small.body));
      assert.match(small.body.data.markdown, /# Hello/);
      assert.equal((await first).status, 408, 'the first slow conversion ran to its own deadline');
      // First come, first served would have run both queued conversions (a minute each) first.
      assert.deepEqual(
        settled,
        [false, false],
        'team default’s queued conversions are still waiting or running',
      );
      later.abort();
      await Promise.allSettled(queued);
    } finally {
      await server.stop();
    }
  });
});

async function fetchParse(
  server: { url: string },
  file: { bytes: Uint8Array; filename: string },
  options: unknown,
  key: string,
  controller: AbortController,
): Promise<{ status: number }> {
  const form = new FormData();
  form.append('options', JSON.stringify(options));
  form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.filename);
  const res = await fetch(`${server.url}/v2/parse`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  await res.arrayBuffer();
  return { status: res.status };
}
