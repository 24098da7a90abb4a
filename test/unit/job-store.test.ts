import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type {
  JobRecord,
  JobStore,
  NewJob,
  NewPage,
  PageRecord,
  WebhookDelivery,
} from '../../src/jobs/job-store.ts';
import type { Store } from '../../src/store/store.ts';
import { bothStores } from '../helpers/store.ts';

/**
 * The crawl and batch jobs' store (src/jobs/job-store.ts), the same cases on SQLite and on
 * PostgreSQL: a job's record, its frontier (one row per key, the cap), claiming, leases,
 * documents in completion order, errors, purging and webhook deliveries (claimed one per job). The races run for real
 * on PostgreSQL (two calls at once on two connections); on SQLite they only show the same answers.
 */

const stores = bothStores;

/** A time `minutes` after a fixed start, as the store's callers write times. */
const at = (minutes: number): string => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString();

const newJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  id: randomUUID(),
  kind: 'crawl',
  team: 'team-a',
  keyId: 'key-1',
  url: 'https://example.com/',
  options: JSON.stringify({ limit: 10, scrapeOptions: { formats: ['markdown'] } }),
  webhook: null,
  status: 'scraping',
  zeroDataRetention: false,
  createdAt: at(0),
  expiresAt: at(24 * 60),
  robots: null,
  ...overrides,
});

const page = (name: string, overrides: Partial<NewPage> = {}): NewPage => ({
  key: `example.com/${name}`,
  url: `https://example.com/${name}`,
  depth: 1,
  ...overrides,
});
const named = (n: number, prefix = 'p'): NewPage[] =>
  Array.from({ length: n }, (_, i) => page(`${prefix}${i}`));
const urls = (pages: readonly PageRecord[]): string[] => pages.map((p) => p.url);
const ids = (pages: readonly PageRecord[]): string[] => pages.map((p) => p.id);

for (const { name, open } of stores) {
  describe(`job store (${name})`, () => {
    // One store for the cases that only look at their own job; those that look at every job
    // (leasing any, purging, due deliveries) open one of their own.
    let shared: { store: Store; close: () => Promise<void> };
    let jobs: JobStore;
    before(async () => {
      shared = await open();
      jobs = shared.store.jobs;
    });
    after(() => shared.close());

    /** A new job in `jobs`, returned as created. */
    async function created(overrides: Partial<NewJob> = {}, store: JobStore = jobs): Promise<NewJob> {
      const job = newJob(overrides);
      await store.createJob(job);
      return job;
    }

    /** A job whose pages `names` are queued and claimed (active), in that order. */
    async function claimed(names: string[]): Promise<{ job: NewJob; pages: PageRecord[] }> {
      const job = await created();
      await jobs.enqueuePages(
        job.id,
        names.map((n) => page(n)),
        Infinity,
      );
      return { job, pages: await jobs.claimPages(job.id, names.length) };
    }

    it('creates a job, reads it back, applies a patch and slides its expiry', async () => {
      const job = await created({
        kind: 'batch',
        url: null,
        webhook: JSON.stringify({ url: 'https://hooks.example/x', events: ['completed'] }),
        zeroDataRetention: true,
        robots: 'User-agent: *\nDisallow: /private',
      });
      const stored: JobRecord = {
        ...job,
        completedAt: null,
        kickoffDone: false,
        error: null,
        leaseOwner: null,
        leaseUntil: null,
        result: null,
      };
      assert.deepEqual(await jobs.getJob(job.id), stored);
      assert.equal(await jobs.getJob(randomUUID()), undefined);

      await jobs.updateJob(job.id, {});
      assert.deepEqual(await jobs.getJob(job.id), stored);
      await jobs.updateJob(job.id, { kickoffDone: true, url: 'https://example.com/start' });
      assert.deepEqual(await jobs.getJob(job.id), {
        ...stored,
        kickoffDone: true,
        url: 'https://example.com/start',
      });
      await jobs.updateJob(job.id, { result: '{"data":null}' });
      assert.equal((await jobs.getJob(job.id))?.result, '{"data":null}');
      await jobs.updateJob(job.id, { result: null });
      await jobs.updateJob(job.id, { status: 'failed', completedAt: at(5), error: 'no start', robots: null });
      const failed = {
        ...stored,
        kickoffDone: true,
        url: 'https://example.com/start',
        status: 'failed' as const,
        completedAt: at(5),
        error: 'no start',
        robots: null,
      };
      assert.deepEqual(await jobs.getJob(job.id), failed);

      await jobs.touchJob(job.id, at(3 * 24 * 60));
      assert.deepEqual(await jobs.getJob(job.id), { ...failed, expiresAt: at(3 * 24 * 60) });
    });

    it("lists a team's running jobs of one kind, oldest first", async () => {
      const team = `team-${randomUUID()}`;
      const later = await created({ team, createdAt: at(10) });
      const earlier = await created({ team, createdAt: at(5) });
      await created({ team, kind: 'batch', url: null });
      await created({ team: `${team}-other` });
      await created({ team, status: 'completed', createdAt: at(1) });
      const listed = await jobs.listActiveJobs(team, 'crawl');
      assert.deepEqual(
        listed.map((j) => j.id),
        [earlier.id, later.id],
      );
      assert.equal(listed[0]!.createdAt, at(5));
      assert.equal((await jobs.listActiveJobs(team, 'batch')).length, 1);
      assert.deepEqual(await jobs.listActiveJobs(`${team}-none`, 'crawl'), []);
    });

    it('stores each key once per job, within a call and across calls, blocked pages included', async () => {
      const job = await created();
      const first = await jobs.enqueuePages(
        job.id,
        [
          page('a', { depth: 0 }),
          page('b'),
          { key: 'example.com/a', url: 'https://example.com/a?again', depth: 2 },
          page('c', { state: 'blocked' }),
        ],
        Infinity,
      );
      assert.deepEqual(
        first.map(({ jobId, key, url, depth, state, attempts }) => ({
          jobId,
          key,
          url,
          depth,
          state,
          attempts,
        })),
        [
          {
            jobId: job.id,
            key: 'example.com/a',
            url: 'https://example.com/a',
            depth: 0,
            state: 'queued',
            attempts: 0,
          },
          {
            jobId: job.id,
            key: 'example.com/b',
            url: 'https://example.com/b',
            depth: 1,
            state: 'queued',
            attempts: 0,
          },
          {
            jobId: job.id,
            key: 'example.com/c',
            url: 'https://example.com/c',
            depth: 1,
            state: 'blocked',
            attempts: 0,
          },
        ],
      );
      for (const p of first)
        assert.match(p.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(new Set(ids(first)).size, 3);
      assert.ok(first[0]!.seq < first[1]!.seq && first[1]!.seq < first[2]!.seq);

      const second = await jobs.enqueuePages(job.id, [page('b'), page('c'), page('d'), page('a')], Infinity);
      assert.deepEqual(urls(second), ['https://example.com/d']);
      assert.ok(second[0]!.seq > first[2]!.seq);
      assert.deepEqual(await jobs.enqueuePages(job.id, [], Infinity), []);

      // The same key in another job is that job's own.
      const other = await created();
      assert.deepEqual(urls(await jobs.enqueuePages(other.id, [page('a')], Infinity)), [
        'https://example.com/a',
      ]);
      assert.deepEqual(await jobs.pageCounts(job.id), {
        queued: 3,
        active: 0,
        done: 0,
        failed: 0,
        blocked: 1,
        skipped: 0,
      });
      assert.deepEqual(await jobs.enqueuePages(randomUUID(), [page('a')], Infinity), []);
    });

    it('stops at the cap: queued, active and done pages count, failed, blocked and skipped ones do not', async () => {
      const job = await created();
      assert.deepEqual(urls(await jobs.enqueuePages(job.id, named(5), 3)), [
        'https://example.com/p0',
        'https://example.com/p1',
        'https://example.com/p2',
      ]);
      assert.deepEqual(await jobs.enqueuePages(job.id, [page('p3')], 3), []);

      // Blocked pages take no slot and are stored past the cap; p3 was refused before, so it was
      // not stored and may come now.
      const withBlocked = await jobs.enqueuePages(
        job.id,
        [page('b0', { state: 'blocked' }), page('p3'), page('b1', { state: 'blocked' }), page('p4')],
        4,
      );
      assert.deepEqual(
        withBlocked.map((p) => [p.url, p.state]),
        [
          ['https://example.com/b0', 'blocked'],
          ['https://example.com/p3', 'queued'],
          ['https://example.com/b1', 'blocked'],
        ],
      );

      // Done pages still count; a failed page frees its slot.
      const [p0, p1] = await jobs.claimPages(job.id, 2);
      await jobs.completePage(p0!.id, Buffer.from('{}'), 1, at(1));
      assert.deepEqual(await jobs.enqueuePages(job.id, [page('p4')], 4), []);
      await jobs.failPage(p1!.id, { code: 'SCRAPE_TIMEOUT', message: 'timed out' }, at(2));
      assert.deepEqual(urls(await jobs.enqueuePages(job.id, [page('p5'), page('p6')], 4)), [
        'https://example.com/p5',
      ]);
      // A failed page's key stays taken.
      assert.deepEqual(await jobs.enqueuePages(job.id, [page('p1')], 10), []);
      // A skipped page (another stands for it) takes no slot, and its key is taken for good.
      const skipped = await jobs.enqueuePages(job.id, [page('s0', { state: 'skipped' })], 4);
      assert.deepEqual(
        skipped.map((p) => [p.url, p.state]),
        [['https://example.com/s0', 'skipped']],
      );
      assert.deepEqual(await jobs.enqueuePages(job.id, [page('s0')], 10), []);

      assert.equal((await jobs.enqueuePages(job.id, named(50, 'q'), Infinity)).length, 50);
      assert.deepEqual(await jobs.pageCounts(job.id), {
        queued: 53,
        active: 0,
        done: 1,
        failed: 1,
        blocked: 2,
        skipped: 1,
      });
      // Skipped queued pages free their slots; a page put back in the queue keeps its own.
      assert.equal(await jobs.skipQueued(job.id), 53);
      assert.deepEqual(urls(await jobs.enqueuePages(job.id, [page('r0')], 2)), ['https://example.com/r0']);
      assert.deepEqual(urls(await jobs.claimPages(job.id, 1)), ['https://example.com/r0']);
      await jobs.requeueActive(job.id);
      assert.deepEqual(await jobs.enqueuePages(job.id, [page('r1')], 2), []);
      assert.deepEqual(urls(await jobs.enqueuePages(job.id, [page('r1'), page('r2')], 3)), [
        'https://example.com/r1',
      ]);
    });

    it('claims queued pages lowest seq first, counting an attempt on each', async () => {
      const job = await created();
      const queued = await jobs.enqueuePages(
        job.id,
        [...named(5), page('x', { state: 'blocked' })],
        Infinity,
      );
      const first = await jobs.claimPages(job.id, 2);
      assert.deepEqual(ids(first), ids(queued.slice(0, 2)));
      assert.deepEqual(
        first.map((p) => [p.state, p.attempts]),
        [
          ['active', 1],
          ['active', 1],
        ],
      );
      assert.deepEqual(await jobs.claimPages(job.id, 0), []);
      const rest = await jobs.claimPages(job.id, 10);
      assert.deepEqual(ids(rest), ids(queued.slice(2, 5)));
      assert.deepEqual(await jobs.claimPages(job.id, 10), []);
      assert.equal((await jobs.pageCounts(job.id)).active, 5);
    });

    it('puts active pages back in the queue when their driver died', async () => {
      const job = await created();
      const queued = await jobs.enqueuePages(job.id, named(5), Infinity);
      const [a, b, c] = await jobs.claimPages(job.id, 3);
      await jobs.completePage(a!.id, Buffer.from('a'), 1, at(1));
      // One page alone (its turn comes again), then the rest.
      assert.equal(await jobs.requeueActive(job.id, c!.id), 1);
      assert.equal(await jobs.requeueActive(job.id, c!.id), 0);
      assert.equal(await jobs.requeueActive(job.id), 1);
      assert.equal(await jobs.requeueActive(job.id), 0);
      assert.deepEqual(await jobs.pageCounts(job.id), {
        queued: 4,
        active: 0,
        done: 1,
        failed: 0,
        blocked: 0,
        skipped: 0,
      });
      const again = await jobs.claimPages(job.id, 4);
      assert.deepEqual(ids(again), [b!.id, c!.id, queued[3]!.id, queued[4]!.id]);
      assert.deepEqual(
        again.map((p) => p.attempts),
        [2, 2, 1, 1],
      );
    });

    it('skips the queued pages, whose keys stay taken', async () => {
      const job = await created();
      await jobs.enqueuePages(job.id, named(5), Infinity);
      await jobs.claimPages(job.id, 2);
      assert.equal(await jobs.skipQueued(job.id), 3);
      assert.equal(await jobs.skipQueued(job.id), 0);
      assert.deepEqual(await jobs.claimPages(job.id, 5), []);
      assert.deepEqual(await jobs.enqueuePages(job.id, named(5), Infinity), []);
      assert.deepEqual(await jobs.pageCounts(job.id), {
        queued: 0,
        active: 2,
        done: 0,
        failed: 0,
        blocked: 0,
        skipped: 3,
      });
      // Skipped pages take no slot under the cap.
      assert.deepEqual(urls(await jobs.enqueuePages(job.id, [page('new')], 3)), ['https://example.com/new']);
    });

    it('completes or fails only an active page', async () => {
      const { job, pages } = await claimed(['a', 'b']);
      const [queued] = await jobs.enqueuePages(job.id, [page('c')], Infinity);
      const [a, b] = pages;

      await jobs.completePage(queued!.id, Buffer.from('queued'), 1, at(1));
      await jobs.failPage(queued!.id, { code: 'X', message: 'queued' }, at(1));
      assert.equal((await jobs.pageCounts(job.id)).queued, 1);

      await jobs.completePage(a!.id, Buffer.from('first'), 2, at(2));
      await jobs.completePage(a!.id, Buffer.from('second'), 5, at(3));
      await jobs.failPage(a!.id, { code: 'X', message: 'after done' }, at(3));
      await jobs.failPage(b!.id, { code: 'Y', message: 'failed' }, at(4));
      await jobs.completePage(b!.id, Buffer.from('after failure'), 5, at(5));
      await jobs.failPage(b!.id, { code: 'Z', message: 'again' }, at(6));

      assert.deepEqual(await jobs.readDocuments(job.id, 0, 10), [Buffer.from('first')]);
      assert.equal(await jobs.creditsUsed(job.id), 2);
      assert.deepEqual((await jobs.readErrors(job.id)).errors, [
        { id: b!.id, timestamp: at(4), url: 'https://example.com/b', code: 'Y', error: 'failed' },
      ]);
      assert.deepEqual(await jobs.pageCounts(job.id), {
        queued: 1,
        active: 0,
        done: 1,
        failed: 1,
        blocked: 0,
        skipped: 0,
      });
    });

    it('reads documents in completion order, a range at a time', async () => {
      const { job, pages } = await claimed(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
      const { job: other, pages: otherPages } = await claimed(['o0', 'o1']);
      const body = (name: string) =>
        Buffer.from([0, 255, ...Buffer.from(JSON.stringify({ markdown: name }))]);
      const order = [3, 0, 5, 1, 4, 2];
      for (const [i, n] of order.entries()) {
        await jobs.completePage(pages[n]!.id, body(`p${n}`), 1, at(i));
        // Another job's documents finish in between, and stay its own.
        if (i < 2) await jobs.completePage(otherPages[i]!.id, body(`o${i}`), 1, at(i));
      }
      const inOrder = order.map((n) => body(`p${n}`));
      assert.deepEqual(await jobs.readDocuments(job.id, 0, 100), inOrder);
      assert.deepEqual(await jobs.readDocuments(job.id, 2, 3), inOrder.slice(2, 5));
      assert.deepEqual(await jobs.readDocuments(job.id, 5, 10), inOrder.slice(5));
      assert.deepEqual(await jobs.readDocuments(job.id, 6, 10), []);
      assert.equal(await jobs.countDocuments(job.id), 6);
      assert.deepEqual(await jobs.readDocuments(other.id, 0, 10), [body('o0'), body('o1')]);
      assert.equal(await jobs.countDocuments(other.id), 2);
      assert.equal(await jobs.countDocuments(randomUUID()), 0);
    });

    it('takes documents once, oldest first, within a byte bound (the first whatever its size)', async () => {
      const { job, pages } = await claimed(['p0', 'p1', 'p2', 'p3', 'p4']);
      const { job: other, pages: otherPages } = await claimed(['o0']);
      const body = (n: number, size: number) => Buffer.alloc(size, 97 + n);
      const sizes = [10, 10, 50, 10, 10];
      for (const [n, size] of sizes.entries()) await jobs.completePage(pages[n]!.id, body(n, size), 1, at(n));
      await jobs.completePage(otherPages[0]!.id, body(9, 10), 1, at(9));

      assert.deepEqual(await jobs.takeDocuments(job.id, 10, 25), [body(0, 10), body(1, 10)]);
      assert.deepEqual(await jobs.takeDocuments(job.id, 10, 5), [body(2, 50)]);
      assert.equal(await jobs.countDocuments(job.id), 2);
      // Two readers at once: each document goes to one of them.
      const [a, b] = await Promise.all([
        jobs.takeDocuments(job.id, 1, 100),
        jobs.takeDocuments(job.id, 1, 100),
      ]);
      assert.deepEqual([...a, ...b].sort(Buffer.compare), [body(3, 10), body(4, 10)]);
      assert.deepEqual(await jobs.takeDocuments(job.id, 10, 100), []);
      assert.deepEqual(await jobs.readDocuments(job.id, 0, 10), []);
      assert.deepEqual(await jobs.readDocuments(other.id, 0, 10), [body(9, 10)]);
    });

    it('lists failed pages in the order they failed (hidden ones not) and blocked URLs by seq', async () => {
      const job = await created();
      await jobs.enqueuePages(
        job.id,
        [page('b0', { state: 'blocked' }), page('p1'), page('p2'), page('p3'), page('p4')],
        Infinity,
      );
      await jobs.enqueuePages(job.id, [page('b1', { state: 'blocked' })], Infinity);
      const [p1, p2, p3, p4] = await jobs.claimPages(job.id, 4);
      await jobs.failPage(p3!.id, { code: 'SCRAPE_DNS_RESOLUTION_ERROR', message: 'no such host' }, at(1));
      await jobs.failPage(p1!.id, { code: 'CANCELLED', message: 'job cancelled', hidden: true }, at(2));
      await jobs.failPage(p2!.id, { code: null, message: 'server error' }, at(3));
      await jobs.completePage(p4!.id, Buffer.from('{}'), 1, at(4));
      assert.deepEqual(await jobs.readErrors(job.id), {
        errors: [
          {
            id: p3!.id,
            timestamp: at(1),
            url: 'https://example.com/p3',
            code: 'SCRAPE_DNS_RESOLUTION_ERROR',
            error: 'no such host',
          },
          { id: p2!.id, timestamp: at(3), url: 'https://example.com/p2', code: null, error: 'server error' },
        ],
        robotsBlocked: ['https://example.com/b0', 'https://example.com/b1'],
      });
      assert.deepEqual(await jobs.readErrors(randomUUID()), { errors: [], robotsBlocked: [] });
    });

    it("sums the done pages' credits", async () => {
      const { job, pages } = await claimed(['a', 'b', 'c']);
      assert.equal(await jobs.creditsUsed(job.id), 0);
      await jobs.completePage(pages[0]!.id, Buffer.from('a'), 1, at(1));
      await jobs.completePage(pages[1]!.id, Buffer.from('b'), 5, at(2));
      await jobs.failPage(pages[2]!.id, { code: null, message: 'failed' }, at(3));
      const other = await claimed(['a']);
      await jobs.completePage(other.pages[0]!.id, Buffer.from('a'), 7, at(1));
      assert.equal(await jobs.creditsUsed(job.id), 6);
    });

    it('cancels a running job only, answering the status it had', async () => {
      const job = await created();
      assert.equal(await jobs.cancelJob(job.id, at(5)), 'scraping');
      assert.deepEqual(await jobs.getJob(job.id).then((j) => [j?.status, j?.completedAt]), [
        'cancelled',
        at(5),
      ]);
      assert.equal(await jobs.cancelJob(job.id, at(6)), 'cancelled');
      assert.equal((await jobs.getJob(job.id))?.completedAt, at(5));

      const done = await created();
      await jobs.updateJob(done.id, { status: 'completed', completedAt: at(1) });
      assert.equal(await jobs.cancelJob(done.id, at(7)), 'completed');
      assert.deepEqual(await jobs.getJob(done.id).then((j) => [j?.status, j?.completedAt]), [
        'completed',
        at(1),
      ]);
      assert.equal(await jobs.cancelJob(randomUUID(), at(8)), undefined);
    });

    it('leases a job to one owner until it ends; only that owner renews or releases it', async () => {
      const job = await created();
      const leased = await jobs.leaseJob('a', at(0), at(1), job.id);
      assert.deepEqual(leased, {
        ...job,
        completedAt: null,
        kickoffDone: false,
        error: null,
        leaseOwner: 'a',
        leaseUntil: at(1),
        result: null,
      });
      assert.equal(await jobs.leaseJob('b', at(0), at(2), job.id), undefined);
      assert.equal(await jobs.renewLease(job.id, 'b', at(5)), false);
      assert.equal(await jobs.renewLease(job.id, 'a', at(5)), true);
      assert.equal((await jobs.getJob(job.id))?.leaseUntil, at(5));
      // Free only once its end has passed.
      assert.equal(await jobs.leaseJob('b', at(5), at(10), job.id), undefined);
      assert.equal((await jobs.leaseJob('b', at(5.01), at(10), job.id))?.leaseOwner, 'b');
      assert.equal(await jobs.renewLease(job.id, 'a', at(20)), false);
      await jobs.releaseLease(job.id, 'a');
      assert.deepEqual(await jobs.getJob(job.id).then((j) => [j?.leaseOwner, j?.leaseUntil]), ['b', at(10)]);
      await jobs.releaseLease(job.id, 'b');
      assert.deepEqual(await jobs.getJob(job.id).then((j) => [j?.leaseOwner, j?.leaseUntil]), [null, null]);
      assert.equal((await jobs.leaseJob('c', at(6), at(11), job.id))?.leaseOwner, 'c');

      const finished = await created({ status: 'completed' });
      assert.equal(await jobs.leaseJob('a', at(0), at(1), finished.id), undefined);
      assert.equal(await jobs.leaseJob('a', at(0), at(1), randomUUID()), undefined);
    });

    it('leases any free running job, oldest first', async () => {
      const own = await open();
      try {
        const store = own.store.jobs;
        const newer = await created({ createdAt: at(2) }, store);
        const older = await created({ createdAt: at(1) }, store);
        await created({ createdAt: at(0), status: 'completed' }, store);
        const held = await created({ createdAt: at(0) }, store);
        assert.ok(await store.leaseJob('z', at(0), at(10), held.id));
        assert.equal((await store.leaseJob('a', at(5), at(20)))?.id, older.id);
        assert.equal((await store.leaseJob('a', at(5), at(20)))?.id, newer.id);
        assert.equal(await store.leaseJob('a', at(5), at(20)), undefined);
        // z's lease has ended; a's have not.
        const taken = await store.leaseJob('b', at(15), at(30));
        assert.deepEqual([taken?.id, taken?.leaseOwner, taken?.leaseUntil], [held.id, 'b', at(30)]);
        assert.equal(await store.leaseJob('b', at(15), at(30)), undefined);
      } finally {
        await own.close();
      }
    });

    it('gives a job to one of two owners racing for it', async () => {
      for (let round = 0; round < 5; round++) {
        const job = await created();
        const both = await Promise.all([
          jobs.leaseJob('x', at(0), at(1), job.id),
          jobs.leaseJob('y', at(0), at(1), job.id),
        ]);
        const winners = both.filter((j) => j !== undefined);
        assert.equal(winners.length, 1);
        assert.equal((await jobs.getJob(job.id))?.leaseOwner, winners[0]!.leaseOwner);
      }
      const own = await open();
      try {
        const store = own.store.jobs;
        const only = await created({}, store);
        const both = await Promise.all([
          store.leaseJob('x', at(0), at(1)),
          store.leaseJob('y', at(0), at(1)),
        ]);
        assert.deepEqual(
          both.filter((j) => j !== undefined).map((j) => j.id),
          [only.id],
        );
        const two = [await created({ createdAt: at(1) }, store), await created({ createdAt: at(2) }, store)];
        const pair = await Promise.all([
          store.leaseJob('x', at(0), at(3)),
          store.leaseJob('y', at(0), at(3)),
        ]);
        assert.deepEqual(pair.map((j) => j?.id).sort(), two.map((j) => j.id).sort());
      } finally {
        await own.close();
      }
    });

    it('gives two claimers at once disjoint pages', async () => {
      for (const [n, m] of [
        [10, 10],
        [15, 15],
        [3, 20],
      ] as const) {
        const job = await created();
        const queued = await jobs.enqueuePages(job.id, named(20), Infinity);
        const [a, b] = await Promise.all([jobs.claimPages(job.id, n), jobs.claimPages(job.id, m)]);
        assert.equal(a.length + b.length, 20);
        assert.deepEqual([...ids(a), ...ids(b)].sort(), ids(queued).sort());
        for (const p of [...a, ...b]) assert.deepEqual([p.state, p.attempts], ['active', 1]);
      }
    });

    it('holds the cap against two enqueues at once', async () => {
      for (let round = 0; round < 3; round++) {
        const job = await created();
        const [a, b] = await Promise.all([
          jobs.enqueuePages(job.id, named(10, 'a'), 12),
          jobs.enqueuePages(job.id, named(10, 'b'), 12),
        ]);
        assert.equal(a.length + b.length, 12);
        assert.equal((await jobs.pageCounts(job.id)).queued, 12);
        // The same keys from two callers at once: each stored once.
        const same = await created();
        const [c, d] = await Promise.all([
          jobs.enqueuePages(same.id, named(10), Infinity),
          jobs.enqueuePages(same.id, named(10), Infinity),
        ]);
        assert.deepEqual(
          urls([...c, ...d]).sort(),
          named(10)
            .map((p) => p.url)
            .sort(),
        );
      }
    });

    it('purges the jobs past their expiry, with their pages, documents and deliveries', async () => {
      const own = await open();
      try {
        const store = own.store.jobs;
        const fill = async (expiresAt: string) => {
          const job = await created({ expiresAt }, store);
          await store.enqueuePages(job.id, [...named(3), page('b', { state: 'blocked' })], Infinity);
          const [done, failed] = await store.claimPages(job.id, 2);
          await store.completePage(done!.id, Buffer.from('doc'), 1, at(1));
          await store.failPage(failed!.id, { code: 'X', message: 'failed' }, at(1));
          await store.queueWebhook({
            id: randomUUID(),
            jobId: job.id,
            url: 'https://hooks.example/',
            headers: '{}',
            body: '{}',
            attempts: 0,
            nextAt: at(1),
          });
          return job;
        };
        const expired = await fill(at(60));
        const kept = await fill(at(120));
        const onTheDot = await fill(at(90));
        assert.equal(await store.purgeJobs(at(90)), 1);
        assert.equal(await store.purgeJobs(at(90)), 0);
        assert.equal(await store.getJob(expired.id), undefined);
        assert.deepEqual(await store.pageCounts(expired.id), {
          queued: 0,
          active: 0,
          done: 0,
          failed: 0,
          blocked: 0,
          skipped: 0,
        });
        assert.equal(await store.countDocuments(expired.id), 0);
        assert.deepEqual(await store.readErrors(expired.id), { errors: [], robotsBlocked: [] });
        assert.deepEqual(
          (await store.claimWebhooks('w', at(2), at(3), 10)).map((d) => d.jobId).sort(),
          [kept.id, onTheDot.id].sort(),
        );
        for (const job of [kept, onTheDot]) {
          assert.ok(await store.getJob(job.id));
          assert.equal(await store.countDocuments(job.id), 1);
          assert.deepEqual(await store.pageCounts(job.id), {
            queued: 1,
            active: 0,
            done: 1,
            failed: 1,
            blocked: 1,
            skipped: 0,
          });
        }
        assert.equal(await store.purgeJobs(at(200)), 2);
        assert.deepEqual(await store.claimWebhooks('w', at(5), at(6), 10), []);
      } finally {
        await own.close();
      }
    });

    /** A delivery of `job`'s event `n`, due at `nextAt`. */
    const delivery = (jobId: string, n: number, nextAt: string): WebhookDelivery => ({
      id: randomUUID(),
      jobId,
      url: 'https://hooks.example/receive',
      headers: JSON.stringify({ 'x-n': String(n) }),
      body: JSON.stringify({ success: true, type: 'crawl.page', n }),
      attempts: 0,
      nextAt,
    });

    it("claims due deliveries, each job's oldest only, by due time then queue order", async () => {
      const own = await open();
      try {
        const store = own.store.jobs;
        const [a, b, c] = [await created({}, store), await created({}, store), await created({}, store)];
        const a1 = delivery(a.id, 1, at(2));
        const b1 = delivery(b.id, 1, at(1));
        const a2 = delivery(a.id, 2, at(1));
        const c1 = delivery(c.id, 1, at(1));
        const b2 = delivery(b.id, 2, at(0));
        const c2 = delivery(c.id, 2, at(9));
        for (const d of [a1, b1, a2, c1, b2, c2]) await store.queueWebhook(d);

        assert.deepEqual(await store.claimWebhooks('x', at(0), at(10), 10), []);
        assert.deepEqual(await store.claimWebhooks('x', at(1), at(10), 0), []);
        // a2 and b2 are due, but wait behind a1 and b1; a1 is not due yet.
        assert.deepEqual(await store.claimWebhooks('x', at(1), at(10), 1), [b1]);
        assert.deepEqual(await store.claimWebhooks('x', at(2), at(10), 10), [c1, a1]);
        // Claimed ones are taken until their claim ends, and their jobs' later events still wait.
        assert.deepEqual(await store.claimWebhooks('y', at(9), at(20), 10), []);

        // Delivered: the job's next event can go. Failed: due again later, unclaimed, still first.
        await store.removeWebhook(b1.id);
        await store.retryWebhook(a1.id, 1, at(12));
        await store.retryWebhook(c1.id, 1, at(5));
        assert.deepEqual(await store.claimWebhooks('y', at(9), at(20), 10), [
          b2,
          { ...c1, attempts: 1, nextAt: at(5) },
        ]);
        assert.deepEqual(await store.claimWebhooks('y', at(11), at(20), 10), []);
        assert.deepEqual(await store.claimWebhooks('y', at(12), at(20), 10), [
          { ...a1, attempts: 1, nextAt: at(12) },
        ]);

        // A claim whose end has passed (its process died) is free again, to anyone.
        assert.deepEqual(await store.claimWebhooks('z', at(20), at(30), 10), []);
        assert.deepEqual(await store.claimWebhooks('z', at(20.01), at(30), 10), [
          b2,
          { ...c1, attempts: 1, nextAt: at(5) },
          { ...a1, attempts: 1, nextAt: at(12) },
        ]);
        await store.removeWebhook(c1.id);
        await store.removeWebhook(a1.id);
        await store.removeWebhook(b2.id);
        assert.deepEqual(await store.claimWebhooks('z', at(20.01), at(30), 10), [a2, c2]);
        await store.removeWebhook(randomUUID());
        await store.retryWebhook(randomUUID(), 3, at(1));
      } finally {
        await own.close();
      }
    });

    it('gives two claimers at once disjoint deliveries, one per job', async () => {
      // One store for every round, so that its pool holds two connections and the calls overlap.
      const own = await open();
      try {
        const store = own.store.jobs;
        for (let round = 0; round < 8; round++) {
          const start = round * 10;
          const heads: string[] = [];
          for (let j = 0; j < 12; j++) {
            const job = await created({ expiresAt: at(start + 5) }, store);
            for (let n = 0; n < 3; n++) {
              const d = delivery(job.id, n, at(start));
              await store.queueWebhook(d);
              if (n === 0) heads.push(d.id);
            }
          }
          const [x, y] = await Promise.all([
            store.claimWebhooks('x', at(start + 1), at(start + 2), 8),
            store.claimWebhooks('y', at(start + 1), at(start + 2), 8),
          ]);
          const taken = [...x, ...y].map((d) => d.id);
          assert.equal(new Set(taken).size, taken.length, 'a delivery was claimed twice');
          assert.deepEqual(taken.sort(), [...heads].sort());
          // A third claimer finds nothing: every job's first event is claimed.
          assert.deepEqual(await store.claimWebhooks('z', at(start + 1), at(start + 2), 10), []);
          // The round's jobs go, with their deliveries.
          assert.equal(await store.purgeJobs(at(start + 6)), 12);
        }
      } finally {
        await own.close();
      }
    });
  });
}
