import { limits } from '../limits.ts';
import type { Account } from '../quota/usage.ts';
import { uuidv7 } from '../sessions/tokens.ts';
import type { StoredOptions } from './job-runner.ts';
import type { JobKind, JobStore } from './job-store.ts';

export interface NewJobSpec {
  kind: JobKind;
  url: string | null;
  options: StoredOptions;
  webhook: unknown;
  zeroDataRetention: boolean;
}

/** A new job in the store, status scraping, readable for limits.jobRetentionMs; its id (UUIDv7). */
export async function newJob(
  jobs: JobStore,
  owner: Account,
  job: NewJobSpec,
  now = Date.now(),
): Promise<string> {
  const id = uuidv7(now);
  const iso = (ms: number) => new Date(ms).toISOString();
  await jobs.createJob({
    id,
    kind: job.kind,
    team: owner.team,
    keyId: owner.keyId,
    url: job.url,
    options: JSON.stringify(job.options),
    webhook: job.webhook === undefined ? null : JSON.stringify(job.webhook),
    status: 'scraping',
    zeroDataRetention: job.zeroDataRetention,
    createdAt: iso(now),
    expiresAt: iso(now + limits.jobRetentionMs),
    robots: null,
  });
  return id;
}
