import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { WebSocket } from 'ws';
import { createApiKey } from '../../src/store/api-keys.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { startApp, useApp } from '../helpers/app.ts';
import { Site } from '../helpers/site.ts';

/**
 * The WebSocket watcher of crawls and batch scrapes (src/jobs/job-watcher.ts) over loopback, as
 * the SDKs use it: the JS SDK's watcher (key as subprotocol) sees every page once and ends
 * without falling back to HTTP polling; a raw client with the key in the Authorization header
 * (the Python SDK's way); the close codes of a wrong key, another team's job, a malformed id; a
 * finished job; a job cancelled while watched.
 */

const site = new Site();
const text = (name: string) =>
  `<h1>${name}</h1><p>${name} is a page of the lighthouse guide with enough words to be read as content by the converter.</p>`;

/** A page whose answer waits until `open()`; `reached` resolves once it is asked for. */
function heldPage(route: string, body: string) {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  site.on(route, (_req, res) => {
    reach();
    void opened.then(() =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><title>Held</title></head><body>${body}</body></html>`),
    );
  });
  return { open, reached };
}

interface Doc {
  metadata: { sourceURL: string; scrapeId: string };
}

interface Snapshot {
  success?: boolean;
  status: string;
  total: number;
  completed: number;
  creditsUsed: number;
  expiresAt: string;
  data: Doc[];
}

interface Message {
  type: string;
  data: Snapshot | Doc;
}

/** A raw client's watch: every message, and how the socket closed. */
interface RawWatch {
  socket: WebSocket;
  /** Resolves with the first message. */
  first: Promise<Message>;
  messages: Message[];
  closed: Promise<{ code: number; reason: string }>;
}

const pathOf = (url: string) => new URL(url).pathname;

/** A raw `ws` client on `where` of the API at `apiUrl`, with the key in a header or as the subprotocol. */
function watchRaw(
  apiUrl: string,
  where: string,
  { key, protocol }: { key?: string; protocol?: string },
): RawWatch {
  const socket = new WebSocket(`${apiUrl.replace(/^http/, 'ws')}${where}`, protocol ? [protocol] : [], {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const messages: Message[] = [];
  let firstMessage!: (m: Message) => void;
  const first = new Promise<Message>((resolve) => {
    firstMessage = resolve;
  });
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    assert.equal(isBinary, false, 'messages are text frames');
    const message = JSON.parse(data.toString('utf8')) as Message;
    messages.push(message);
    if (messages.length === 1) firstMessage(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }));
  });
  return { socket, first, messages, closed };
}

before(() => site.listen());
after(() => site.close());

describe('the crawl and batch scrape watcher', () => {
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_LOG_LEVEL: 'info' });
  let apiUrl = '';
  let otherKey = '';
  /** Every GET the API was sent: a watcher that fell back to polling would show here. */
  const gets: string[] = [];

  before(async () => {
    site.page('/one/', `${text('Start')}<a href="/one/beacon">Beacon</a><a href="/one/keeper">Keeper</a>`);
    site.page('/one/beacon', text('Beacon'));
    site.page('/two/', `${text('Harbour')}<a href="/two/quay">Quay</a>`);
    site.page('/two/quay', text('Quay'));
    site.page('/batch/first', text('First'));
    site.page('/batch/third', text('Third'));
    app().app.server.addHook('onRequest', async (request) => {
      if (request.method === 'GET') gets.push(request.url);
    });
    await app().app.server.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(app().app.server.server.address() as AddressInfo).port}`;
    // A key of another team, made on the app's own store.
    const store = new SqliteStore(path.join(app().dataDir, 'quire.db'));
    otherKey = (await createApiKey(store, 'watcher-other-team')).key;
    await store.close();
  });

  const client = () => new Firecrawl({ apiKey: app().key, apiUrl });
  const finished = (id: string) =>
    app().waitForOutput(new RegExp(`"job":"${id}","status":"(\\w+)","msg":"job finished"`));

  /** The JS SDK's watcher from its start to its end, with what it emitted. */
  async function sdkWatch(id: string, kind: 'crawl' | 'batch', whileOpen: () => void) {
    const watcher = client().watcher(id, { kind });
    const documents: Doc[] = [];
    const snapshots: Snapshot[] = [];
    const dones: { status: string }[] = [];
    const errors: unknown[] = [];
    let caughtUp!: () => void;
    const firstSnapshot = new Promise<void>((resolve) => {
      caughtUp = resolve;
    });
    watcher.on('document', (doc: Doc) => documents.push(doc));
    watcher.on('snapshot', (snap: Snapshot) => {
      snapshots.push(snap);
      caughtUp();
    });
    watcher.on('done', (done: { status: string }) => dones.push(done));
    watcher.on('error', (error: unknown) => errors.push(error));
    const ended = watcher.start();
    await firstSnapshot;
    // The catch-up, while the job still runs.
    assert.equal(snapshots[0]?.status, 'scraping');
    const caughtUpDocuments = documents.length;
    whileOpen();
    await ended;
    return { documents, snapshots, dones, errors, caughtUpDocuments };
  }

  it("feeds the JS SDK's crawl watcher catch-up, documents and the end, without polling", async () => {
    const keeper = heldPage('/one/keeper', text('Keeper'));
    const started = await client().startCrawl(`${site.url}/one/`, { sitemap: 'skip' });
    // The start page is done before its links are fetched: the catch-up holds it.
    await keeper.reached;
    const seen = await sdkWatch(started.id, 'crawl', () => keeper.open());
    assert.deepEqual(seen.errors, []);
    assert.ok(seen.caughtUpDocuments >= 1);
    const pages = seen.documents.map((d) => pathOf(d.metadata.sourceURL));
    assert.deepEqual([...pages].sort(), ['/one/', '/one/beacon', '/one/keeper']);
    assert.equal(new Set(seen.documents.map((d) => d.metadata.scrapeId)).size, 3);
    const last = seen.snapshots.at(-1)!;
    assert.equal(last.status, 'completed');
    assert.equal(last.completed, 3);
    assert.equal(last.total, 3);
    assert.equal(last.creditsUsed, 3);
    assert.match(last.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    assert.deepEqual(
      seen.dones.map((d) => d.status),
      ['completed'],
    );
    assert.deepEqual(
      gets.filter((url) => url.includes(started.id)),
      [],
      'the SDK never polled the HTTP status',
    );
  });

  it("feeds the JS SDK's batch scrape watcher the same way", async () => {
    const second = heldPage('/batch/second', text('Second'));
    const started = await client().startBatchScrape([
      `${site.url}/batch/first`,
      `${site.url}/batch/second`,
      `${site.url}/batch/third`,
    ]);
    await second.reached;
    const seen = await sdkWatch(started.id, 'batch', () => second.open());
    assert.deepEqual(seen.errors, []);
    const pages = seen.documents.map((d) => pathOf(d.metadata.sourceURL));
    assert.deepEqual([...pages].sort(), ['/batch/first', '/batch/second', '/batch/third']);
    const last = seen.snapshots.at(-1)!;
    assert.equal(last.status, 'completed');
    assert.equal(last.completed, 3);
    assert.deepEqual(
      seen.dones.map((d) => d.status),
      ['completed'],
    );
    assert.deepEqual(
      gets.filter((url) => url.includes(started.id)),
      [],
      'the SDK never polled the HTTP status',
    );
  });

  it('serves a finished job to a client with the key in the Authorization header: catch-up, then done', async () => {
    const { id } = await client().startCrawl(`${site.url}/two/`, { sitemap: 'skip' });
    const [, how] = await finished(id);
    assert.equal(how, 'completed');
    const watch = watchRaw(apiUrl, `/v2/crawl/${id}?any=query`, { key: app().key });
    const { code, reason } = await watch.closed;
    assert.equal(code, 1000);
    assert.equal(reason, '{"type":"done"}');
    assert.equal(watch.messages.length, 1);
    const [catchup] = watch.messages as [{ type: string; data: Snapshot }];
    assert.equal(catchup.type, 'catchup');
    assert.deepEqual(Object.keys(catchup.data), [
      'success',
      'status',
      'total',
      'completed',
      'creditsUsed',
      'expiresAt',
      'data',
    ]);
    assert.equal(catchup.data.success, true);
    assert.equal(catchup.data.status, 'completed');
    assert.equal(catchup.data.completed, 2);
    assert.deepEqual(catchup.data.data.map((d) => pathOf(d.metadata.sourceURL)).sort(), [
      '/two/',
      '/two/quay',
    ]);
    // The same documents as the HTTP status, byte for byte.
    const status = (await (
      await app().fetch(`/v2/crawl/${id}`, { headers: { authorization: `Bearer ${app().key}` } })
    ).json()) as Snapshot;
    assert.deepEqual(catchup.data.data, status.data);
  });

  it('closes 3000 for a wrong key, and 1008 for another team’s job or a malformed id', async () => {
    const { id } = await client().startCrawl(`${site.url}/two/`, { sitemap: 'skip' });
    await finished(id);
    // The JS SDK's way: the key as the subprotocol, echoed even when it is wrong.
    const wrong = watchRaw(apiUrl, `/v2/crawl/${id}`, { protocol: 'fc-wrong-key' });
    await new Promise<void>((resolve) => wrong.socket.once('open', () => resolve()));
    assert.equal(wrong.socket.protocol, 'fc-wrong-key');
    assert.deepEqual(await wrong.closed, {
      code: 3000,
      reason: '{"type":"error","error":"Unauthorized: Invalid token"}',
    });
    assert.deepEqual(wrong.messages, []);
    const none = watchRaw(apiUrl, `/v2/crawl/${id}`, {});
    assert.equal((await none.closed).code, 3000);

    const other = watchRaw(apiUrl, `/v2/crawl/${id}`, { key: otherKey });
    assert.deepEqual(await other.closed, { code: 1008, reason: '{"type":"error","error":"Job not found"}' });
    const otherBatchPath = watchRaw(apiUrl, `/v2/batch/scrape/${id}`, { protocol: otherKey });
    assert.deepEqual(await otherBatchPath.closed, {
      code: 1008,
      reason: '{"type":"error","error":"Job not found"}',
    });
    const malformed = watchRaw(apiUrl, '/v2/crawl/not-a-job', { key: app().key });
    assert.deepEqual(await malformed.closed, {
      code: 1008,
      reason: '{"type":"error","error":"Invalid job ID"}',
    });
    assert.deepEqual(other.messages, []);
    // Other upgrades still go to the interact sessions, which refuse this path.
    const elsewhere = watchRaw(apiUrl, `/v2/crawl/${id}/errors`, { key: app().key });
    await assert.rejects(elsewhere.closed, /Unexpected server response: 404/);
  });

  it('ends a watch with done when its job is cancelled', async () => {
    const seed = heldPage('/three/', text('Three'));
    const { id } = await client().startCrawl(`${site.url}/three/`, { sitemap: 'skip' });
    await seed.reached;
    const watch = watchRaw(apiUrl, `/v2/crawl/${id}`, { key: app().key });
    const catchup = (await watch.first) as { type: string; data: Snapshot };
    assert.equal(catchup.type, 'catchup');
    assert.equal(catchup.data.status, 'scraping');
    assert.deepEqual(catchup.data.data, []);
    const cancel = await app().fetch(`/v2/crawl/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${app().key}` },
    });
    assert.deepEqual(await cancel.json(), { success: true, status: 'cancelled' });
    assert.deepEqual(await watch.closed, { code: 1000, reason: '{"type":"done"}' });
    const end = watch.messages.at(-1) as { type: string; data: Snapshot };
    assert.equal(end.type, 'status');
    assert.equal(end.data.status, 'cancelled');
    assert.deepEqual(end.data.data, []);
    seed.open();
    await finished(id);
  });
});

describe('the watcher when Quire shuts down', () => {
  it('closes an open watcher with 1001 before the server closes', async () => {
    const app = await startApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1' });
    const held = heldPage('/four/', text('Four'));
    let closing: Promise<void> | undefined;
    try {
      await app.app.server.listen({ port: 0, host: '127.0.0.1' });
      const apiUrl = `http://127.0.0.1:${(app.app.server.server.address() as AddressInfo).port}`;
      const { id } = await new Firecrawl({ apiKey: app.key, apiUrl }).startCrawl(`${site.url}/four/`, {
        sitemap: 'skip',
      });
      await held.reached;
      const watch = watchRaw(apiUrl, `/v2/crawl/${id}`, { protocol: app.key });
      assert.equal((await watch.first).type, 'catchup');
      // An open socket would hold the HTTP server's close: the watcher closes first.
      closing = app.close();
      assert.deepEqual(await watch.closed, {
        code: 1001,
        reason: '{"type":"error","error":"Quire is shutting down."}',
      });
    } finally {
      held.open();
      await (closing ?? app.close());
    }
  });
});
