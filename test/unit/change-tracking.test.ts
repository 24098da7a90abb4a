import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { changeStatus, gitDiff } from '../../src/changes/compare.ts';
import { ChangeTracker } from '../../src/changes/tracker.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const gitDiffOnly = { modes: ['git-diff' as const], tag: null };

describe('change tracking: what counts as the same page', () => {
  it('a change of words is a change; whitespace alone is not; order is', () => {
    const page = '# Prices\n\n- Tea 2.50\n- Cake 3.00\n';
    assert.equal(changeStatus(page, '# Prices\n\n- Tea 2.75\n- Cake 3.00\n', 200), 'changed');
    assert.equal(changeStatus(page, '#  Prices\n\n\n- Tea 2.50\n-   Cake 3.00', 200), 'same');
    assert.equal(changeStatus(page, '# Prices\n\n- Cake 3.00\n- Tea 2.50\n', 200), 'changed');
    // The same characters in another order: a different price.
    assert.equal(changeStatus('Tea 19.99', 'Tea 91.99', 200), 'changed');
  });

  it('a page never seen is new; one that answers 404 or 410 is removed, seen or not', () => {
    assert.equal(changeStatus(undefined, '# Hello', 200), 'new');
    assert.equal(changeStatus('# Hello', 'Not found', 404), 'removed');
    assert.equal(changeStatus('# Hello', 'Gone', 410), 'removed');
    assert.equal(changeStatus(undefined, 'Not found', 404), 'removed');
    assert.equal(changeStatus('# Hello', '# Hello', 500), 'same');
  });

  it('writes a git-style unified diff with three lines of context', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n');
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h'].join('\n');
    assert.equal(
      gitDiff(before, after),
      [
        '===================================================================',
        '--- previous.md',
        '+++ current.md',
        '@@ -2,7 +2,7 @@',
        ' b',
        ' c',
        ' d',
        '-e',
        '+E',
        ' f',
        ' g',
        ' h',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
  });
});

describe('change tracking: baselines per team, page and tag', () => {
  let dir: string;
  let store: SqliteStore;
  let now = new Date('2026-03-01T10:00:00.000Z');
  let tracker: ChangeTracker;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-changes-'));
    store = new SqliteStore(path.join(dir, 'quire.db'));
    tracker = new ChangeTracker(store, () => now);
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const track = (markdown: string, more: { team?: string; tag?: string | null; statusCode?: number } = {}) =>
    tracker.track({
      team: more.team ?? 'harbour',
      url: 'https://example.com/prices',
      spec: { ...gitDiffOnly, tag: more.tag ?? null },
      markdown,
      statusCode: more.statusCode ?? 200,
    });

  it('new, then same, then changed with its diff, each against the scrape before', async () => {
    const first = await track('# Prices\n\nTea 2.50\n');
    assert.deepEqual(first, {
      changeTracking: { previousScrapeAt: null, changeStatus: 'new', visibility: 'visible', diff: null },
    });
    now = new Date('2026-03-02T10:00:00.000Z');
    const second = await track('# Prices\n\nTea   2.50');
    assert.deepEqual(second.changeTracking, {
      previousScrapeAt: '2026-03-01T10:00:00.000Z',
      changeStatus: 'same',
      visibility: 'visible',
      diff: null,
    });
    now = new Date('2026-03-03T10:00:00.000Z');
    const third = await track('# Prices\n\nTea 2.75\n');
    assert.equal(third.changeTracking.changeStatus, 'changed');
    assert.equal(third.changeTracking.previousScrapeAt, '2026-03-02T10:00:00.000Z');
    assert.match(third.changeTracking.diff ?? '', /^-Tea {3}2\.50$/m);
    assert.match(third.changeTracking.diff ?? '', /^\+Tea 2\.75$/m);
  });

  it('keeps teams and tags apart', async () => {
    assert.equal(
      (await track('# Prices\n\nTea 2.75\n', { team: 'other' })).changeTracking.changeStatus,
      'new',
    );
    assert.equal(
      (await track('# Prices\n\nTea 2.75\n', { tag: 'daily' })).changeTracking.changeStatus,
      'new',
    );
    assert.equal(
      (await track('# Prices\n\nTea 3.00\n', { tag: 'daily' })).changeTracking.changeStatus,
      'changed',
    );
    // The untagged baseline did not move.
    assert.equal((await track('# Prices\n\nTea 2.75\n')).changeTracking.changeStatus, 'same');
  });

  it('a removed page keeps the content it had, for when it comes back', async () => {
    now = new Date('2026-03-04T10:00:00.000Z');
    const gone = await track('Not found', { statusCode: 404 });
    assert.equal(gone.changeTracking.changeStatus, 'removed');
    assert.equal(gone.changeTracking.diff, null);
    const back = await track('# Prices\n\nTea 2.75\n');
    assert.equal(back.changeTracking.changeStatus, 'same');
  });

  it('forgets a page nobody tracked for 90 days, and keeps none past 5 MiB of Markdown', async () => {
    now = new Date('2026-06-10T10:00:00.000Z');
    // Any tracked scrape sweeps out the baselines older than 90 days.
    await track('# Elsewhere', { tag: 'sweep' });
    assert.equal((await track('# Prices\n\nTea 2.75\n')).changeTracking.changeStatus, 'new');
    const huge = `# Log\n\n${'x'.repeat(5 * 2 ** 20)}`;
    const big = await track(huge, { tag: 'huge' });
    assert.match(big.warning ?? '', /too long to keep for change tracking/);
    assert.equal((await track(huge, { tag: 'huge' })).changeTracking.changeStatus, 'new');
  });
});
