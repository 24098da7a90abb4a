import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type HostileCase, hostileCases } from '../../scripts/hostile/index.ts';
import { Random } from '../../scripts/hostile/mutate.ts';
import { type InProcessApp, useApp } from '../helpers/app.ts';
import { type HostileExpectation, hostileExpectations } from '../helpers/hostile-expectations.ts';
import { parse } from '../helpers/server.ts';
import { otherTeamKey } from '../helpers/sessions.ts';

const MiB = 1024 * 1024;
/** An answer past this is amplification, not an answer (every hostile upload here is under 15 MB). */
const maxAnswerBytes = 50 * MiB;
/** Every output at once, pictures inline: what makes an answer biggest. */
const hostileOptions = {
  formats: ['markdown', 'html', 'rawHtml', 'links', 'images'],
  removeBase64Images: false,
};
/**
 * The request's timeout. A file that converts without end must be bounded by it: 2 s shows that
 * as well as a longer one does. Any other file is given what a loaded machine needs, so that
 * its answer is its own, never a timeout.
 */
const timeoutFor = (expected: HostileExpectation) => (expected.status === 408 ? 2_000 : 300_000);

/**
 * The sample `npm test` sends, fixed by its seed: two files of each kind of answer (a 200 with
 * and without a warning, each refusal code, the timeout), drawn from the files that take less
 * than a second of CPU. QUIRE_HOSTILE_ALL=1 sends every file; bench/hostile.ts measures the
 * latency of another team's parses while the whole set is sent.
 */
function sample(seed: number, perKind: number): HostileCase[] {
  const rnd = new Random(seed);
  const kinds = new Map<string, HostileCase[]>();
  for (const c of hostileCases) {
    const expected = hostileExpectations[c.name];
    if (!expected || expected.heavy) continue;
    const kind =
      expected.status === 200
        ? `200 ${expected.warning ? 'warning' : 'whole'}`
        : `${expected.status} ${expected.code}`;
    kinds.set(kind, [...(kinds.get(kind) ?? []), c]);
  }
  return [...kinds.values()].flatMap((cases) => {
    const left = [...cases];
    return Array.from(
      { length: Math.min(perKind, left.length) },
      () => left.splice(rnd.int(left.length), 1)[0]!,
    );
  });
}

const chosen = process.env.QUIRE_HOSTILE_ALL === '1' ? hostileCases : sample(1, 2);

async function upload(app: InProcessApp, c: HostileCase, expected: HostileExpectation) {
  const form = new FormData();
  form.append('options', JSON.stringify({ ...hostileOptions, timeout: timeoutFor(expected), ...c.options }));
  form.append('file', new Blob([c.build() as Uint8Array<ArrayBuffer>]), c.filename);
  const res = await app.fetch('/v2/parse', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${app.key}` },
  });
  const raw = Buffer.from(await res.arrayBuffer());
  // Only an answer within bounds is parsed: a runaway one fails on its size alone.
  const body: Record<string, any> | undefined =
    raw.length < maxAnswerBytes ? JSON.parse(raw.toString()) : undefined;
  return { status: res.status, bytes: raw.length, body };
}

/**
 * Generated hostile files (scripts/hostile) in-process, two at a time, each beside a small page
 * of another team: each gets its own expected answer (status, code, what its message says, or
 * whether a 200 says what it left out), never a 5xx, and the other team's page is served while
 * it converts.
 */
describe('generated hostile uploads', () => {
  // No reserve: with it, the other team's requests keep one of the two workers free and the two
  // hostile uploads in flight queue behind each other. The reserve has its own test
  // (fair-queue.test.ts); the other team is still served here, first whenever a worker frees,
  // as the least user of worker time.
  const app = useApp({ QUIRE_WORKERS: '2', QUIRE_FAIR_RESERVE_MS: '0' });
  let otherKey: Promise<string> | undefined;

  it('has an expected answer for every generated file', () => {
    assert.deepEqual(
      hostileCases.map((c) => c.name).filter((name) => !hostileExpectations[name]),
      [],
    );
    assert.deepEqual(
      Object.keys(hostileExpectations).filter((name) => !hostileCases.some((c) => c.name === name)),
      [],
    );
    // A file that holds more than Quire reads says so whenever it is answered.
    for (const c of hostileCases) {
      const expected = hostileExpectations[c.name]!;
      if (c.cut && expected.status === 200) assert.equal(expected.warning, true, c.name);
    }
  });

  describe('each file', { concurrency: 2 }, () => {
    for (const c of chosen) {
      const expected = hostileExpectations[c.name]!;
      it(`${c.name}: ${c.attack}`, { timeout: timeoutFor(expected) + 60_000 }, async (t) => {
        otherKey ??= otherTeamKey(app(), 'other');
        const key = await otherKey;
        const hostile = upload(app(), c, expected);
        // The other team's page goes out while the hostile file is in flight.
        const other = parse(app(), {
          key,
          file: { bytes: '<h1>Small</h1><p>A page of the other team.</p>', filename: 'small.html' },
          options: { timeout: 300_000 },
        });
        const { status, bytes, body } = await hostile;
        const summary = `${status}, ${bytes} bytes: ${JSON.stringify(body ?? {}).slice(0, 300)}`;
        t.diagnostic(
          `${status} ${body?.code ?? ''} ${bytes} bytes${body?.data?.warning ? ', with a warning' : ''}`,
        );
        assert.equal(status, expected.status, summary);
        if (expected.status === 200) {
          assert.ok(bytes < maxAnswerBytes, `answer of ${bytes} bytes`);
          assert.equal(typeof body?.data?.markdown, 'string', summary);
          assert.equal(Boolean(body?.data?.warning), expected.warning, summary);
        } else {
          assert.equal(body?.code, expected.code, summary);
          if (expected.status === 400) assert.match(body?.error, expected.error);
          else assert.match(body?.error, /did not finish within its timeout of 2000 ms/);
        }
        const small = await other;
        assert.equal(small.status, 200, JSON.stringify(small.body));
        assert.match(small.body.data.markdown, /A page of the other team/);
      });
    }
  });

  it('still answers /health', async () => {
    const health = await app().fetch('/health');
    assert.equal(health.status, 200);
  });
});
