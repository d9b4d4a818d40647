-- A submission may run its set at a level of extra tools (docs/metrics.md, "Accuracy against
-- distractor count"): `0`, `5`, ... or `all`; null runs the set as published. A submission
-- at a level is scored like any other and never enters the leaderboard (its tasks are not
-- the set's as published, so its numbers compare only with other runs at that level).
ALTER TABLE submissions ADD COLUMN distractors TEXT;
