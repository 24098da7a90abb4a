import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { type HttpTarget, type InProcessApp, startApp, useApp } from '../helpers/app.ts';
import { cliOn } from '../helpers/cli.ts';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { createDatabase } from '../helpers/postgres.ts';
import { boundary, filePartHead } from '../helpers/raw-upload.ts';
import { corpusFile, parse } from '../helpers/server.ts';
import {
  creditRace,
  exported,
  type Holder,
  html,
  type Operator,
  oneRunningOneWaiting,
  operator,
  pdfCreditRace,
  queueDepthOfOne,
  settingsRoundTrip,
  usageReport,
} from '../helpers/teams.ts';

/**
 * Per-team settings, credits and the audit export (issue 18), against the app in this process,
 * changed with the `quire` CLI (a process of its own, on the app's store) as an operator would.
 * Each case uses a team of its own that makes no request before its settings are written, so the
 * app's settings cache never holds an older value and no test waits for it (the cache's lifetime
 * is test/unit/quota-limits.test.ts's, on a clock it moves). Two API processes sharing a team's
 * queue are test/e2e/teams.test.ts's.
 */

/**
 * In-process, a client leaving is its socket closing, which is how the app learns of it
 * (src/pipeline/deadline.ts); inject() gives each request a mock socket that nothing closes, so
 * the test closes it. Requests sent with an `x-test-client` header are found by it.
 */
function clientsThatLeave(app: () => InProcessApp): (target: HttpTarget, key: string) => Holder {
  const sockets = new Map<string, EventEmitter>();
  before(() => {
    app().app.server.addHook('onRequest', async (request) => {
      const id = request.headers['x-test-client'];
      if (typeof id === 'string') sockets.set(id, request.raw.socket);
    });
  });
  return (target, key) => {
    const id = randomUUID();
    const form = new FormData();
    form.append('options', JSON.stringify(ocrWithin(120_000)));
    form.append('file', new Blob([pagesToRecognise(1000)]), 'holder.pdf');
    // An OCR run far longer than the test: it holds its team's slot until its client leaves.
    const answer = target.fetch('/v2/parse', {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${key}`, 'x-test-client': id },
    });
    return {
      async leave() {
        const socket = sockets.get(id);
        assert.ok(socket, 'the holder reached the app');
        assert.ok(socket.listenerCount('close') > 0, 'the app watches for its client leaving');
        socket.emit('close');
        // Cut short by its client's going, not by its 120 s: what nobody is left to read.
        assert.equal((await answer).status, 408);
      },
    };
  };
}

describe("teams: settings, credits and audit export (the app's store)", () => {
  const app = useApp({ QUIRE_WORKERS: '2', QUIRE_LOG_LEVEL: 'debug' });
  const holdSlot = clientsThatLeave(app);
  /** The app's SQLite file, opened in this process too (as the CLI opens it, in its own). */
  let store: SqliteStore | undefined;
  let op: Operator;
  before(() => {
    store = new SqliteStore(path.join(app().dataDir, 'quire.db'));
    op = operator(cliOn({ QUIRE_DATA_DIR: app().dataDir }), store);
  });
  after(() => store?.close());

  it('settings set with the CLI read back, and hold the team to them', async () => {
    await settingsRoundTrip(app(), op, 'roundtrip');
  });

  it('a team concurrency of 1 makes its second parse wait, whatever the server default is', async () => {
    const key = await op.key('narrow');
    await op.cli('teams', 'set', 'narrow', '--concurrency', '1');
    const submitted = app().waitForOutput(/"team":"narrow".*"msg":"conversion submitted"/);
    const holder = holdSlot(app(), key);
    await submitted;
    const waits = app().waitForOutput(/"team":"narrow".*"msg":"conversion waits for a team slot"/);
    const queued = parse(app(), { file: html('queued'), key });
    await waits;
    await holder.leave();
    const { status, body } = await queued;
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.metadata.concurrencyLimited, true);
  });

  it('a team queue depth of 1: with one parse running and one waiting, a third gets 429 with Retry-After', async () => {
    const key = await op.key('shallow');
    await oneRunningOneWaiting(op.cli, 'shallow');
    await queueDepthOfOne(key, 'shallow', app(), app(), holdSlot);
  });

  it('limits each key of a team to its key rate, and answers 429 with Retry-After', async () => {
    const first = await op.key('keyed');
    const second = await op.key('keyed');
    await op.cli('teams', 'set', 'keyed', '--key-rate', '1');
    const call = (key: string) =>
      app().fetch('/v2/openapi.json', { headers: { authorization: `Bearer ${key}` } });
    assert.equal((await call(first)).status, 200);
    const over = await call(first);
    assert.equal(over.status, 429);
    assert.match(((await over.json()) as { error: string }).error, /at most 1 requests per minute per key/);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // The team has no limit of its own, and its other key has its own budget.
    assert.equal((await call(second)).status, 200);
  });

  it('zero data retention forced: every request is treated as asking for it', async () => {
    const key = await op.key('forced');
    await op.cli('teams', 'set', 'forced', '--zdr', 'forced');
    const answer = await parse(app(), {
      file: html('secret-name'),
      key,
      options: { auditMetadata: { username: 'ann' } },
    });
    assert.equal(answer.status, 200);
    const [event] = await exported(op.cli, 'forced');
    assert.equal(event!.zeroDataRetention, true);
    assert.equal(event!.filename, null, 'the file name stays out of the audit log');
    assert.equal(event!.username, 'ann');
  });

  it('a team without a balance is unlimited, and its answers still say what they cost', async () => {
    const key = await op.key('free');
    for (let i = 0; i < 3; i++) {
      const answer = await parse(app(), { file: html(`free ${i}`), key });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data.metadata.creditsUsed, 1);
    }
    assert.equal(await op.balance('free'), 'unlimited');
  });

  it('an empty balance answers 402 before the upload is read', async () => {
    const key = await op.key('broke');
    await op.cli('teams', 'credit', 'broke', '--set', '0');
    // Only the head of a 10 MB body is ever written, and the body never ends: an answer can
    // only come from an app that did not wait for the rest.
    const body = new PassThrough();
    body.write(`${filePartHead('a.html')}<p>`);
    const answer = await app().app.server.inject({
      method: 'POST',
      url: '/v2/parse',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(10_000_000),
      },
      payload: body,
    });
    body.destroy();
    assert.equal(answer.statusCode, 402);
    const parsed = answer.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['error']);
    assert.match(String(parsed.error), /payment is required/i);
    assert.equal(await op.balance('broke'), '0');
  });

  it('a PDF costs 1 plus its pages, OCR or not; failures cost nothing; pages are paid before they are read', async () => {
    const key = await op.key('payer');
    assert.match(await op.cli('teams', 'credit', 'payer', '--set', '20'), /credits=20$/m);

    const text = await parse(app(), { file: { bytes: pagesToRecognise(3), filename: 'three.pdf' }, key });
    assert.equal(text.status, 200, JSON.stringify(text.body));
    assert.equal(text.body.data.metadata.numPages, 3);
    assert.equal(text.body.data.metadata.creditsUsed, 4);
    assert.equal(await op.balance('payer'), '16');

    const ocr = await parse(app(), {
      file: { bytes: pagesToRecognise(2), filename: 'two.pdf' },
      options: ocrWithin(120_000),
      key,
    });
    assert.equal(ocr.status, 200, JSON.stringify(ocr.body));
    assert.equal(ocr.body.data.metadata.creditsUsed, 3);
    assert.equal(await op.balance('payer'), '13');

    // Refused before conversion (no supported format) and by it (encrypted), invalid options,
    // out of time: all free.
    const junk = Uint8Array.from({ length: 512 }, (_, i) => (i * 131 + 7) % 256);
    const unsupported = await parse(app(), { file: { bytes: junk, filename: 'blob' }, key });
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.body.code, 'UNSUPPORTED_FILE_TYPE');
    const encrypted = await parse(app(), { file: corpusFile('pdf/broken/tab-encrypted.pdf'), key });
    assert.equal(encrypted.status, 400);
    assert.equal(encrypted.body.code, 'ENCRYPTED_DOCUMENT');
    const invalid = await parse(app(), { file: html('x'), options: { timeout: -1 }, key });
    assert.equal(invalid.status, 400);
    const timedOut = await parse(app(), {
      file: { bytes: pagesToRecognise(1000), filename: 'long.pdf' },
      options: ocrWithin(1000),
      key,
    });
    assert.equal(timedOut.status, 408);
    assert.equal(await op.balance('payer'), '13');

    // With one credit left a 3-page PDF (cost 4) cannot pay for a page: 402, and the credit stays.
    assert.match(await op.cli('teams', 'credit', 'payer', '--set', '1'), /credits=1$/m);
    const unpaid = await parse(app(), { file: { bytes: pagesToRecognise(3), filename: 'unpaid.pdf' }, key });
    assert.equal(unpaid.status, 402);
    assert.equal(await op.balance('payer'), '1');
    // With three, it gets the two pages they pay for, and says so; `--add` tops the balance up.
    assert.match(await op.cli('teams', 'credit', 'payer', '--add', '2'), /credits=3$/m);
    const part = await parse(app(), { file: { bytes: pagesToRecognise(3), filename: 'part.pdf' }, key });
    assert.equal(part.status, 200);
    assert.equal(part.body.data.metadata.numPages, 2);
    assert.equal(part.body.data.metadata.creditsUsed, 3);
    assert.match(part.body.data.warning, /The team's credits paid for 2 of the document's 3 pages/);
    assert.equal(await op.balance('payer'), '0');
    assert.equal((await parse(app(), { file: html('none left'), key })).status, 402);
    assert.match(await op.cli('teams', 'credit', 'payer', '--add', '2'), /credits=2$/m);
    assert.equal((await parse(app(), { file: html('topped up'), key })).status, 200);
    // As the operator reads it.
    assert.match(await op.cli('teams', 'show', 'payer'), /^credits 1$/m);
  });

  it('20 parallel parses against a balance of 5: exactly 5 answer, and the balance never goes below 0', async () => {
    await creditRace(app(), op, 'racer');
  });

  it('reports credits and tokens used, this month and by month and key, and what remains', async () => {
    await usageReport(app(), op, 'ledger');
  });

  it('20 parallel parses of 3-page PDFs against a balance of 10: no page served that was not paid for', async () => {
    await pdfCreditRace([app()], op, 'pages');
  });

  it('exports audit events as JSON lines, in order, by time and team', async () => {
    const key = await op.key('audited');
    const before = new Date().toISOString();
    for (const name of ['one', 'two', 'three'])
      assert.equal((await parse(app(), { file: html(name), key })).status, 200);
    const events = await exported(op.cli, 'audited', before);
    assert.deepEqual(
      events.map((e) => [e.team, e.action, e.status, e.filename, e.format, e.zeroDataRetention]),
      ['one', 'two', 'three'].map((n) => ['audited', 'parse', 200, `${n}.html`, 'html', false]),
    );
    assert.deepEqual(Object.keys(events[0]!).sort(), [
      'action',
      'at',
      'bytes',
      'durationMs',
      'filename',
      'format',
      'keyId',
      'requestId',
      'status',
      'team',
      'username',
      'zeroDataRetention',
    ]);
    // Nothing from after now; other teams' events only without --team.
    assert.equal(await op.cli('audit', 'export', '--since', '2999-01-01'), '');
    const all = await op.cli('audit', 'export', '--since', before);
    assert.ok(all.split('\n').filter(Boolean).length >= 3);
    await assert.rejects(op.cli('audit', 'export', '--since', 'yesterday-ish'), /must be an ISO date/);
  });
});

describe('teams on the PostgreSQL store (QUIRE_DATABASE_URL)', () => {
  /** The app on a new empty database of the machine's PostgreSQL; both gone after the block. */
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
  let app: InProcessApp | undefined;
  let store: PostgresStore | undefined;
  let op: Operator;
  before(async () => {
    database = await createDatabase();
    app = await startApp({ QUIRE_WORKERS: '2', QUIRE_DATABASE_URL: database.url });
    store = await PostgresStore.open(database.url);
    op = operator(cliOn({ QUIRE_DATABASE_URL: database.url, QUIRE_DATA_DIR: app.dataDir }), store);
  });
  after(async () => {
    await store?.close();
    await app?.close();
    await database?.drop();
  });

  it('settings set with the CLI read back, and hold the team to them', async () => {
    await settingsRoundTrip(app!, op, 'roundtrip');
  });

  it('20 parallel parses against a balance of 5: exactly 5 answer, and the balance never goes below 0', async () => {
    await creditRace(app!, op, 'racer');
  });

  it('reports credits and tokens used, this month and by month and key, and what remains', async () => {
    await usageReport(app!, op, 'ledger');
  });

  it('20 parallel parses of 3-page PDFs against a balance of 10: no page served that was not paid for', async () => {
    await pdfCreditRace([app!], op, 'pages');
  });
});
