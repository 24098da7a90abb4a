-- Crawls and batch scrapes (SqliteStore's sixth migration): the job, every page it has seen (once
-- per key), its documents in completion order and its webhook events not yet delivered. Every
-- per-job read goes through an index that starts with job_id, so that a crawl of 100,000 pages
-- costs no other job anything; a job's rows go with it (ON DELETE CASCADE).

CREATE TABLE jobs (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('crawl', 'batch')),
  team text NOT NULL,
  key_id text NOT NULL,
  url text,
  options text NOT NULL,
  webhook text,
  status text NOT NULL CHECK (status IN ('scraping', 'completed', 'cancelled', 'failed')),
  zero_data_retention boolean NOT NULL,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  expires_at timestamptz NOT NULL,
  kickoff_done boolean NOT NULL DEFAULT false,
  robots text,
  error text,
  -- The process that drives the job, and until when (leaseJob takes it only once it has ended).
  lease_owner text,
  lease_until timestamptz
);
-- A team's running jobs, oldest first.
CREATE INDEX jobs_team ON jobs (team, kind, status, created_at);
-- A driver looking for a job to lease: the running ones, oldest first.
CREATE INDEX jobs_status ON jobs (status, created_at);
CREATE INDEX jobs_expires ON jobs (expires_at);

CREATE TABLE job_pages (
  -- The frontier's order, and the order pages are claimed in.
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  job_id text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  key text NOT NULL,
  url text NOT NULL,
  depth integer NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'active', 'done', 'failed', 'blocked', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  credits integer NOT NULL DEFAULT 0,
  -- When it was done or failed; a failed page's error.
  finished_at timestamptz,
  error_code text,
  error_message text,
  error_hidden boolean NOT NULL DEFAULT false,
  -- One row per key per job, whatever its state: a URL once seen is never queued again.
  UNIQUE (job_id, key)
);
-- Claiming (queued, by seq), counting against the limit, the errors and robotsBlocked.
CREATE INDEX job_pages_state ON job_pages (job_id, state, seq);

CREATE TABLE job_documents (
  -- Completion order: a status page reads a job's documents as a range of it.
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  page_id text NOT NULL,
  body bytea NOT NULL
);
CREATE INDEX job_documents_job ON job_documents (job_id, seq);

CREATE TABLE webhook_deliveries (
  -- Deliveries due at the same time go in the order they were queued.
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  job_id text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  url text NOT NULL,
  headers text NOT NULL,
  body text NOT NULL,
  attempts integer NOT NULL,
  next_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at, seq);
