import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fixtures, fuzzSection, replayFixture, replayTimeMs, runFuzz } from '../../scripts/fuzz.ts';
import { ConvertChild, isFinding } from '../../scripts/hostile/convert-child.ts';
import { firstPassOnly } from '../helpers/mode.ts';

/**
 * The CI sample of `npm run fuzz`: fixed, so that a finding here is the same finding on every
 * machine. Cases go to the corpus formats in turn (19 of them today: 40 mutants of each);
 * `npm run fuzz` runs thousands (bench/RESULTS.md). Bounds are CPU time, not wall time, so
 * a busy machine makes no finding.
 */
const seed = 1;
const cases = 760;

const firstPass = firstPassOnly('the converters in child processes of the test, no server');
describe('fuzzing the converters', firstPass, () => {
  // One process replays them all, as a server's worker serves one upload after another.
  const child = new ConvertChild({ timeMs: replayTimeMs });
  after(() => child.close());

  // Each input a past run found: converted as the server would, without a crash, a hang or a
  // dying process. A bug found but not fixed yet carries `todo` in its .json.
  for (const file of fixtures()) {
    it(`replays ${path.basename(file)}`, async (t) => {
      const { meta, outcome } = await replayFixture(file, child);
      if (meta.todo) t.todo(meta.todo);
      t.diagnostic(`${meta.kind} when found (${meta.found}); now ${outcome.kind}`);
      assert.ok(!isFinding(outcome), `${JSON.stringify(outcome).slice(0, 1000)}`);
    });
  }

  it(`finds nothing in ${cases} mutants of seed ${seed}`, { timeout: 10 * 60_000 }, async (t) => {
    const report = await runFuzz({ seed, cases, save: false });
    t.diagnostic(fuzzSection(report));
    const found = report.findings.map(
      (f) =>
        `${f.kind} in ${f.format} (\`npm run fuzz -- --seed ${seed} --case ${f.caseIndex}\` saves it): ${f.signature}\n${f.detail.slice(0, 600)}`,
    );
    assert.deepEqual(found, []);
    // Every case ran, and every format had its share.
    assert.equal(report.cases, cases);
    for (const [format, tally] of Object.entries(report.byFormat)) assert.ok(tally.cases > 0, format);
  });
});
