-- Per-team settings and credit balances (SqliteStore's third migration). A null setting is the
-- server's default from its environment; a null balance is unlimited.

CREATE TABLE teams (
  team text PRIMARY KEY,
  concurrency integer CHECK (concurrency >= 1),
  rate_per_minute integer CHECK (rate_per_minute >= 0),
  key_rate_per_minute integer CHECK (key_rate_per_minute >= 0),
  audit boolean NOT NULL DEFAULT true,
  zdr text NOT NULL DEFAULT 'allowed' CHECK (zdr IN ('allowed', 'forced', 'forbidden')),
  -- Never below zero: a reservation takes credits only WHERE credits >= n.
  credits bigint CHECK (credits >= 0)
);

-- `quire audit export --since` reads from a time onwards.
CREATE INDEX audit_events_at ON audit_events (at);
