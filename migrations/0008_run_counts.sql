-- A run's counts are stored whole (mcpbench_scoring::RunCounts): whether a call came after the
-- step budget was spent joins the four counters. Counts are never negative. Runs recorded
-- before this migration were over budget exactly when their reason says so.
ALTER TABLE runs ADD COLUMN budget_exceeded BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE runs SET budget_exceeded = TRUE WHERE reason = 'budget_exceeded';
ALTER TABLE runs ADD CONSTRAINT runs_counts_not_negative CHECK (
    tool_calls >= 0 AND hallucinated_calls >= 0 AND invalid_calls >= 0 AND errors_observed >= 0);
