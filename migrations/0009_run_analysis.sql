-- What a run's trace shows beyond its verdict (mcpbench_scoring::RunAnalysis: claims held,
-- how its calls fared, the closest reference, the failure group and its evidence), stored
-- whole as JSON. Runs recorded before this migration have none; `mcpbench admin rescore`
-- computes it from their stored traces.
ALTER TABLE runs ADD COLUMN analysis JSONB;

-- The board's share of it: the submission's process metrics (coverage, call quality,
-- closeness to the references, distractors, failure groups), overall; the breakdowns carry
-- theirs in `by_server` and `by_category`.
ALTER TABLE leaderboard ADD COLUMN process JSONB NOT NULL DEFAULT '{}'::jsonb;

-- The success rate's interval with runs of one template (and trials of one task) counted as
-- related (docs/metrics.md, "Related runs"); what the board's rank ranges are drawn from. Null
-- for rows scored before it existed, and when the runs come from fewer than two templates.
ALTER TABLE leaderboard ADD COLUMN ci_clustered_low DOUBLE PRECISION,
                        ADD COLUMN ci_clustered_high DOUBLE PRECISION;
