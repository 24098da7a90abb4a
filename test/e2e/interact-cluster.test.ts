import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import WebSocket from 'ws';
import { firstPassOnly } from '../helpers/mode.ts';
import { type RunningCluster, type RunningServer, redisUrl, startCluster } from '../helpers/server.ts';
import {
  api,
  connectOverCdp,
  createSession,
  isRunning,
  sessionFolder,
  useTestSite,
  waitFor,
} from '../helpers/sessions.ts';

/**
 * Interact sessions in cluster mode (issue 18) over HTTP against real processes: two API
 * processes (nodes A and B) on separate ports of this machine, sharing Redis under a prefix of
 * their own and a fresh PostgreSQL database. A session lives on the node that runs its browser;
 * every request for it made to the other node (cdpUrl, live view, GET, execute, DELETE) reaches
 * the owner, and when the owner dies the survivor marks its sessions destroyed. Every wait polls
 * a state the servers report (GET), never the clock; the lapse of a killed node's registry entry
 * in Redis (its TTL) is done by the test, as the key's expiry would do it.
 */

/** `url` with its host and port replaced by `server`'s: the same URL, asked of the other node. */
const via = (server: RunningServer, url: string) => {
  const moved = new URL(url);
  const target = new URL(server.url);
  moved.host = target.host;
  return moved.href;
};

/** The browser's process group the store recorded for a session, to be sure it is gone at the end. */
async function recordedPid(databaseUrl: string, id: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number | null }>('SELECT pid FROM sessions WHERE id = $1', [
      id,
    ]);
    return rows[0]?.pid ?? null;
  } finally {
    await client.end();
  }
}

/** A message of the live view's socket. */
type LiveMessage = { type: string; interactive?: boolean; reason?: string };

/**
 * Opens a WebSocket, resolving with it once open, or with the HTTP status its upgrade was refused
 * with. Messages are collected from the start: through a forwarding node the handshake's answer
 * and the first frames can come in one read, and 'message' fires before a listener added after
 * 'open' resolves would be in place.
 */
function openSocket(url: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const messages: LiveMessage[] = [];
    received.set(ws, messages);
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

/** The messages each socket `openSocket` opened has received so far. */
const received = new WeakMap<WebSocket, LiveMessage[]>();

const firstPass = firstPassOnly('starts the clusters it tests itself');
describe('interact sessions in cluster mode: two nodes', { concurrency: 1, ...firstPass }, () => {
  let cluster: RunningCluster;
  let a: RunningServer;
  let b: RunningServer;
  const site = useTestSite();
  /** Browser process groups of node A, killed at the end whatever the test did (A is killed hard). */
  const browsers: number[] = [];

  before(async () => {
    cluster = await startCluster(
      {
        QUIRE_SESSIONS_ALLOWED_HOSTS: '127.0.0.1',
        QUIRE_SESSIONS_EXECUTE: 'true',
        // Shared by both nodes: each shows the other's sessions with URLs that open them, and
        // accepts the requests the other forwards.
        QUIRE_SESSION_SECRET: 'interact-cluster-test-secret-0123456789abcdef',
        QUIRE_LOG_LEVEL: 'info',
      },
      { workers: 0 },
    );
    a = cluster.api;
    // Same key, as every API process of a cluster is configured alike.
    b = await cluster.addApi({ QUIRE_API_KEYS: a.key });
    b = { ...b, key: a.key };
  });

  after(async () => {
    await cluster?.stop();
    for (const pid of browsers) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }
  });

  /** The session the first four tests share: made on A, used through B, deleted through B. */
  let created: Record<string, any>;
  const viewers: { closed: Promise<void>; messages: LiveMessage[] }[] = [];
  let cdpViaB: string;
  let pid: number | null;

  it('drives a session held by A with Playwright through B: CDP and /json/version', async () => {
    created = await createSession(a, { ttl: 300 });
    assert.match(created.cdpUrl, new RegExp(`^ws://${new URL(a.url).host}/`));
    pid = await recordedPid(cluster.databaseUrl, created.id);
    if (pid) browsers.push(pid);
    cdpViaB = via(b, created.cdpUrl);

    // CDP through B: B checks the token, then pipes the upgrade to A, whose relay answers.
    const { browser, page } = await connectOverCdp(cdpViaB);
    try {
      await page.goto(`${site()}/form`);
      await page.fill('#name', 'Cluster');
      await page.click('#go');
      assert.equal(await page.textContent('#out'), 'Hello, Cluster!');
    } finally {
      await browser.close();
    }

    // /json/version through B comes from A, pointing back at the host the client asked (B).
    const version = await fetch(cdpViaB.replace(/^ws/, 'http').replace('/cdp?', '/cdp/json/version?'));
    assert.equal(version.status, 200);
    const versionBody = (await version.json()) as { Browser: string; webSocketDebuggerUrl: string };
    assert.match(versionBody.Browser, /Chrome\//);
    assert.equal(versionBody.webSocketDebuggerUrl, cdpViaB);
  });

  it("answers GET through B with A's answer, and lists it from the shared store alike", async () => {
    // GET through B is A's answer: the same session, its URLs on B's address with A's tokens.
    const shown = await api(b, 'GET', `/v2/interact/${created.id}`);
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.equal(shown.body.status, 'active');
    assert.equal(shown.body.cdpUrl, cdpViaB);
    assert.equal(shown.body.liveViewUrl, via(b, created.liveViewUrl));
    // B's list reads the shared store and derives the same URLs.
    const listed = await api(b, 'GET', '/v2/browser?status=active');
    assert.equal(listed.status, 200);
    const item = listed.body.sessions.find((s: { id: string }) => s.id === created.id);
    assert.equal(item?.cdpUrl, cdpViaB);
    assert.equal(item?.interactiveLiveViewUrl, via(b, created.interactiveLiveViewUrl));
  });

  it('runs execute on A, and serves the live view page and socket from A, through B', async () => {
    // Execute through B runs on A (its own Node process, connected to A's relay).
    const ran = await api(b, 'POST', `/v2/interact/${created.id}/execute`, {
      code: 'return (await browser.version()).length > 0 ? 6 * 7 : 0',
      language: 'node',
      timeout: 120,
    });
    assert.equal(ran.status, 200, JSON.stringify(ran.body));
    assert.equal(ran.body.result, '42', JSON.stringify(ran.body));

    // The live view page and its socket through B.
    const livePage = await fetch(via(b, created.liveViewUrl));
    assert.equal(livePage.status, 200);
    assert.match(livePage.headers.get('content-type') ?? '', /text\/html/);
    const viewer = await openSocket(
      via(b, created.interactiveLiveViewUrl).replace(/^http/, 'ws').replace('/live?', '/live/ws?'),
    );
    assert.ok(viewer instanceof WebSocket, `the live socket was refused with ${viewer}`);
    const messages = received.get(viewer)!;
    const viewerClosed = new Promise<void>((resolve) => viewer.once('close', () => resolve()));
    await waitFor('the live view to say its mode', async () => messages.find((m) => m.type === 'mode'));
    assert.equal(messages.find((m) => m.type === 'mode')!.interactive, true);
    await waitFor('a screencast frame through B', async () => messages.find((m) => m.type === 'frame'));
    viewers.push({ closed: viewerClosed, messages });
  });

  it('refuses a forged forwarded request, and a CDP upgrade without the token, on the owner too', async () => {
    // Without the token, through B and on A alike: B never opens a connection to A for it.
    const noToken = created.cdpUrl.replace(/token=[^&]+/, 'token=wrong');
    assert.equal(await openSocket(via(b, noToken)), 401);
    assert.equal(await openSocket(noToken), 401);
    // A request claiming to be forwarded, with no valid signature, is not let in without a key.
    const forged = await fetch(`${a.url}/v2/interact/${created.id}`, {
      headers: {
        'x-quire-hop': 'elsewhere',
        'x-quire-forward': Buffer.from(
          JSON.stringify({
            node: 'x',
            team: 'default',
            keyId: 'k',
            at: Date.now(),
            nonce: 'n',
            body: '',
            sig: 'AAAA',
          }),
        ).toString('base64url'),
      },
    });
    assert.equal(forged.status, 401);
    // And without a key at all on B, which would otherwise forward it.
    const keyless = await api(b, 'GET', `/v2/interact/${created.id}`, undefined, null);
    assert.equal(keyless.status, 401);
  });

  it('ends the browser on A for a DELETE through B; the session answers 410 on both nodes then', async () => {
    // DELETE through B ends the browser on A: A's folder for it is gone when it answers.
    const deleted = await api(b, 'DELETE', `/v2/interact/${created.id}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal(deleted.body.status, 'destroyed');
    assert.ok(deleted.body.sessionDurationMs > 0);
    assert.equal(fs.existsSync(sessionFolder(a, created.id)), false);
    if (pid) assert.equal(isRunning(pid), false, "A's browser was ended");
    // The live viewer of the test above, connected through B, is told and closed by A.
    const [viewer] = viewers;
    await viewer!.closed;
    assert.ok(viewer!.messages.some((m) => m.type === 'ended'));
    const onA = await api(a, 'GET', `/v2/interact/${created.id}`);
    assert.equal(onA.body.status, 'destroyed');
    assert.equal(onA.body.closeReason, 'deleted by the caller');
    // A request for the ended session answers 410 on either node.
    assert.equal(await openSocket(cdpViaB), 410);
    const late = await api(b, 'POST', `/v2/interact/${created.id}/execute`, {
      code: 'return 1',
      language: 'node',
    });
    assert.equal(late.status, 410);
  });

  // Last: it kills node A.
  it("marks A's sessions destroyed from B once A is killed, and answers 410 for them", async () => {
    const created = await createSession(a, { ttl: 600 });
    const pid = await recordedPid(cluster.databaseUrl, created.id);
    if (pid) browsers.push(pid);
    const cdpViaB = via(b, created.cdpUrl);
    // A CDP client through B, cut off when A goes.
    const client = await openSocket(cdpViaB);
    assert.ok(client instanceof WebSocket);
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('error', () => {});

    await a.stop('SIGKILL');
    await clientClosed;
    // A's registry entry would lapse by its TTL (12 s) now that nothing renews it: the test lapses
    // it, so that what is waited for below is B noticing, not Redis's clock.
    const redis = new Redis(redisUrl);
    try {
      assert.equal(
        await redis.del(`${cluster.prefix}:node:${cluster.prefix}-api-1`),
        1,
        "A's registry entry",
      );
    } finally {
      redis.disconnect();
    }
    const ended = await waitFor(`session ${created.id} to be marked destroyed by B`, async () => {
      const one = await api(b, 'GET', `/v2/interact/${created.id}`);
      return one.body.status === 'destroyed' ? one.body : undefined;
    });
    assert.match(
      ended.closeReason,
      new RegExp(`the node "${cluster.prefix}-api-1" holding the session was lost`),
    );
    assert.ok(ended.closedAt);
    const listed = await api(b, 'GET', '/v2/interact?status=active');
    assert.equal(
      listed.body.sessions.some((s: { id: string }) => s.id === created.id),
      false,
    );
    assert.equal(await openSocket(cdpViaB), 410);
    const late = await api(b, 'POST', `/v2/interact/${created.id}/execute`, {
      code: 'return 1',
      language: 'node',
    });
    assert.equal(late.status, 410);
    const deleted = await api(b, 'DELETE', `/v2/interact/${created.id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, 'destroyed');
  });
});
