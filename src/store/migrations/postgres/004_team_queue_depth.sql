-- How many of a team's requests may wait for its concurrency slots at once (SqliteStore's fifth
-- migration); null: no limit, as before this column, and 0: none may wait.

ALTER TABLE teams ADD COLUMN queue_depth integer CHECK (queue_depth >= 0);
