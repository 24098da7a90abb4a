import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { describeConfig } from '../../src/config.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { repoRoot } from '../helpers/server.ts';

describe('README', firstPassOnly('reads README.md and .ci/run, no server'), () => {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

  it('documents every environment variable Quire reads', () => {
    for (const { name } of describeConfig()) {
      assert.match(
        readme,
        new RegExp(`\\| \`${name}\` \\|`),
        `${name} is missing from the configuration table`,
      );
    }
  });

  it('opens with the two commands, and CI runs exactly the test one', () => {
    const commands = [...readme.matchAll(/^(npm install && npm (?:start|test))/gm)].map((m) => m[1]);
    assert.deepEqual(commands, ['npm install && npm start', 'npm install && npm test']);
    const ci = fs.readFileSync(path.join(repoRoot, '.ci/run'), 'utf8');
    assert.match(ci, /^npm install && npm test$/m);
  });
});
