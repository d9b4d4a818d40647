-- What a run's trace shows beyond its verdict (mcpbench_scoring::RunAnalysis: claims held,
-- how its calls fared, the closest reference, the failure group and its evidence), stored
-- whole as JSON. Runs recorded before this migration have none; `mcpbench admin rescore`
-- computes it from their stored traces.
ALTER TABLE runs ADD COLUMN analysis JSONB;

-- The board's share of it: the submission's process metrics (coverage, call quality,
-- closeness to the references, distractors, failure groups), overall; the breakdowns carry
-- theirs in `by_server` and `by_category`.
ALTER TABLE leaderboard ADD COLUMN process JSONB NOT NULL DEFAULT '{}'::jsonb;
