// What the README says the CDP relay refuses, beyond what test/interact.test.ts shows
// (Page.navigate and Target.createTarget to file:/chrome:/private addresses, host files in a file
// input, Browser.close, Target.sendMessageToTarget, Tethering, downloads). Each refusal is
// checked on the CDP error the client gets, sent with a bare WebSocket client.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useServer } from '../helpers/server.ts';
import {
  api,
  attachToPage,
  createSession,
  openCdp,
  type RawCdp,
  sessionFolder,
  useTestSite,
} from '../helpers/sessions.ts';

/** The CDP error the relay answers a refused command with. */
const refused = (method: string, reason: string) => ({
  code: -32000,
  message: `Quire refused ${method}: ${reason}.`,
});
const notWeb = (scheme: string) =>
  `${scheme} URLs are not reachable from a browser session (only http:, https:, data: and blob:)`;

/** Navigate the attached page and wait for its load event. */
async function navigate(cdp: RawCdp, sessionId: string, url: string): Promise<void> {
  const loaded = cdp.event('Page.loadEventFired', (e) => e.sessionId === sessionId);
  const { errorText } = await cdp.send('Page.navigate', { url }, sessionId);
  assert.equal(errorText, undefined, `navigating to ${url}`);
  await loaded;
}

describe('interact sessions: the CDP firewall', () => {
  const server = useServer({ QUIRE_SESSIONS_ALLOWED_HOSTS: '127.0.0.1', QUIRE_WORKERS: '1' });
  const site = useTestSite();

  it('refuses non-web URLs wherever CDP would load them: loadNetworkResource, view-source:, rewritten Fetch requests', async () => {
    const created = await createSession(server());
    const cdp = await openCdp(created.cdpUrl);
    try {
      const { targetId, sessionId } = await attachToPage(cdp);
      await cdp.send('Page.enable', {}, sessionId);
      await navigate(cdp, sessionId, `${site()}/form`);

      const load = (url: string) =>
        cdp.send(
          'Network.loadNetworkResource',
          { frameId: targetId, url, options: { disableCache: true, includeCredentials: false } },
          sessionId,
        );
      await assert.rejects(
        load('file:///etc/passwd'),
        refused('Network.loadNetworkResource', notWeb('file:')),
      );
      await assert.rejects(
        load('http://169.254.169.254/latest/meta-data/'),
        refused(
          'Network.loadNetworkResource',
          '169.254.169.254 is a private, loopback or link-local address, which a browser session may not reach',
        ),
      );
      // The same command for a web page goes through.
      const { resource } = await load(`${site()}/form`);
      assert.deepEqual([resource.success, resource.httpStatusCode], [true, 200]);

      for (const url of [`view-source:${site()}/form`, 'view-source:file:///etc/passwd']) {
        await assert.rejects(
          cdp.send('Page.navigate', { url }, sessionId),
          refused('Page.navigate', notWeb('view-source:')),
        );
        await assert.rejects(
          cdp.send('Target.createTarget', { url }),
          refused('Target.createTarget', notWeb('view-source:')),
        );
      }

      // A paused request may not be sent on elsewhere.
      await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*/recall*' }] }, sessionId);
      const paused = cdp.event('Fetch.requestPaused', (e) => e.sessionId === sessionId);
      const loaded = cdp.event('Page.loadEventFired', (e) => e.sessionId === sessionId);
      const navigation = cdp.send('Page.navigate', { url: `${site()}/recall` }, sessionId);
      const { requestId, request } = (await paused).params;
      assert.equal(request.url, `${site()}/recall`);
      for (const [url, reason] of [
        ['file:///etc/passwd', notWeb('file:')],
        ['chrome://version/', notWeb('chrome:')],
        [
          'http://10.1.2.3/',
          '10.1.2.3 is a private, loopback or link-local address, which a browser session may not reach',
        ],
      ] as const) {
        await assert.rejects(
          cdp.send('Fetch.continueRequest', { requestId, url }, sessionId),
          refused('Fetch.continueRequest', reason),
        );
      }
      await cdp.send('Fetch.continueRequest', { requestId }, sessionId);
      await navigation;
      await loaded;
      const { result } = await cdp.send('Runtime.evaluate', { expression: 'location.href' }, sessionId);
      assert.equal(result.value, `${site()}/recall`);
      await cdp.send('Fetch.disable', {}, sessionId);
    } finally {
      await cdp.close();
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('refuses contexts with their own proxy, extensions, and a CDP connection handed to page scripts', async () => {
    const created = await createSession(server());
    const cdp = await openCdp(created.cdpUrl);
    try {
      const { targetId, sessionId } = await attachToPage(cdp);
      const ownProxy = 'a context with its own proxy would bypass the session’s egress checks';
      await assert.rejects(
        cdp.send('Target.createBrowserContext', { proxyServer: 'http://203.0.113.7:3128' }),
        refused('Target.createBrowserContext', ownProxy),
      );
      await assert.rejects(
        cdp.send('Target.createBrowserContext', { proxyBypassList: '*' }),
        refused('Target.createBrowserContext', ownProxy),
      );
      // A context without a proxy of its own is fine (Playwright's newContext makes one).
      const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
      await cdp.send('Target.disposeBrowserContext', { browserContextId });

      await assert.rejects(
        cdp.send('Extensions.loadUnpacked', { path: '/tmp' }),
        refused('Extensions.loadUnpacked', 'extensions are loaded from files on the host'),
      );
      await assert.rejects(
        cdp.send('PWA.install', {
          manifestId: 'https://example.com/',
          installUrlOrBundleUrl: 'file:///tmp/app.swbn',
        }),
        refused('PWA.install', 'installing web apps reads bundles from the host'),
      );

      await assert.rejects(
        cdp.send('Target.exposeDevToolsProtocol', { targetId, bindingName: 'cdp' }),
        refused('Target.exposeDevToolsProtocol', 'it would give page scripts an unfiltered CDP connection'),
      );
      // Runtime.addBinding only lets page scripts send strings to this client (Playwright's
      // exposeFunction is built on it), so it goes through. As Playwright does, Runtime first:
      // the headless shell puts a binding in the page's running context only once it is enabled.
      await cdp.send('Runtime.enable', {}, sessionId);
      await cdp.send('Runtime.addBinding', { name: 'quireBinding' }, sessionId);
      const called = cdp.event('Runtime.bindingCalled', (e) => e.sessionId === sessionId);
      await cdp.send('Runtime.evaluate', { expression: 'quireBinding("hello")' }, sessionId);
      assert.deepEqual(
        [(await called).params.name, (await called).params.payload],
        ['quireBinding', 'hello'],
      );
    } finally {
      await cdp.close();
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('files handed to the page, by file input or drop, must be in the session’s upload folder', async () => {
    const created = await createSession(server());
    const cdp = await openCdp(created.cdpUrl);
    try {
      const { sessionId } = await attachToPage(cdp);
      await cdp.send('Page.enable', {}, sessionId);
      await navigate(cdp, sessionId, 'data:text/html,<input type="file" id="f">');
      const uploads = path.join(sessionFolder(server(), created.id), 'uploads');
      const note = path.join(uploads, 'note.txt');
      fs.writeFileSync(note, 'from the upload folder');
      // A file of the session's own, but outside its upload folder.
      const beside = path.join(sessionFolder(server(), created.id), 'beside.txt');
      fs.writeFileSync(beside, 'not for the page');
      fs.symlinkSync('/etc/passwd', path.join(uploads, 'passwd'));

      const drop = (files: string[]) =>
        cdp.send(
          'Input.dispatchDragEvent',
          { type: 'dragEnter', x: 10, y: 10, data: { items: [], files, dragOperationsMask: 1 } },
          sessionId,
        );
      const outside = (file: string) =>
        `${file} is outside the session's upload folder; only files in it can be given to the page`;
      for (const [files, reason] of [
        [['/etc/passwd'], outside('/etc/passwd')],
        // Relative names are taken from the upload folder, and may not climb out of it...
        [['../beside.txt'], outside('../beside.txt')],
        // ...nor may a link in it lead out.
        [[path.join(uploads, 'passwd')], outside(path.join(uploads, 'passwd'))],
        // One file outside refuses them all.
        [[note, beside], outside(beside)],
        [
          [path.join(uploads, 'missing.txt')],
          `${path.join(uploads, 'missing.txt')} does not exist in the session's upload folder`,
        ],
      ] as const) {
        await assert.rejects(drop([...files]), refused('Input.dispatchDragEvent', reason));
      }
      await drop([note]);
      await cdp.send(
        'Input.dispatchDragEvent',
        { type: 'dragCancel', x: 10, y: 10, data: { items: [], dragOperationsMask: 1 } },
        sessionId,
      );

      const { root } = await cdp.send('DOM.getDocument', {}, sessionId);
      const { nodeId } = await cdp.send(
        'DOM.querySelector',
        { nodeId: root.nodeId, selector: '#f' },
        sessionId,
      );
      await assert.rejects(
        cdp.send('DOM.setFileInputFiles', { nodeId, files: [path.join(uploads, 'passwd')] }, sessionId),
        refused('DOM.setFileInputFiles', outside(path.join(uploads, 'passwd'))),
      );
      await cdp.send('DOM.setFileInputFiles', { nodeId, files: [note] }, sessionId);
      const { result } = await cdp.send(
        'Runtime.evaluate',
        { expression: 'document.getElementById("f").files[0].text()', awaitPromise: true },
        sessionId,
      );
      assert.equal(result.value, 'from the upload folder');
    } finally {
      await cdp.close();
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });
  // The test that drove the browser past the relay (over its debugging port, from DevToolsActivePort)
  // has no way in any more: browsers listen on no port (test/interact-limits.test.ts shows it),
  // so the tab watch in SessionService.watchTabs is defence in depth without an outside path to test.
});
