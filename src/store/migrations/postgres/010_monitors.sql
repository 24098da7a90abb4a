-- Monitors, their checks and each check's pages. SqliteStore applies this file as it is (its
-- eleventh migration): times are ISO 8601 text in UTC and flags integers, as SQLite keeps them,
-- so that one text makes both stores' tables and one implementation (src/store/sql-monitors.ts)
-- reads both; such text sorts as the times do.
CREATE TABLE monitors (
  id text PRIMARY KEY,
  team text NOT NULL,
  key_id text NOT NULL,
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'paused')),
  schedule text NOT NULL,
  targets text NOT NULL,
  webhook text,
  retention_days integer NOT NULL,
  goal text,
  judge_enabled integer NOT NULL,
  base text NOT NULL,
  next_run_at text,
  last_run_at text,
  current_check_id text,
  last_check_summary text,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX monitors_team ON monitors (team, created_at);
CREATE INDEX monitors_due ON monitors (status, next_run_at);
CREATE TABLE monitor_checks (
  id text PRIMARY KEY,
  monitor_id text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  team text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'finishing', 'completed', 'failed', 'partial', 'skipped_no_credits')),
  trigger text NOT NULL,
  scheduled_for text,
  started_at text NOT NULL,
  finished_at text,
  actual_credits integer,
  summary text NOT NULL,
  target_results text NOT NULL,
  notification_status text,
  error text,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX monitor_checks_monitor ON monitor_checks (monitor_id, created_at);
CREATE INDEX monitor_checks_running ON monitor_checks (status, created_at);
CREATE TABLE monitor_check_pages (
  id text PRIMARY KEY,
  check_id text NOT NULL REFERENCES monitor_checks (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  target_id text NOT NULL,
  url text NOT NULL,
  status text NOT NULL,
  status_code integer,
  error text,
  diff text,
  scrape_id text,
  created_at text NOT NULL
);
CREATE INDEX monitor_check_pages_check ON monitor_check_pages (check_id, seq);
