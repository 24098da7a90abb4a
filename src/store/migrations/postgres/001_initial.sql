-- The embedded store's schema (SqliteStore's two migrations), in PostgreSQL's types.
-- Times are timestamptz: ISO strings in, the same ISO strings out.

CREATE TABLE api_keys (
  -- Insertion order, so that keys created in the same millisecond list as SQLite lists them.
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  id text PRIMARY KEY,
  team text NOT NULL,
  label text,
  prefix text NOT NULL,
  hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_keys_team ON api_keys (team);

CREATE TABLE audit_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  team text NOT NULL,
  key_id text NOT NULL,
  request_id text NOT NULL,
  action text NOT NULL,
  status integer NOT NULL,
  username text,
  filename text,
  format text,
  bytes bigint,
  duration_ms integer NOT NULL,
  zero_data_retention boolean NOT NULL
);
CREATE INDEX audit_events_team ON audit_events (team, seq);

CREATE TABLE sessions (
  id text PRIMARY KEY,
  team text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'destroyed')),
  created_at timestamptz NOT NULL,
  last_activity timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ttl_s integer NOT NULL,
  activity_ttl_s integer NOT NULL,
  stream_web_view boolean NOT NULL,
  profile_name text,
  profile_writer boolean NOT NULL,
  node_id text NOT NULL,
  pid integer,
  closed_at timestamptz,
  close_reason text,
  cdp_token_hash text NOT NULL,
  view_token_hash text NOT NULL,
  control_token_hash text NOT NULL
);
CREATE INDEX sessions_team ON sessions (team, created_at);
CREATE INDEX sessions_active ON sessions (status, node_id);
-- A profile's one writer: SQLite's single writer makes its check-then-insert atomic; here two
-- nodes inserting at once under READ COMMITTED would both pass such a check, a unique index cannot.
CREATE UNIQUE INDEX sessions_profile_writer ON sessions (team, profile_name)
  WHERE profile_writer AND status = 'active';
