import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { BulkChannel, fetchUpload, sendAnswer } from '../../src/pipeline/bulk-channel.ts';
import { firstPassOnly } from '../helpers/mode.ts';

/**
 * The socket large uploads and answers cross between the API process and its conversion
 * processes (issue 14: the API process never copies them through the IPC channel). Every
 * conversion over HTTP of a file or an answer of 64 KB or more goes this way, so the format
 * tests prove it carries bytes intact; here, what they cannot reach: a token works once, a
 * withdrawn upload or a short answer is an error rather than a truncated document, and the
 * socket's folder is private and gone at close.
 */
const firstPass = firstPassOnly('the bulk channel in one process, no server');
describe('the bulk channel between the API process and its conversion processes', firstPass, () => {
  const channel = new BulkChannel();
  after(() => channel.close());

  it('hands an offered upload over once, whole', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const offer = channel.offer(bytes);
    const got = await fetchUpload(channel.socketPath, { bulk: offer.token, size: bytes.length });
    assert.ok(got.equals(bytes));
    // Used once: a second reader gets nothing, and says so.
    await assert.rejects(
      fetchUpload(channel.socketPath, { bulk: offer.token, size: bytes.length }),
      /ended after 0 of/,
    );
    offer.release();
  });

  it('refuses a withdrawn upload and an unknown token', async () => {
    const offer = channel.offer(randomBytes(1000));
    offer.release();
    await assert.rejects(
      fetchUpload(channel.socketPath, { bulk: offer.token, size: 1000 }),
      /ended after 0 of 1000/,
    );
    await assert.rejects(
      fetchUpload(channel.socketPath, { bulk: 'f'.repeat(32), size: 1 }),
      /ended after 0 of 1/,
    );
  });

  it('receives an answer of its announced size, and rejects one that ends short', async () => {
    const body = randomBytes(5 * 1024 * 1024 + 3);
    const expected = channel.expect();
    await sendAnswer(channel.socketPath, expected.token, body);
    assert.ok((await expected.body).equals(body));
    expected.release();

    const short = channel.expect();
    await new Promise<void>((resolve) => {
      const socket = net.connect(channel.socketPath, () =>
        socket.end(`put ${short.token} 100\nonly this`, resolve),
      );
    });
    await assert.rejects(short.body, /ended after 9 of 100 bytes/);
    short.release();
  });

  it('keeps its socket in a folder only this user can open, removed at close', () => {
    const other = new BulkChannel();
    const folder = other.socketPath.slice(0, other.socketPath.lastIndexOf('/'));
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    other.close();
    assert.equal(fs.existsSync(folder), false);
  });
});
