-- What each key of a team used per calendar month (SqliteStore's eighth migration): credits
-- charged and model tokens spent, added to as they are, for the team usage endpoints.

CREATE TABLE usage_months (
  team text NOT NULL,
  key_id text NOT NULL,
  -- The month's first day, UTC, as 'YYYY-MM'.
  month text NOT NULL,
  credits bigint NOT NULL DEFAULT 0,
  tokens bigint NOT NULL DEFAULT 0,
  -- When the last charge or spend was added: the team's most recent success.
  last_at timestamptz NOT NULL,
  PRIMARY KEY (team, month, key_id)
);
