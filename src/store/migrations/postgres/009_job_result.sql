-- An extract's merged answer, kept with its job (SqliteStore's tenth migration): an extract is a
-- batch whose pages' answers are merged into one value when it ends.
ALTER TABLE jobs ADD COLUMN result text;
