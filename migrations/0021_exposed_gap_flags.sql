-- The anomaly analysis raises `exposed_gap` flags (a submission doing better on the tasks its
-- vendor had been sent before), but the table's CHECK never listed that kind: storing one
-- failed the whole analysis, and the set kept none of its flags. Typing the kinds
-- (`AnomalyKind`) found it.
ALTER TABLE anomaly_flags DROP CONSTRAINT anomaly_flags_kind_check;
ALTER TABLE anomaly_flags ADD CONSTRAINT anomaly_flags_kind_check
    CHECK (kind IN ('score_jump', 'kept_fresh_gap', 'exposed_gap', 'task_spike'));
