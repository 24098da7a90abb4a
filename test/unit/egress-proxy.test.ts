import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EgressProxy, type LookupAll } from '../../src/sessions/egress-proxy.ts';
import { NetPolicy } from '../../src/sessions/net-policy.ts';
import { firstPassOnly } from '../helpers/mode.ts';

/** An origin that answers each path with a raw response, as a hostile site may. */
const answers: Record<string, string> = {
  '/ok': 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
  '/control-in-reason': 'HTTP/1.1 200 O\x01K\r\ncontent-length: 2\r\n\r\nok',
  '/status-000': 'HTTP/1.1 000 OK\r\ncontent-length: 2\r\n\r\nok',
};

const firstPass = firstPassOnly("the egress proxy in the test's process, no server");
describe('the egress proxy faced with hostile answers and requests', firstPass, () => {
  /** Connections to /stream, an answer that never ends, still open. */
  let streaming = 0;
  /** Called whenever a /stream connection closes. */
  let streamClosed = () => {};
  const allStreamsClosed = () =>
    new Promise<void>((resolve) => {
      streamClosed = () => {
        if (streaming === 0) resolve();
      };
      streamClosed();
    });
  const origin = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (data) => {
      const path = /^GET (\S+)/.exec(data.toString())?.[1] ?? '';
      if (path !== '/stream') {
        socket.end(answers[path] ?? 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      streaming++;
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      const timer = setInterval(() => socket.write('1\r\nx\r\n'), 20);
      socket.once('close', () => {
        clearInterval(timer);
        streaming--;
        streamClosed();
      });
    });
  });
  const proxy = new EgressProxy(new NetPolicy(['127.0.0.1']));
  let originPort = 0;
  let proxyPort = 0;
  before(async () => {
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    originPort = (origin.address() as net.AddressInfo).port;
    proxyPort = await proxy.listen();
  });
  after(async () => {
    await proxy.close();
    origin.close();
  });

  /** A plain-HTTP request through the proxy, as Chromium sends it: the absolute URL as path. */
  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({
        host: '127.0.0.1',
        port: proxyPort,
        path: `http://127.0.0.1:${originPort}${path}`,
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });

  /** The status line the proxy answers a CONNECT with. */
  const connect = (target: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(proxyPort, '127.0.0.1', () =>
        socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (data) => {
        text += data;
        if (!text.includes('\r\n')) return;
        resolve(text.slice(0, text.indexOf('\r\n')));
        socket.destroy();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  it('answers 502 to a status line Node cannot pass on, and goes on serving', async () => {
    for (const path of ['/control-in-reason', '/status-000']) {
      const answer = await get(path);
      assert.equal(answer.status, 502, path);
      assert.match(answer.body, /Quire egress proxy: /, path);
    }
    assert.deepEqual(await get('/ok'), { status: 200, body: 'ok' });
  });

  it('closes the origin connection when the browser leaves an answer that never ends', async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({
          host: '127.0.0.1',
          port: proxyPort,
          path: `http://127.0.0.1:${originPort}/stream`,
          agent: false,
        });
        req.on('response', (res) =>
          res.once('data', () => {
            req.destroy();
            resolve();
          }),
        );
        req.on('error', reject);
      });
    }
    // Each origin connection's close is awaited as it happens; one left open ends the test by
    // its timeout.
    await allStreamsClosed();
    assert.equal(streaming, 0);
  });

  it('refuses CONNECT to a port out of range, and goes on serving', async () => {
    for (const port of ['0', '65536', '99999']) {
      assert.equal(await connect(`127.0.0.1:${port}`), 'HTTP/1.1 400 Bad Request', port);
    }
    assert.equal(await connect(`127.0.0.1:${originPort}`), 'HTTP/1.1 200 Connection Established');
  });
});

const firstPass2 = firstPassOnly("the egress proxy in the test's process, no server");
describe('the egress proxy faced with names that resolve to this machine (DNS rebinding)', firstPass2, () => {
  /** Requests that reached the origin, a server on loopback. */
  let reached = 0;
  const origin = http.createServer((_req, res) => {
    reached++;
    res.end('origin');
  });
  /** What the injected resolver answers, per name; each lookup is counted. */
  const names: Record<string, string[]> = {
    'rebound.test': ['127.0.0.1'],
    'rebound6.test': ['::1'],
    'mapped.test': ['::ffff:7f00:1'],
    'allowed.test': ['127.0.0.1'],
  };
  const lookups: string[] = [];
  const lookupAll: LookupAll = async (hostname) => {
    lookups.push(hostname);
    return (names[hostname] ?? []).map((address) => ({ address }));
  };
  // An operator's allowed name is reachable whatever it resolves to: the control that shows
  // the proxy connects where the injected resolver says.
  const proxy = new EgressProxy(new NetPolicy(['allowed.test']), lookupAll);
  let originPort = 0;
  let proxyPort = 0;
  before(async () => {
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    originPort = (origin.address() as net.AddressInfo).port;
    proxyPort = await proxy.listen();
  });
  after(async () => {
    await proxy.close();
    origin.close();
  });

  const get = (host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: proxyPort, path: `http://${host}:${originPort}/` });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });

  const connect = (host: string) =>
    new Promise<string>((resolve, reject) => {
      const target = `${host}:${originPort}`;
      const socket = net.connect(proxyPort, '127.0.0.1', () =>
        socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (data) => {
        text += data;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  it('reaches an allowed name at the address the resolver gives', async () => {
    assert.deepEqual(await get('allowed.test'), { status: 200, body: 'origin' });
    assert.equal(reached, 1);
  });

  it('refuses a name that resolves to a loopback address, over HTTP and CONNECT', async () => {
    const before = reached;
    for (const [host, address] of [
      ['rebound.test', '127.0.0.1'],
      ['rebound6.test', '::1'],
      ['mapped.test', '::ffff:7f00:1'],
    ] as const) {
      lookups.length = 0;
      const answer = await get(host);
      assert.equal(answer.status, 403, host);
      assert.equal(
        answer.body,
        `Quire refused this request: ${host} resolves to ${address}, a private, loopback or link-local address, which a browser session may not reach.\n`,
      );
      const tunnel = await connect(host);
      assert.match(tunnel, /^HTTP\/1\.1 403 Forbidden\r\n/, host);
      assert.ok(tunnel.includes(`${host} resolves to ${address}`), tunnel);
      // Looked up by the proxy itself, once per request, and never connected to.
      assert.deepEqual(lookups, [host, host]);
    }
    assert.equal(reached, before);
  });
});
