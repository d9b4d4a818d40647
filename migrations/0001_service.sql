-- The hosted service: vendors and their keys, task sets, submissions, the job queue, runs,
-- and the leaderboard aggregate. Never edited once landed; later changes get new files.

CREATE TABLE vendors (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
    is_admin    BOOLEAN NOT NULL DEFAULT FALSE,
    -- Reference agents (oracle, null, random) are listed but marked as such.
    is_reference BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- API keys are stored only as SHA-256 hashes; the prefix finds the row without a scan.
CREATE TABLE api_keys (
    id          BIGSERIAL PRIMARY KEY,
    vendor_id   BIGINT NOT NULL REFERENCES vendors (id) ON DELETE CASCADE,
    prefix      TEXT NOT NULL UNIQUE,
    hash        BYTEA NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at  TIMESTAMPTZ
);

CREATE TABLE task_sets (
    id          TEXT PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9-]{1,40}$'),
    state       TEXT NOT NULL CHECK (state IN ('draft', 'active', 'retired')),
    -- Public sets (the dev set, revealed historical sets) are browsable; private ones never.
    public      BOOLEAN NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE set_tasks (
    set_id      TEXT NOT NULL REFERENCES task_sets (id) ON DELETE CASCADE,
    task_id     TEXT NOT NULL,
    position    INTEGER NOT NULL,
    task        JSONB NOT NULL,
    PRIMARY KEY (set_id, task_id)
);

CREATE TABLE submissions (
    id          UUID PRIMARY KEY,
    vendor_id   BIGINT NOT NULL REFERENCES vendors (id),
    set_id      TEXT NOT NULL REFERENCES task_sets (id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    model       TEXT NOT NULL CHECK (length(model) BETWEEN 1 AND 100),
    kind        TEXT NOT NULL CHECK (kind IN ('endpoint', 'docker')),
    endpoint_url TEXT,
    -- The key requests to the agent are signed with (shown to the owner once).
    signing_secret BYTEA NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
    tasks_total INTEGER NOT NULL,
    tasks_done  INTEGER NOT NULL DEFAULT 0,
    -- Why the submission failed, in words a vendor can act on.
    error       TEXT,
    scores      JSONB,
    published   BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ
);
CREATE INDEX submissions_vendor ON submissions (vendor_id, created_at DESC);

-- One job per (submission, task, trial). A claim bumps `epoch`; completing or heart-beating
-- with an older epoch changes nothing (fencing against a worker that lost its lease).
CREATE TABLE jobs (
    id          BIGSERIAL PRIMARY KEY,
    submission_id UUID NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    task_id     TEXT NOT NULL,
    trial       INTEGER NOT NULL DEFAULT 0,
    state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 3,
    epoch       BIGINT NOT NULL DEFAULT 0,
    worker      TEXT,
    lease_until TIMESTAMPTZ,
    last_error  TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (submission_id, task_id, trial)
);
CREATE INDEX jobs_queued ON jobs (id) WHERE state = 'queued';
CREATE INDEX jobs_leases ON jobs (lease_until) WHERE state = 'running';
-- "Is anything of this submission left to run?" in constant time.
CREATE INDEX jobs_open ON jobs (submission_id) WHERE state IN ('queued', 'running');

-- Results, exactly once per (submission, task, trial).
CREATE TABLE runs (
    id          UUID PRIMARY KEY,
    job_id      BIGINT NOT NULL UNIQUE REFERENCES jobs (id) ON DELETE CASCADE,
    submission_id UUID NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    task_id     TEXT NOT NULL,
    trial       INTEGER NOT NULL,
    passed      BOOLEAN NOT NULL,
    reason      TEXT NOT NULL,
    detail      TEXT,
    tool_calls  INTEGER NOT NULL,
    hallucinated_calls INTEGER NOT NULL,
    invalid_calls INTEGER NOT NULL,
    errors_observed INTEGER NOT NULL,
    duration_ms BIGINT NOT NULL,
    trace_key   TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (submission_id, task_id, trial)
);

-- The leaderboard, kept current when submissions finish rather than computed per request.
CREATE TABLE leaderboard (
    submission_id UUID PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    set_id      TEXT NOT NULL,
    vendor      TEXT NOT NULL,
    model       TEXT NOT NULL,
    name        TEXT NOT NULL,
    is_reference BOOLEAN NOT NULL,
    tasks       INTEGER NOT NULL,
    passed      INTEGER NOT NULL,
    success_rate DOUBLE PRECISION NOT NULL,
    ci_low      DOUBLE PRECISION NOT NULL,
    ci_high     DOUBLE PRECISION NOT NULL,
    efficiency  DOUBLE PRECISION,
    hallucinated_tool_rate DOUBLE PRECISION,
    recovery_rate DOUBLE PRECISION,
    -- Breakdowns for the server and category filters: {"filesystem": {...metrics}, ...}.
    by_server   JSONB NOT NULL,
    by_category JSONB NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX leaderboard_rank ON leaderboard (set_id, success_rate DESC, ci_low DESC);
