import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type HostileCase, hostileCases } from '../../scripts/hostile/index.ts';
import { type RunningServer, useServer } from '../helpers/server.ts';
import { otherTeamKey } from '../helpers/sessions.ts';

const MiB = 1024 * 1024;
/** An answer past this is amplification, not an answer (every hostile upload here is under 15 MB). */
const maxAnswerBytes = 50 * MiB;
/** The refusals the README lists for a hostile upload, by status. */
const refusals: Record<number, readonly string[]> = {
  400: [
    'RESOURCE_LIMIT',
    'UNPARSABLE_DOCUMENT',
    'UNSUPPORTED_FILE_TYPE',
    'ENCRYPTED_DOCUMENT',
    'BAD_REQUEST',
  ],
  408: ['SCRAPE_TIMEOUT'],
};
/**
 * Every output at once, pictures inline: what makes an answer biggest. The request's own
 * `timeout` is what must bound a file that converts without end; 5 s shows that as well as a
 * longer one, and each file that reaches it holds a worker for that long in both passes.
 */
const hostileOptions = {
  formats: ['markdown', 'html', 'rawHtml', 'links', 'images'],
  removeBase64Images: false,
  timeout: 5_000,
};

async function upload(server: RunningServer, c: HostileCase) {
  const form = new FormData();
  form.append('options', JSON.stringify({ ...hostileOptions, ...c.options }));
  form.append('file', new Blob([c.build() as Uint8Array<ArrayBuffer>]), c.filename);
  const res = await fetch(`${server.url}/v2/parse`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${server.key}` },
  });
  const raw = Buffer.from(await res.arrayBuffer());
  // Only an answer within bounds is parsed: a runaway one fails on its size alone.
  const body: Record<string, any> | undefined =
    raw.length < maxAnswerBytes ? JSON.parse(raw.toString()) : undefined;
  return { status: res.status, bytes: raw.length, body };
}

/**
 * Every generated hostile file (scripts/hostile) over HTTP, two at a time, while another team
 * keeps sending small pages: each gets a clear refusal or a bounded answer, never a 5xx, and
 * the other team is served throughout. Latency under this load is measured by bench/hostile.ts.
 */
describe('generated hostile uploads', () => {
  // No reserve: with it, the other team's steady requests keep one of the two workers free and
  // the two hostile uploads in flight queue behind each other, their deadlines running out
  // one at a time. The reserve has its own test (fair-queue.test.ts); the other team is still
  // served here, first whenever a worker frees, as the least user of worker time.
  const server = useServer({ QUIRE_WORKERS: '2', QUIRE_FAIR_RESERVE_MS: '0' });
  const served: { status: number; error?: string }[] = [];
  let sending = true;
  let other: Promise<void> = Promise.resolve();

  before(async () => {
    const key = await otherTeamKey(server(), 'other');
    other = (async () => {
      while (sending) {
        const form = new FormData();
        form.append('options', JSON.stringify({ timeout: 120_000 }));
        form.append('file', new Blob(['<h1>Small</h1><p>A page of the other team.</p>']), 'small.html');
        try {
          const res = await fetch(`${server().url}/v2/parse`, {
            method: 'POST',
            body: form,
            headers: { authorization: `Bearer ${key}` },
          });
          const body = (await res.json()) as { data?: { markdown?: string } };
          served.push(
            res.ok && /A page of the other team/.test(body.data?.markdown ?? '')
              ? { status: res.status }
              : { status: res.status, error: JSON.stringify(body).slice(0, 200) },
          );
        } catch (error) {
          served.push({ status: 0, error: String(error) });
        }
        // A client's pace, not a flood: the point is that it is served, not how much.
        await sleep(100);
      }
    })();
  });
  after(async () => {
    sending = false;
    await other;
  });

  describe('each file', { concurrency: 2 }, () => {
    for (const c of hostileCases) {
      it(`${c.name}: ${c.attack}`, async (t) => {
        const { status, bytes, body } = await upload(server(), c);
        const summary = `${status}, ${bytes} bytes: ${JSON.stringify(body ?? {}).slice(0, 300)}`;
        t.diagnostic(
          `${status} ${body?.code ?? ''} ${bytes} bytes${body?.data?.warning ? ', with a warning' : ''}`,
        );
        if (status === 200) {
          assert.ok(bytes < maxAnswerBytes, `answer of ${bytes} bytes`);
          if (c.cut) assert.ok(body?.data?.warning, `nothing says what was left out: ${summary}`);
        } else {
          assert.ok(refusals[status]?.includes(body?.code), `not a documented refusal: ${summary}`);
          assert.ok(typeof body?.error === 'string' && body.error.length > 0, summary);
        }
      });
    }
  });

  it('kept serving the other team throughout, and still answers /health', async () => {
    sending = false;
    await other;
    const failed = served.filter((s) => s.error !== undefined);
    assert.ok(served.length > 0, 'the other team sent nothing');
    assert.deepEqual(failed, [], `${failed.length} of ${served.length} small parses failed`);
    const health = await fetch(`${server().url}/health`);
    assert.equal(health.status, 200);
  });
});
