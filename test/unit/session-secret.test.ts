// The session secret is refused at start when it is short enough to be guessed from a view token:
// the server reads its configuration (loadConfig) before anything else, so this is where it stops.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';

describe('QUIRE_SESSION_SECRET', () => {
  it('refuses a secret shorter than 32 characters, naming the setting', () => {
    assert.throws(
      () => loadConfig({ QUIRE_SESSION_SECRET: 'hunter2' }),
      /at least 32 characters\n.*at QUIRE_SESSION_SECRET/,
    );
    assert.throws(() => loadConfig({ QUIRE_SESSION_SECRET: 'x'.repeat(31) }), /at QUIRE_SESSION_SECRET/);
  });

  it('takes one of 32 characters or more, or none (a random one is generated)', () => {
    assert.equal(loadConfig({ QUIRE_SESSION_SECRET: 'x'.repeat(32) }).QUIRE_SESSION_SECRET, 'x'.repeat(32));
    assert.equal(loadConfig({ QUIRE_SESSION_SECRET: '' }).QUIRE_SESSION_SECRET, '');
  });
});
