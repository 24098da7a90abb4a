-- The Markdown change tracking compares a page with (SqliteStore's ninth migration): the team's
-- last tracked scrape of a URL under a tag ('' for none), brotli-compressed, replaced by each
-- tracked scrape and deleted once older than the retention.

CREATE TABLE change_baselines (
  team text NOT NULL,
  url text NOT NULL,
  tag text NOT NULL,
  markdown bytea NOT NULL,
  scraped_at timestamptz NOT NULL,
  PRIMARY KEY (team, url, tag)
);
CREATE INDEX change_baselines_age ON change_baselines (scraped_at);
