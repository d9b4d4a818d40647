-- A submission may name a URL told when it ends (completed or failed): a POST signed like the
-- requests to agents (Standard Webhooks, with the submission's signing secret). A worker sends
-- it once it is due, and again after a growing wait when it fails, up to five attempts; what
-- happened stays on the submission for its vendor to read.
ALTER TABLE submissions
    ADD COLUMN webhook_url text CHECK (length(webhook_url) <= 2048),
    ADD COLUMN webhook_due_at timestamptz,
    ADD COLUMN webhook_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN webhook_delivered_at timestamptz,
    ADD COLUMN webhook_error text;

CREATE INDEX submissions_webhook_due ON submissions (webhook_due_at)
    WHERE webhook_due_at IS NOT NULL;
