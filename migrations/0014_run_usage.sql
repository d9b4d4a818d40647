-- What an agent said a run used (docs/protocol.md, section 3): tokens in and out and its price
-- in US dollars, each NULL when not reported (unknown, never zero). Runs recorded before this
-- migration have none.
ALTER TABLE runs ADD COLUMN input_tokens BIGINT,
                 ADD COLUMN output_tokens BIGINT,
                 ADD COLUMN cost_usd DOUBLE PRECISION;
ALTER TABLE runs ADD CONSTRAINT runs_usage_not_negative CHECK (
    input_tokens >= 0 AND output_tokens >= 0 AND cost_usd >= 0);

-- The board's share of it: cost per task, tokens per task, the runs each rests on, and the
-- median run time (mcpbench_scoring::Spend), stored whole as JSON like `process`. Rows scored
-- before this migration have '{}' (every figure unknown) until `mcpbench admin rescore`.
ALTER TABLE leaderboard ADD COLUMN spend JSONB NOT NULL DEFAULT '{}'::jsonb;
