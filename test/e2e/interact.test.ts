import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import puppeteer from 'puppeteer-core';
import WebSocket from 'ws';
import { useServer } from '../helpers/server.ts';
import {
  api,
  connectOverCdp as connect,
  createSession,
  isRunning,
  launchViewerBrowser,
  openLiveSocket,
  otherTeamKey,
  type Reply,
  recordedPid,
  useTestSite,
  waitFor,
} from '../helpers/sessions.ts';

// When a session's ttl and activityTtl end it, on a clock the test moves, is in
// test/http/interact-clock.test.ts (the app in-process); how the clock counts, in
// test/unit/session-clock.test.ts.
describe('interact sessions', () => {
  const server = useServer({
    // Info logs the requests, where the tokens must not show.
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_SESSIONS_ALLOWED_HOSTS: '127.0.0.1',
    QUIRE_SESSIONS_EXECUTE: 'true',
    QUIRE_SESSIONS_PER_TEAM: '4',
  });
  const site = useTestSite();
  /** The session as GET shows it once it is destroyed. */
  const destroyed = (id: string) =>
    waitFor(`session ${id} to be destroyed`, async () => {
      const one = await api(server(), 'GET', `/v2/interact/${id}`);
      return one.body.status === 'destroyed' ? one.body : undefined;
    });

  it('hands out a session that Playwright drives over cdpUrl: fill a form, click, read the result', async () => {
    const created = await createSession(server(), { ttl: 120 });
    assert.match(created.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(
      created.cdpUrl,
      new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/v2/interact/${created.id}/cdp\\?token=[\\w-]{43}$`),
    );
    assert.ok(!created.cdpUrl.includes(server().key), 'the cdpUrl never carries the API key');
    assert.match(
      created.liveViewUrl,
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/v2/interact/${created.id}/live\\?token=`),
    );
    assert.notEqual(created.liveViewUrl, created.interactiveLiveViewUrl);
    // The session ends its ttl after its creation, both by the server's clock.
    const shown = await api(server(), 'GET', `/v2/interact/${created.id}`);
    assert.equal(Date.parse(created.expiresAt) - Date.parse(shown.body.createdAt), 120_000);

    const { browser, page } = await connect(created.cdpUrl);
    try {
      await page.goto(`${site()}/form`);
      await page.fill('#name', 'Quire');
      await page.click('#go');
      assert.equal(await page.textContent('#out'), 'Hello, Quire!');
    } finally {
      await browser.close();
    }
    // Disconnecting leaves the session (and its page) as it was; a new client finds it.
    const again = await connect(created.cdpUrl);
    assert.equal(await again.page.textContent('#out'), 'Hello, Quire!');
    await again.browser.close();

    // Playwright's http form reads /json/version, which points back at the relay.
    const httpUrl = created.cdpUrl.replace(/^ws/, 'http');
    const version = (await (await fetch(httpUrl.replace('/cdp?', '/cdp/json/version?'))).json()) as {
      Browser: string;
      webSocketDebuggerUrl: string;
    };
    assert.match(version.Browser, /Chrome\//);
    assert.equal(version.webSocketDebuggerUrl, created.cdpUrl);
    const viaHttp = await connect(httpUrl);
    assert.equal(await viaHttp.page.textContent('#out'), 'Hello, Quire!');
    await viaHttp.browser.close();

    const deleted = await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.success, true);
    assert.ok(deleted.body.sessionDurationMs > 0);
  });

  it('Puppeteer connects through cdpUrl too', async () => {
    const created = await createSession(server());
    const browser = await puppeteer.connect({ browserWSEndpoint: created.cdpUrl, defaultViewport: null });
    try {
      const [page] = await browser.pages();
      // Puppeteer's 30 s default is a deadline a loaded machine can miss; this guards a hang only.
      page!.setDefaultTimeout(100_000);
      await page!.goto(`${site()}/form`);
      await page!.type('#name', 'Puppeteer');
      await page!.click('#go');
      assert.equal(await page!.$eval('#out', (el) => el.textContent), 'Hello, Puppeteer!');
      assert.match(await browser.version(), /Chrome\//);
    } finally {
      await browser.disconnect();
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('refuses a CDP connection without the session token, and after the session ends', async () => {
    const created = await createSession(server());
    const refusal = (url: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url);
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => resolve(101));
        ws.once('error', () => {});
      });
    assert.equal(await refusal(created.cdpUrl.replace(/token=.*/, 'token=wrong')), 401);
    // The view token opens the live view, not CDP.
    const viewToken = new URL(created.liveViewUrl).searchParams.get('token');
    assert.equal(await refusal(created.cdpUrl.replace(/token=.*/, `token=${viewToken}`)), 401);
    assert.equal(
      await refusal(created.cdpUrl.replace(created.id, '01a20f91-16f2-7233-bea2-13a6e9b4b7e1')),
      404,
    );
    await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    assert.equal(await refusal(created.cdpUrl), 410);
  });

  it('survives WebSocket upgrades to unparsable addresses and clients that reset while answered', async () => {
    const { port } = new URL(server().url);
    /** The status line answering an upgrade request for `target`; reset after `resetMs` if given. */
    const upgrade = (target: string, resetMs?: number) =>
      new Promise<string>((resolve) => {
        let answer = '';
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `GET ${target} HTTP/1.1\r\nhost: quire\r\nconnection: upgrade\r\nupgrade: websocket\r\n` +
              'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
          );
          if (resetMs !== undefined) setTimeout(() => socket.resetAndDestroy(), resetMs);
        });
        socket.on('data', (data) => {
          answer += data;
        });
        socket.on('error', () => {});
        socket.once('close', () => resolve(answer.split('\r\n')[0]!));
      });
    assert.equal(await upgrade('http://['), 'HTTP/1.1 404 Not Found');
    for (let i = 0; i < 20; i++) {
      await upgrade('/v2/interact/01a20f91-16f2-7233-bea2-13a6e9b4b7e1/cdp?token=x', i % 4);
    }
    assert.equal((await api(server(), 'GET', '/v2/interact')).status, 200);
  });

  it('keeps session tokens out of the request log', async () => {
    const created = await createSession(server());
    try {
      const version = await fetch(
        `${created.cdpUrl.replace(/^ws/, 'http').replace('/cdp?', '/cdp/json/version?')}`,
      );
      assert.equal(version.status, 200);
      assert.equal((await fetch(created.liveViewUrl)).status, 200);
      const tokens = [created.cdpUrl, created.liveViewUrl].map((u) => new URL(u).searchParams.get('token')!);
      const logged = new RegExp(`/v2/interact/${created.id}/live\\?token=\\[redacted\\]`);
      // The server's output reaches this process a moment after the answer.
      await server().waitForOutput(logged);
      for (const token of tokens) assert.equal(server().output().includes(token), false);
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('lists the team’s sessions newest first, filters by status, shows one, and deletes idempotently', async () => {
    const first = await createSession(server());
    const second = await createSession(server(), { streamWebView: false });
    const all = await api(server(), 'GET', '/v2/interact');
    assert.equal(all.status, 200);
    assert.equal(all.body.success, true);
    const ids = all.body.sessions.map((s: { id: string }) => s.id);
    assert.ok(ids.indexOf(second.id) < ids.indexOf(first.id), 'newest first');
    const item = all.body.sessions.find((s: { id: string }) => s.id === second.id);
    assert.deepEqual(Object.keys(item).sort(), [
      'cdpUrl',
      'createdAt',
      'id',
      'interactiveLiveViewUrl',
      'lastActivity',
      'liveViewUrl',
      'status',
      'streamWebView',
    ]);
    assert.equal(item.status, 'active');
    assert.equal(item.streamWebView, false);
    assert.equal(item.cdpUrl, second.cdpUrl);

    const deleted = await api(server(), 'DELETE', `/v2/browser/${first.id}`);
    assert.equal(deleted.status, 200);
    const again = await api(server(), 'DELETE', `/v2/browser/${first.id}`);
    assert.equal(again.status, 200);
    assert.equal(again.body.sessionDurationMs, deleted.body.sessionDurationMs);

    const active = (await api(server(), 'GET', '/v2/interact?status=active')).body.sessions.map(
      (s: any) => s.id,
    );
    const destroyed = (await api(server(), 'GET', '/v2/browser?status=destroyed')).body.sessions.map(
      (s: any) => s.id,
    );
    assert.ok(active.includes(second.id) && !active.includes(first.id));
    assert.ok(destroyed.includes(first.id) && !destroyed.includes(second.id));

    const one = await api(server(), 'GET', `/v2/interact/${first.id}`);
    assert.equal(one.body.status, 'destroyed');
    assert.equal(one.body.closeReason, 'deleted by the caller');
    // streamWebView: false turns the live view off.
    const live = await fetch(second.liveViewUrl);
    assert.equal(live.status, 403);
    await api(server(), 'DELETE', `/v2/interact/${second.id}`);

    assert.equal((await api(server(), 'GET', '/v2/interact?status=open')).status, 400);
    const unknown = await api(server(), 'GET', '/v2/interact/01a20f91-16f2-7233-bea2-13a6e9b4b7e1');
    assert.deepEqual(
      [unknown.status, unknown.body],
      [404, { success: false, error: 'Browser session not found.' }],
    );
    assert.equal((await api(server(), 'GET', '/v2/interact', undefined, null)).status, 401);
  });

  it('validates the create body, naming the field', async () => {
    const bad = await api(server(), 'POST', '/v2/interact', { ttl: 5 });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /body\.ttl must be an integer from 30 to 3600/);
    // Unknown keys are dropped, as upstream does; the known ones are still checked.
    const extra = await api(server(), 'POST', '/v2/interact', { activityTtl: 5, colour: 'red' });
    assert.equal(extra.status, 400);
    assert.match(extra.body.error, /^body\.activityTtl must be an integer from 10 to 3600$/);
    const profile = await api(server(), 'POST', '/v2/interact', { profile: { name: '' } });
    assert.match(profile.body.error, /body\.profile\.name must be a string of 1 to 128 characters/);
  });

  it('refuses what would reach the host: file:, chrome:, private addresses, redirects and names that resolve to them, host files', async (t) => {
    const created = await createSession(server());
    const { browser, page } = await connect(created.cdpUrl);
    try {
      await assert.rejects(page.goto('file:///etc/passwd'), /Quire refused Page\.navigate: file: URLs/);
      await assert.rejects(page.goto('chrome://version'), /Quire refused Page\.navigate: chrome: URLs/);
      // Refused before any packet leaves: no traffic to private ranges.
      await assert.rejects(page.goto('http://10.20.30.40/'), /10\.20\.30\.40 is a private/);
      await assert.rejects(
        page.goto('http://169.254.169.254/latest/meta-data/'),
        /169\.254\.169\.254 is a private/,
      );
      await assert.rejects(page.goto('http://[::ffff:a9fe:a9fe]/'), /is a private/);
      await assert.rejects(
        page.goto(`http://localhost:${new URL(site()).port}/form`),
        /localhost is this machine/,
      );
      const newTab = page.context().newCDPSession(page);
      await assert.rejects(
        (await newTab).send('Target.createTarget', { url: 'file:///etc/hosts' }),
        /Quire refused Target\.createTarget/,
      );

      // A redirect from an allowed page to a loopback name is stopped by the egress proxy.
      const redirected = await page.goto(
        `${site()}/redirect?to=${encodeURIComponent(`http://localhost:${new URL(site()).port}/form`)}`,
      );
      assert.equal(redirected?.status(), 403);
      assert.match(
        (await page.textContent('body')) ?? '',
        /Quire refused this request: localhost is this machine/,
      );

      // A name resolved to loopback (this machine's own name, in /etc/hosts) is checked on its address.
      const hostname = os.hostname();
      const addresses = await lookup(hostname, { all: true }).catch(() => []);
      if (addresses.some((a) => a.address.startsWith('127.') || a.address === '::1')) {
        const resolved = await page.goto(`http://${hostname}:${new URL(site()).port}/form`);
        assert.equal(resolved?.status(), 403);
        assert.match((await page.textContent('body')) ?? '', /resolves to .*private, loopback or link-local/);
      } else {
        // Said, not silent: the same rule is proven through an injected resolver in egress-proxy.test.ts.
        t.diagnostic(
          `${hostname} does not resolve to loopback here; the browser-level name check was not run`,
        );
      }

      // Host files cannot be handed to a file input.
      await page.goto(`${site()}/form`);
      await page.setContent('<input type="file" id="f">');
      const cdp = await page.context().newCDPSession(page);
      const { root } = (await cdp.send('DOM.getDocument')) as { root: { nodeId: number } };
      const { nodeId } = (await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#f' })) as {
        nodeId: number;
      };
      await assert.rejects(
        cdp.send('DOM.setFileInputFiles', { nodeId, files: ['/etc/passwd'] }),
        /outside the session's upload folder/,
      );
      await assert.rejects(cdp.send('Browser.close'), /DELETE the session instead/);

      // Downloads land in the session's own folder, whatever folder a client names.
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-elsewhere-'));
      const browserCdp = await browser.newBrowserCDPSession();
      await browserCdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: elsewhere });
      await page.goto(`${site()}/download`).catch(() => {});
      const downloads = path.join(server().dataDir, 'sessions', 'run', created.id, 'downloads');
      const saved = await waitFor('the download', async () =>
        fs.existsSync(path.join(downloads, 'report.txt')) ? path.join(downloads, 'report.txt') : undefined,
      );
      assert.equal(fs.readFileSync(saved, 'utf8'), 'downloaded bytes');
      assert.deepEqual(fs.readdirSync(elsewhere), []);
      fs.rmSync(elsewhere, { recursive: true });
      // The browser's own default folder is in the session's folder too, not the service user's home.
      await browserCdp.send('Browser.setDownloadBehavior', { behavior: 'default' });
      const name = `quire-default-${created.id}.txt`;
      await page.goto(`${site()}/download?name=${name}`).catch(() => {});
      const sessionDir = path.join(server().dataDir, 'sessions', 'run', created.id);
      await waitFor('the download to the default folder', async () =>
        (fs.readdirSync(sessionDir, { recursive: true }) as string[]).some((f) => f.endsWith(name))
          ? true
          : undefined,
      );
      assert.equal(fs.existsSync(path.join(os.homedir(), 'Downloads', name)), false);

      // A CDP message wrapped in another, and ports opened on the host, are refused too.
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      const { sessionId } = await browserCdp.send('Target.attachToTarget', {
        targetId: targetInfo.targetId,
        flatten: false,
      });
      await assert.rejects(
        browserCdp.send('Target.sendMessageToTarget', {
          sessionId,
          message: JSON.stringify({ id: 1, method: 'Page.navigate', params: { url: 'file:///etc/passwd' } }),
        }),
        /Quire refused Target\.sendMessageToTarget/,
      );
      await assert.rejects(
        browserCdp.send('Tethering.bind', { port: 9555 }),
        /Quire refused Tethering\.bind/,
      );
    } finally {
      await browser.close();
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('live view: frames reach a viewer in another browser; only the interactive URL controls the page', async () => {
    const created = await createSession(server());
    const { browser, page } = await connect(created.cdpUrl);
    const viewer = await launchViewerBrowser();
    try {
      await page.goto(`${site()}/button`);
      const view = await viewer.newPage();
      view.setDefaultTimeout(100_000);
      const response = await view.goto(created.liveViewUrl);
      assert.match(response!.headers()['content-security-policy']!, /default-src 'none'/);
      // The page's CSP forbids eval, which Playwright's waitForFunction needs: poll instead.
      // Page code is given as source text: the tests are type-checked without the DOM library.
      const frames = async () => Number(await view.evaluate('document.body.dataset.frames'));
      await waitFor('a first frame', async () => ((await frames()) >= 1 ? true : undefined));
      assert.equal(await view.evaluate('document.body.dataset.mode'), 'read-only');
      const before = await frames();
      await page.evaluate('document.body.style.background = "rgb(200, 30, 30)"');
      await waitFor('a frame of the change', async () => ((await frames()) > before ? true : undefined));

      const readOnly = await openLiveSocket(created.liveViewUrl);
      const control = await openLiveSocket(created.interactiveLiveViewUrl);
      assert.equal((await control.message('mode')).interactive, true);
      const box = (await page.locator('#b').boundingBox())!;
      const click = (socket: WebSocket) => {
        for (const event of ['mousePressed', 'mouseReleased']) {
          const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
          socket.send(JSON.stringify({ type: 'mouse', event, ...at, button: 'left', clickCount: 1 }));
        }
      };
      const type = (socket: WebSocket, letter: string) => {
        const key = {
          type: 'key',
          key: letter,
          code: `Key${letter.toUpperCase()}`,
          keyCode: letter.toUpperCase().charCodeAt(0),
        };
        socket.send(JSON.stringify({ ...key, event: 'down', text: letter }));
        socket.send(JSON.stringify({ ...key, event: 'up' }));
      };
      /** Waits until the read-only viewer has been refused `count` messages in all. */
      const refused = (count: number) =>
        waitFor(`${count} read-only refusals`, async () =>
          readOnly.messages.filter((m) => m.type === 'error' && /read-only/.test(m.message)).length >= count
            ? true
            : undefined,
        );
      const presses = async () => Number(await page.textContent('#out'));
      // The server hands the browser every input it forwards on one connection, in the order it
      // handles them; an interactive input sent after the read-only viewer's refusal therefore
      // lands after anything the server passed on from that viewer. Each read-only input below
      // sits between two interactive ones, so forwarding it would show in the count or the text.
      click(control.ws);
      await waitFor('the interactive press', async () => ((await presses()) === 1 ? true : undefined));
      click(readOnly.ws);
      await refused(2);
      click(control.ws);
      await waitFor('the second interactive press', async () => ((await presses()) > 1 ? true : undefined));
      assert.equal(await presses(), 2, 'the read-only viewer pressed the button');

      // Keys and paste go in as text at the focus.
      await page.focus('#i');
      const typed = () => page.inputValue('#i');
      type(control.ws, 'a');
      await waitFor('the interactive key', async () => ((await typed()) === 'a' ? true : undefined));
      type(readOnly.ws, 'b');
      readOnly.ws.send(JSON.stringify({ type: 'paste', text: 'read-only paste' }));
      await refused(5);
      control.ws.send(JSON.stringify({ type: 'paste', text: 'c' }));
      await waitFor('the interactive paste', async () => ((await typed()).endsWith('c') ? true : undefined));
      assert.equal(await typed(), 'ac', 'the read-only viewer typed into the page');

      // A broken frame closes that viewer's socket, and only that.
      const broken = await openLiveSocket(created.liveViewUrl);
      const brokenClosed = new Promise<number>((resolve) => broken.ws.once('close', resolve));
      broken.ws.send(Buffer.from([0xff, 0xfe]), { binary: false });
      assert.equal(await brokenClosed, 1007);
      // Nor may it send the large messages CDP clients may: the socket is closed.
      const oversized = await openLiveSocket(created.liveViewUrl);
      const closed = new Promise<number>((resolve) => oversized.ws.once('close', resolve));
      // The server may reset the connection while the message is still being sent.
      oversized.ws.on('error', () => {});
      oversized.ws.send(JSON.stringify({ type: 'paste', text: 'x'.repeat(2 ** 21) }));
      assert.ok([1009, 1006].includes(await closed));
      // And nothing the read-only viewer sent reached the page later on.
      assert.equal(await presses(), 2);
      assert.equal(await typed(), 'ac');

      // Ending the session tells the viewers.
      const ended = control.message('ended');
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
      await waitFor('the viewer page to show the end', async () =>
        (await view.evaluate('document.body.dataset.ended')) === 'true' ? true : undefined,
      );
      assert.equal((await ended).reason, 'deleted by the caller');
      readOnly.ws.close();
      control.ws.close();
    } finally {
      await viewer.close();
      await browser.close().catch(() => {});
    }
  });

  // Five runs one after another, each starting Node and Playwright: on a loaded machine (the
  // suite beside two busy processes) they outlast the suite's 120 s per test. Room, not a claim.
  it('execute runs Node code against the session page, with stdout, result, timeout and 410 after the end', {
    timeout: 600_000,
  }, async () => {
    const created = await createSession(server());
    let running: Promise<Reply>[] = [];
    try {
      const ok = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: `await page.goto(${JSON.stringify(`${site()}/form`)}); await page.fill('#name', 'code'); await page.click('#go');
               console.log('clicked'); return { out: await page.textContent('#out') };`,
        language: 'node',
        // The runner's start (Node, Playwright, a CDP connection) counts against it: room for a busy machine.
        timeout: 90,
      });
      assert.equal(ok.status, 200);
      assert.deepEqual(
        {
          stdout: ok.body.stdout,
          result: ok.body.result,
          exitCode: ok.body.exitCode,
          killed: ok.body.killed,
        },
        { stdout: 'clicked\n', result: '{"out":"Hello, code!"}', exitCode: 0, killed: false },
      );
      assert.equal(ok.body.error, undefined);
      // The code reaches the browser through the relay, so the firewall applies to it too.
      const refused = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: "await page.goto('file:///etc/passwd')",
        timeout: 90,
      });
      assert.equal(refused.body.exitCode, 1);
      assert.match(refused.body.error, /Quire refused Page\.navigate/);
      const hostFile = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: "const fs = await import('node:fs'); return fs.readFileSync('/etc/passwd', 'utf8');",
        timeout: 90,
      });
      assert.equal(hostFile.body.exitCode, 1);
      assert.match(hostFile.body.stderr, /ERR_ACCESS_DENIED|Access to this API has been restricted/);
      const slow = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: 'await new Promise(() => {});',
        timeout: 1,
      });
      assert.equal(slow.body.killed, true);
      assert.match(slow.body.error, /timed out after 1 s/);
      const bash = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: 'ls',
        language: 'bash',
      });
      assert.equal(bash.status, 400);
      assert.match(bash.body.error, /body\.language "bash" is not supported/);
      // Two at a time per session; a third is refused while they run. They run until the session
      // ends (a timeout of their own could end one before the other started on a loaded machine).
      running = [1, 2].map(() =>
        api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
          code: 'await new Promise(() => {});',
          timeout: 120,
        }),
      );
      const sessionDir = path.join(server().dataDir, 'sessions', 'run', created.id);
      const executing = () => fs.readdirSync(sessionDir).filter((f) => f.startsWith('exec-')).length;
      await waitFor('two executions to start', async () => (executing() === 2 ? true : undefined));
      const third = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, { code: 'return 1' });
      assert.equal(third.status, 429);
      assert.match(third.body.error, /already runs 2 execute calls/);
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
    // Ending the session ends what it runs.
    assert.deepEqual(
      (await Promise.all(running)).map((r) => [r.body.killed, r.body.error]),
      [
        [true, 'The session ended during execution.'],
        [true, 'The session ended during execution.'],
      ],
    );
    const late = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, { code: 'return 1' });
    assert.deepEqual([late.status, late.body.error], [410, 'Browser session has been destroyed.']);
  });

  it('the official SDK creates, lists, executes in and deletes sessions', async () => {
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const created = await client.browser({ ttl: 60, activityTtl: 30 });
    assert.equal(created.success, true);
    assert.match(created.cdpUrl ?? '', /\/cdp\?token=/);
    const listed = await client.listBrowsers({ status: 'active' });
    assert.ok(listed.sessions?.some((s) => s.id === created.id && s.status === 'active'));
    const ran = await client.browserExecute(created.id!, {
      code: 'return await page.evaluate(() => 6 * 7)',
      language: 'node',
    });
    assert.equal(ran.result, '42');
    const deleted = await client.deleteBrowser(created.id!);
    assert.equal(deleted.success, true);
    assert.equal(typeof deleted.sessionDurationMs, 'number');
    const after = await client.listBrowsers({ status: 'destroyed' });
    assert.ok(after.sessions?.some((s) => s.id === created.id));
  });

  it('another team can neither see nor touch a session', async () => {
    const created = await createSession(server());
    const other = await otherTeamKey(server(), 'other-team');
    try {
      const theirs = await api(server(), 'GET', '/v2/interact', undefined, other);
      assert.equal(theirs.status, 200);
      assert.ok(!theirs.body.sessions.some((s: { id: string }) => s.id === created.id));
      for (const [method, route, body] of [
        ['GET', `/v2/interact/${created.id}`, undefined],
        ['DELETE', `/v2/interact/${created.id}`, undefined],
        ['POST', `/v2/interact/${created.id}/execute`, { code: 'return 1' }],
      ] as const) {
        const reply = await api(server(), method, route, body, other);
        assert.deepEqual(
          [reply.status, reply.body],
          // Not 403: that would tell a prober the id exists.
          [404, { success: false, error: 'Browser session not found.' }],
          `${method} ${route}`,
        );
      }
      assert.equal((await api(server(), 'GET', `/v2/interact/${created.id}`)).body.status, 'active');
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('caps a team’s concurrent sessions with 429', async () => {
    // A team of its own, so the other tests' sessions do not count.
    const key = await otherTeamKey(server(), 'capped-team');
    const made: string[] = [];
    try {
      let over: Awaited<ReturnType<typeof api>> | undefined;
      while (!over && made.length < 5) {
        const reply = await api(server(), 'POST', '/v2/interact', {}, key);
        if (reply.status === 200) made.push(reply.body.id);
        else over = reply;
      }
      assert.equal(made.length, 4);
      assert.equal(over?.status, 429);
      assert.match(over.body.error, /maximum number of concurrent browser sessions \(4\)/);
      assert.deepEqual(Object.keys(over.body), ['error']);
      assert.ok(over.headers.get('retry-after'));
      // A slot freed is a slot to use.
      await api(server(), 'DELETE', `/v2/interact/${made.pop()}`, undefined, key);
      const again = await api(server(), 'POST', '/v2/interact', {}, key);
      assert.equal(again.status, 200);
      made.push(again.body.id);
    } finally {
      for (const id of made) await api(server(), 'DELETE', `/v2/interact/${id}`, undefined, key);
    }
  });

  it('named profiles keep cookies and storage, with one writer at a time', async () => {
    const writer = await createSession(server(), { profile: { name: 'shop' } });
    let reader: Record<string, any> | undefined;
    try {
      const second = await api(server(), 'POST', '/v2/interact', {
        profile: { name: 'shop', saveChanges: true },
      });
      assert.equal(second.status, 409);
      assert.match(second.body.error, /already has an active session saving changes/);
      assert.equal((await api(server(), 'DELETE', '/v2/interact/profiles/shop')).status, 409);
      reader = await createSession(server(), { profile: { name: 'shop', saveChanges: false } });
      const { browser, page } = await connect(writer.cdpUrl);
      await page.goto(`${site()}/remember?who=ada&note=kept`);
      assert.equal(await page.textContent('#out'), 'stored');
      await browser.close();
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${writer.id}`);
      if (reader) await api(server(), 'DELETE', `/v2/interact/${reader.id}`);
    }
    const later = await createSession(server(), { profile: { name: 'shop', saveChanges: false } });
    try {
      const { browser, page } = await connect(later.cdpUrl);
      await page.goto(`${site()}/recall`);
      assert.equal(await page.textContent('#out'), 'visitor=ada|kept');
      await browser.close();
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${later.id}`);
    }
    assert.equal((await api(server(), 'DELETE', '/v2/interact/profiles/shop')).status, 200);
    assert.equal((await api(server(), 'DELETE', '/v2/interact/profiles/shop')).status, 404);

    // The longest name a profile may have, in letters that take several bytes, can be deleted too.
    const long = 'ü€'.repeat(64);
    const saved = await createSession(server(), { profile: { name: long } });
    await api(server(), 'DELETE', `/v2/interact/${saved.id}`);
    assert.equal(
      (await api(server(), 'DELETE', `/v2/interact/profiles/${encodeURIComponent(long)}`)).status,
      200,
    );
  });

  it('a browser that dies marks its session destroyed with the reason', async () => {
    const created = await createSession(server());
    const pid = await recordedPid(server(), created.id);
    assert.ok(isRunning(pid));
    process.kill(pid, 'SIGKILL');
    const record = await destroyed(created.id);
    assert.match(record.closeReason, /the browser exited unexpectedly \(signal SIGKILL\)/);
    assert.equal((await api(server(), 'DELETE', `/v2/interact/${created.id}`)).status, 200);
  });
});
