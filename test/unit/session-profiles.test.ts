// What a saved profile may take: only its storage counts against the cap (a cache is never saved),
// and a profile over the cap is not saved, leaving the saved one as it was. On Profiles itself:
// no browser is needed to write the folder a browser would leave.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Profiles } from '../../src/sessions/profiles.ts';

const MiB = 1024 * 1024;

describe('saved browser profiles', () => {
  it('a profile larger than the cap is not saved, and the saved one stays as it was', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-profiles-'));
    try {
      const profiles = new Profiles(path.join(root, 'saved'));
      const session = path.join(root, 'session');
      fs.mkdirSync(path.join(session, 'Default', 'Cache'), { recursive: true });
      fs.writeFileSync(path.join(session, 'Default', 'Cookies'), 'first');
      assert.equal((await profiles.save('team', 'p', session, MiB)).saved, true);

      // 2 MB of storage is over a 1 MB cap; 4 MB of cache would never be saved, so does not count.
      fs.writeFileSync(path.join(session, 'Default', 'Cookies'), Buffer.alloc(2 * MiB, 1));
      fs.writeFileSync(path.join(session, 'Default', 'Cache', 'data_1'), Buffer.alloc(4 * MiB, 1));
      const over = await profiles.save('team', 'p', session, MiB);
      assert.equal(over.saved, false);
      assert.ok(over.bytes >= 2 * MiB && over.bytes < 3 * MiB, String(over.bytes));

      const restored = path.join(root, 'restored');
      await profiles.restore('team', 'p', restored);
      assert.equal(fs.readFileSync(path.join(restored, 'Default', 'Cookies'), 'utf8'), 'first');
      assert.equal(fs.existsSync(path.join(restored, 'Default', 'Cache')), false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
