-- The security category (docs/metrics.md, "Agents under attack"). A task whose world carries
-- an attack keeps where it stood in its set row (mcpbench_scoring::AttackSite: its kind, the
-- server that carried it, its twin's id), in clear beside the task's server and category; a
-- run of it keeps whether the attacker's goal was met. Both are NULL for every other task and
-- run, and for runs recorded before this migration.
ALTER TABLE set_tasks ADD COLUMN attack JSONB;
ALTER TABLE runs ADD COLUMN attack_met BOOLEAN;

-- A board row's security figures (mcpbench_scoring::Security: utility, utility under attack,
-- attack success rate, by kind and by server), shown beside its rank and never part of it;
-- NULL for a submission whose set holds no task under attack.
ALTER TABLE leaderboard ADD COLUMN security JSONB;
