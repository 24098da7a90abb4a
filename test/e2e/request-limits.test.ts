import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { parse, startServer, useServer } from '../helpers/server.ts';

const MiB = 1024 * 1024;

/** Limits checked while a request arrives, before any team or pool limit (issue 14, item 4). */
describe('request limits', () => {
  const server = useServer({ QUIRE_UPLOADS_IN_FLIGHT_MB: '3', QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB: '2' });
  const csv = (bytes: number) => ({ bytes: 'a,b\n'.repeat(bytes / 4), filename: 'rows.csv' });

  it("refuses an upload past the team's bytes in flight with 429 and Retry-After, and gives them back", async () => {
    const refused = await parse(server(), { file: csv(2.5 * MiB) });
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.match(refused.body.error, /Your team is uploading more at once than it may hold/);
    assert.equal(refused.headers.get('retry-after'), '5');
    // What the refused upload had taken is free again, for the same team.
    const after = await parse(server(), { file: csv(1.5 * MiB) });
    assert.equal(after.status, 200, JSON.stringify(after.body).slice(0, 300));
    assert.match(after.body.data.markdown, /^\| a \| b \|/);
  });

  it("refuses an upload past the node's bytes in flight, whatever the team's budget", async () => {
    const small = await startServer({
      QUIRE_UPLOADS_IN_FLIGHT_MB: '1',
      QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB: '100',
    });
    try {
      const refused = await parse(small, { file: csv(1.5 * MiB) });
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.match(refused.body.error, /Quire is receiving too many uploads at once/);
      assert.equal((await parse(small, { file: csv(0.5 * MiB) })).status, 200);
    } finally {
      await small.stop();
    }
  });

  it('refuses JSON nested past 128 levels before parsing it, on JSON routes and in options', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const res = await fetch(`${server().url}/v2/interact`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server().key}`, 'content-type': 'application/json' },
      body: deep,
    });
    const body = (await res.json()) as { code: string; error: string };
    assert.equal(res.status, 400);
    assert.equal(body.code, 'BAD_REQUEST');
    assert.match(body.error, /The JSON body nests arrays and objects more than 128 levels deep/);

    const options = `{"formats":${'['.repeat(1000)}${']'.repeat(1000)}}`;
    const viaParse = await parse(server(), {
      file: { bytes: '<p>x</p>', filename: 'a.html' },
      options,
    });
    assert.equal(viaParse.status, 400);
    assert.match(
      viaParse.body.error,
      /The 'options' field nests arrays and objects more than 128 levels deep/,
    );

    // Brackets inside strings are text, not nesting.
    const quoted = await parse(server(), {
      file: { bytes: '<p>x</p>', filename: 'a.html' },
      options: { headers: { 'x-deep': '['.repeat(500) } },
    });
    assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
  });

  it('closes a connection whose headers never finish, without a key', async () => {
    const { port, hostname } = new URL(server().url);
    const socket = net.connect(Number(port), hostname);
    socket.write('POST /v2/parse HTTP/1.1\r\nHost: quire\r\nX-Slow: ');
    let answer = '';
    socket.on('data', (d: Buffer) => {
      answer += d.toString();
    });
    // Closed by the server's header deadline (15 s, checked every second), not by this test.
    await new Promise((resolve) => socket.once('close', resolve));
    assert.match(answer, /^HTTP\/1\.1 408/);
  });
});
