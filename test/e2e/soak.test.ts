import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runSoak, type SoakReport, soakSection } from '../../scripts/soak.ts';
import { firstPassOnly } from '../helpers/mode.ts';

/**
 * `npm run soak` for 30 seconds: mixed load of two teams over every corpus format and option, with
 * browser sessions coming and going, against a real server, and the leak checks after it. A
 * smoke run: the suite runs both modes within its time budget, so the soak's length is spent in
 * `npm run soak` (20 minutes in bench/RESULTS.md), which also measures the memory slope.
 */
const firstPass = firstPassOnly(
  "a soak whose leak checks look at one process and its data folder (its pid, its children); its cluster counterpart would need checks on each process, and the suite's time budget has no second soak",
);
describe('a 30-second soak', firstPass, () => {
  let report: SoakReport;
  before(
    async () => {
      report = await runSoak({ minutes: 0.5, clients: 4, log: (line) => process.stderr.write(`${line}\n`) });
      process.stderr.write(soakSection(report));
    },
    { timeout: 10 * 60_000 },
  );

  it('answers every request, and none with a 5xx', () => {
    assert.ok(report.requests > 0);
    assert.equal(report.serverErrors, 0, JSON.stringify(report.statuses));
    assert.deepEqual(report.clientFailures, {});
  });

  it('creates, drives and ends sessions without a failure', () => {
    assert.ok(report.sessions.created > 0);
    assert.deepEqual(report.sessions.failures, {});
  });

  it('leaves no file descriptor, session folder or browser process behind', () => {
    assert.equal(report.fds.leaked, 0, JSON.stringify(report.fds));
    assert.deepEqual(report.sessionFoldersLeft, []);
    assert.deepEqual(report.browsersLeft, []);
  });

  it('leaves no temporary file behind', () => {
    assert.deepEqual(report.tempFilesLeft, []);
  });
});
