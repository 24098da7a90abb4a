import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { cliOn } from '../helpers/cli.ts';
import { filePartHead, rawParse } from '../helpers/raw-upload.ts';
import { parse, storeEnv, useServer } from '../helpers/server.ts';

const MiB = 1024 * 1024;

/**
 * Limits checked while a request arrives, before any team or pool limit (issue 14, item 4), over
 * real sockets: uploads whose bodies are still arriving, and headers that never finish.
 */
describe('request limits', () => {
  const server = useServer({
    QUIRE_UPLOADS_IN_FLIGHT_MB: '3',
    QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB: '2',
    QUIRE_REQUEST_HEADERS_TIMEOUT_MS: '1000',
  });
  const rows = (bytes: number) => 'a,b\n'.repeat(bytes / 4);
  const csv = (bytes: number) => ({ bytes: rows(bytes), filename: 'rows.csv' });

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
    const other = (await cliOn(storeEnv(server()))('keys', 'create', '--team', 'other')).trim();
    // Two uploads that never finish, each under its team's 2 MiB, 3.1 MiB together against the
    // node's 3: once the server has read both, whichever it read last is past the node's cap.
    // Neither ends, so neither gives bytes back before that: exactly one is refused.
    const held = [
      { key: server().key, bytes: 1.5 * MiB },
      { key: other, bytes: 1.6 * MiB },
    ].map(({ key, bytes }, i) => {
      const upload = rawParse(server().url, key, 2 * MiB + 1000);
      upload.request.write(`${filePartHead(`held-${i}.csv`)}${rows(bytes)}`);
      // The one not refused is cut off below: its client's error is expected.
      return {
        ...upload,
        answer: upload.answer.catch((error: Error) => ({ status: 0, text: error.message })),
      };
    });
    try {
      const refused = await Promise.race(held.map((h) => h.answer));
      assert.equal(refused.status, 429, refused.text);
      assert.match(JSON.parse(refused.text).error, /Quire is receiving too many uploads at once/);
      // The refused upload's bytes are free again: with the other still held (at most 1.6 MiB of
      // the node's 3 and of its team's 2), 0.3 MiB more fits, from either team.
      for (const key of [server().key, other])
        assert.equal((await parse(server(), { file: csv(0.3 * MiB), key })).status, 200);
    } finally {
      for (const h of held) h.request.destroy();
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
    // Closed by the server's header deadline (QUIRE_REQUEST_HEADERS_TIMEOUT_MS, checked every
    // second), not by this test.
    await new Promise((resolve) => socket.once('close', resolve));
    assert.match(answer, /^HTTP\/1\.1 408/);
  });
});
