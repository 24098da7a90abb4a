-- Scrape answers kept for maxAge (SqliteStore's fourth migration). One row per team, URL and
-- options (the key hashes them); the body is the answer's JSON, compressed.

CREATE TABLE scrape_cache (
  key text PRIMARY KEY,
  team text NOT NULL,
  url text NOT NULL,
  body bytea NOT NULL,
  bytes integer NOT NULL,
  cached_at timestamptz NOT NULL,
  -- The retention bound, or sooner for an answer whose screenshot URLs expire (24 hours).
  expires_at timestamptz NOT NULL
);
-- Eviction keeps the newest entries up to the size cap: read in cached_at order with their sizes.
CREATE INDEX scrape_cache_age ON scrape_cache (cached_at, bytes);
CREATE INDEX scrape_cache_expires ON scrape_cache (expires_at);
