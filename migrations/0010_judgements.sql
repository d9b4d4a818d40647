-- The optional rubric judge's reading of a run (mcpbench_scoring::Judgement; docs/metrics.md,
-- "The rubric judge"), kept in a table of its own: nothing that scores or ranks reads it.
-- Present only where a deployment set a judge endpoint; a rejudge replaces the row.
CREATE TABLE judgements (
    run_id     UUID PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    submission_id UUID NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    model      TEXT NOT NULL,
    score      DOUBLE PRECISION NOT NULL,
    judgement  JSONB NOT NULL,
    judged_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX judgements_by_submission ON judgements (submission_id);
