-- The leaderboard reads each entry's flags by submission (`leaderboard::entries`); without an
-- index that is a scan of every flag ever raised, once per entry, as flags accumulate over
-- the months (found by `cargo bench -p mcpbench-api --bench board`, which prices sequential
-- scans out to see which statements have no index to use).
CREATE INDEX anomaly_flags_submission ON anomaly_flags (submission_id);
