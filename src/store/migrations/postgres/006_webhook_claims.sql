-- Webhook deliveries claimed by one process at a time (claimWebhooks; SqliteStore's seventh
-- migration): the process that claimed one, and until when; a claim past its end is free again.
-- A job's deliveries go one at a time, the oldest first: the index finds whether one is the
-- oldest of its job (and still serves the cascade from jobs).

ALTER TABLE webhook_deliveries ADD COLUMN lease_owner text, ADD COLUMN lease_until timestamptz;
DROP INDEX webhook_deliveries_job;
CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id, seq);
