import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot, startServer } from '../helpers/server.ts';

// No Docker daemon runs on the machines the suite runs on, so the image is not built here. What
// can be checked is checked: that the image installs what `npm start` installs, runs the Node the
// repository runs on, as a user of its own, under an init, and that its health check works.

const dockerfile = fs.readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const instruction = (name: string) =>
  dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.startsWith(`${name} `))
    .map((l) => l.slice(name.length + 1).trim());

describe('Dockerfile', () => {
  it('installs the Debian packages with the script npm start runs, on the Node the repository runs on', () => {
    assert.ok(
      instruction('RUN').some((r) => r.startsWith('bash scripts/install-system-deps.sh run')),
      'the same install script, same purpose',
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const nodeMajor = /(\d+)/.exec(pkg.devDependencies.node)![1];
    assert.match(instruction('FROM')[0] ?? '', new RegExp(`^node:${nodeMajor}-bookworm`));
    assert.ok(instruction('RUN').some((r) => r.includes('npm install --omit=dev')));
    for (const copy of instruction('COPY')) {
      // A copy from another stage names that stage's paths, checked by the stage's own steps.
      const from = /^--from=(\S+)/.exec(copy)?.[1];
      if (from) {
        assert.ok(
          instruction('FROM').some((f) => f.endsWith(` AS ${from}`)),
          `stage ${from} exists`,
        );
        continue;
      }
      for (const source of copy.split(/\s+/).slice(0, -1))
        assert.ok(fs.existsSync(path.join(repoRoot, source)), `COPY ${source} exists`);
    }
  });

  it('runs as a user of its own under an init that reaps orphans', () => {
    const user = instruction('USER').at(-1);
    assert.ok(user && user !== 'root' && user !== '0', `USER ${user}`);
    assert.deepEqual(JSON.parse(instruction('ENTRYPOINT')[0]!), ['/usr/bin/tini', '--']);
    assert.ok(instruction('RUN').some((r) => /apt-get install .*\btini\b/.test(r)));
    assert.deepEqual(JSON.parse(instruction('CMD')[0]!), ['node', 'src/main.ts']);
    // The pages at / and /docs, built in their own stage by the script npm start runs first.
    assert.ok(instruction('RUN').includes('node scripts/build-web.ts'));
    assert.ok(instruction('COPY').includes('--from=web /app/web/dist web/dist'));
  });

  it('has a health check that passes against a running server and fails without one', async () => {
    const check = instruction('HEALTHCHECK')[0] ?? '';
    const command = /CMD node -e "(.*)"$/.exec(check)?.[1];
    assert.ok(command, check);
    const run = (port: string) =>
      promisify(execFile)(process.execPath, ['-e', command], { env: { ...process.env, PORT: port } }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? 1,
      );
    const server = await startServer();
    try {
      assert.equal(await run(new URL(server.url).port), 0);
    } finally {
      await server.stop();
    }
    // Port 1 (tcpmux): nothing listens there.
    assert.equal(await run('1'), 1);
  });
});
