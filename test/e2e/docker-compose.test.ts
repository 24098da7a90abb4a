import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { configSchema, loadConfig } from '../../src/config.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { corpusFile, parse, repoRoot, startCluster } from '../helpers/server.ts';

// No Docker daemon runs here, so the compose file is checked for what it promises without one:
// each Quire service's environment is configuration Quire accepts, in the role it names; the
// topology (api, worker, redis, postgres) and its health checks; Redis run the way the README's
// "Where the bytes live" requires; and, on this machine's Redis and PostgreSQL, an api and a
// worker process started with the services' own settings converting a document together.

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const password = 'compose-test';
const compose = parseYaml(
  // Compose's interpolation, for the one variable the file requires.
  fs
    .readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')
    .replace(/\$\{QUIRE_POSTGRES_PASSWORD:\?[^}]*\}/g, password),
  { merge: true },
) as { services: Record<string, Service> };
const { api, worker, redis, postgres } = compose.services;

const firstPass = firstPassOnly('reads docker-compose.yml and starts the cluster it describes itself');
describe('docker-compose.yml', firstPass, () => {
  it('runs an api, workers, Redis and PostgreSQL, the Quire services waiting for both to be healthy', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['api', 'postgres', 'redis', 'worker']);
    for (const service of [api, worker]) {
      assert.equal(service?.build, '.', 'built from the repository Dockerfile');
      assert.deepEqual(service?.depends_on, {
        redis: { condition: 'service_healthy' },
        postgres: { condition: 'service_healthy' },
      });
    }
    assert.deepEqual(redis?.healthcheck?.test, ['CMD', 'redis-cli', 'ping']);
    assert.match(postgres?.healthcheck?.test.join(' ') ?? '', /pg_isready -U quire -d quire/);
    // Only the API is reachable from outside the compose network.
    assert.deepEqual(api?.ports, ['3002:3002']);
    for (const inside of [worker, redis, postgres]) assert.equal(inside?.ports, undefined);
  });

  it('gives each Quire service settings Quire accepts, in the role it names', () => {
    const known = new Set(Object.keys(configSchema.shape));
    for (const [name, service] of Object.entries({ api, worker })) {
      const env = service?.environment ?? {};
      for (const variable of Object.keys(env))
        assert.ok(known.has(variable), `${name}: ${variable} is read by Quire`);
      const config = loadConfig(env);
      assert.equal(config.QUIRE_ROLE, name);
      assert.equal(config.QUIRE_REDIS_URL, 'redis://redis:6379');
      assert.equal(config.QUIRE_DATABASE_URL, `postgres://quire:${password}@postgres:5432/quire`);
    }
    assert.equal(postgres?.environment?.POSTGRES_PASSWORD, password);
  });

  it('runs Redis with nothing on disk and no eviction, as the README says uploads need', () => {
    const args = redis?.command ?? [];
    const flag = (name: string) => args[args.indexOf(name) + 1];
    assert.equal(flag('--save'), '');
    assert.equal(flag('--appendonly'), 'no');
    assert.equal(flag('--maxmemory-policy'), 'noeviction');
  });

  it("converts a document through an api and a worker started with the services' settings", async () => {
    // The same settings with this machine's Redis and a PostgreSQL database of the test's own
    // in place of the compose network's host names.
    const settings = (service: Service | undefined) => {
      const { QUIRE_REDIS_URL, QUIRE_DATABASE_URL, QUIRE_ROLE, ...rest } = service?.environment ?? {};
      return rest;
    };
    const cluster = await startCluster(settings(api), { workers: 0 });
    try {
      await cluster.addWorker(settings(worker));
      const res = await parse(cluster.api, { file: corpusFile('docx/docling-docx_list_blank_spacer.docx') });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(res.body.data.markdown, /^#+ List with a blank spacer paragraph$/m);
      assert.match(res.body.data.markdown, /Prose that belongs under Sub one\./);
    } finally {
      await cluster.stop();
    }
  });
});
