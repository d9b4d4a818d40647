-- Baselines (docs/metrics.md, "Baselines"): what the service itself submits on every set when
-- it goes live. Its reference agents run inside the worker (nothing they are sent leaves the
-- service): submissions of kind 'baseline' naming the agent; or, on a private set of a
-- deployment that names a baseline image, in the sandbox: kind 'docker' naming the agent (never
-- the oracle, which needs the references). Models an operator names run on the standard track:
-- submissions of kind 'model' named 'llm:<model>'. A set holds at most one
-- baseline of each name that is not failed or cancelled, so queueing them twice (two workers,
-- a restart) queues them once.
ALTER TABLE submissions ADD COLUMN baseline TEXT
    CHECK (baseline IN ('oracle', 'null', 'random', 'heuristic', 'script')
           OR (baseline LIKE 'llm:_%' AND length(baseline) <= 204));
ALTER TABLE submissions DROP CONSTRAINT submissions_kind_check;
ALTER TABLE submissions ADD CONSTRAINT submissions_kind_check
    CHECK (kind IN ('endpoint', 'docker', 'model', 'baseline'));
ALTER TABLE submissions DROP CONSTRAINT submissions_kind_target;
ALTER TABLE submissions ADD CONSTRAINT submissions_kind_target CHECK (
    (kind = 'endpoint' AND endpoint_url IS NOT NULL AND image IS NULL AND model_base_url IS NULL)
    OR (kind = 'docker' AND image IS NOT NULL AND endpoint_url IS NULL
        AND (model_base_url IS NULL) = (model_id IS NULL))
    OR (kind = 'model' AND model_base_url IS NOT NULL AND model_id IS NOT NULL
        AND endpoint_url IS NULL AND image IS NULL)
    OR (kind = 'baseline' AND endpoint_url IS NULL AND image IS NULL AND model_base_url IS NULL));
ALTER TABLE submissions ADD CONSTRAINT submissions_baseline_kind CHECK (
    CASE kind WHEN 'baseline' THEN baseline IS NOT NULL AND baseline NOT LIKE 'llm:%'
              WHEN 'model' THEN baseline IS NULL OR baseline LIKE 'llm:%'
              WHEN 'docker' THEN baseline IS NULL
                                 OR (baseline NOT LIKE 'llm:%' AND baseline <> 'oracle')
              ELSE baseline IS NULL END);
CREATE UNIQUE INDEX submissions_one_baseline ON submissions (set_id, baseline)
    WHERE baseline IS NOT NULL AND status NOT IN ('failed', 'cancelled');
