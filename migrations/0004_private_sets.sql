-- Private sets (issue 6): the lifecycle's dates, the commitment signed at go-live, the reveal at
-- retirement, rotation, tasks sealed at rest, and anomaly flags.

ALTER TABLE task_sets
    ADD COLUMN activated_at TIMESTAMPTZ,
    ADD COLUMN retired_at TIMESTAMPTZ,
    -- The signed checkpoint (docs/attestations.md), public from go-live on.
    ADD COLUMN checkpoint TEXT,
    -- The verifier key of the key that signed it (keys can be replaced; old reveals keep theirs).
    ADD COLUMN signing_key TEXT,
    -- `Historical-YYYY-MM`, given when a committed set retires and opens.
    ADD COLUMN tag TEXT UNIQUE,
    -- The set this one was rotated from, the share replaced, and the rotation's secret seed
    -- (which tasks leave, and the fresh ones): sealed like the tasks while the set is private,
    -- in clear once it retires, so anyone can redo the rotation from the revealed sets.
    ADD COLUMN rotated_from TEXT REFERENCES task_sets (id),
    ADD COLUMN rotation_replace DOUBLE PRECISION,
    ADD COLUMN rotation_seed BYTEA,
    ADD COLUMN rotation_key_id TEXT,
    ADD COLUMN rotation_seed_revealed BYTEA CHECK (length(rotation_seed_revealed) = 8);

-- A private task is kept only sealed (AES-256-GCM; `key_id` names the key of
-- MCPBENCH_TASK_KEYS), its salt inside; the JSON and the salt are written in clear when the set
-- retires. `commitment` is public from go-live. `first_set` is the set a task first appeared in:
-- a task kept by a rotation keeps it, which is how kept and fresh tasks are told apart.
ALTER TABLE set_tasks
    ALTER COLUMN task DROP NOT NULL,
    ADD COLUMN sealed BYTEA,
    ADD COLUMN key_id TEXT,
    ADD COLUMN salt BYTEA CHECK (length(salt) = 32),
    ADD COLUMN commitment BYTEA CHECK (length(commitment) = 32),
    ADD COLUMN first_set TEXT;
UPDATE set_tasks SET first_set = set_id;
ALTER TABLE set_tasks
    ALTER COLUMN first_set SET NOT NULL,
    ADD CONSTRAINT set_tasks_one_form CHECK ((task IS NULL) <> (sealed IS NULL)),
    ADD CONSTRAINT set_tasks_sealed_key CHECK ((sealed IS NULL) = (key_id IS NULL));
ALTER TABLE set_tasks ADD CONSTRAINT set_tasks_position UNIQUE (set_id, position)
    DEFERRABLE INITIALLY DEFERRED;

-- What the anomaly detector found when a set was analysed; admins list them, and the
-- leaderboard shows a badge on the submissions flagged.
CREATE TABLE anomaly_flags (
    id            BIGSERIAL PRIMARY KEY,
    set_id        TEXT NOT NULL REFERENCES task_sets (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('score_jump', 'kept_fresh_gap', 'task_spike')),
    submission_id UUID REFERENCES submissions (id) ON DELETE CASCADE,
    task_id       TEXT,
    -- The statistic in words and numbers (no task content: a task id at most).
    summary       TEXT NOT NULL,
    detail        JSONB NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((kind = 'task_spike') = (task_id IS NOT NULL)),
    CHECK ((kind = 'task_spike') = (submission_id IS NULL))
);
CREATE UNIQUE INDEX anomaly_flags_once
    ON anomaly_flags (set_id, kind, COALESCE(submission_id::text, ''), COALESCE(task_id, ''));
