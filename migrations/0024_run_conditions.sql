-- The conditions each run was measured under (docs/metrics.md, "Run conditions"): the harness
-- build, the time budget, the request cap, the MCP revisions offered and spoken, the sandbox's
-- limits (mcpbench_scoring::RunConditions). Runs recorded before this migration have none.
ALTER TABLE runs ADD COLUMN conditions JSONB;

-- Whether the service counted the run's usage itself (its own agent drove the model, on the
-- standard track) rather than taking the agent's word for it.
ALTER TABLE runs ADD COLUMN usage_measured BOOLEAN NOT NULL DEFAULT FALSE;

-- A board row's conditions: its runs' together (mcpbench_scoring::Conditions), written with
-- its figures; NULL for rows scored before this migration until `mcpbench admin rescore`.
ALTER TABLE leaderboard ADD COLUMN conditions JSONB;
