-- Docker-image submissions: the image a submission runs (pinned), where an uploaded archive is
-- kept, which jobs need a worker with a Docker engine, and which workers have one.

-- `image` is what runs: an image id (`sha256:<64 hex>`) for an uploaded archive, or a registry
-- reference pinned by digest (`name@sha256:<64 hex>`). `image_archive` is the uploaded archive's
-- key in trace storage and `image_archive_sha256` the digest of its bytes.
ALTER TABLE submissions ADD COLUMN image TEXT;
ALTER TABLE submissions ADD COLUMN image_archive TEXT;
ALTER TABLE submissions ADD COLUMN image_archive_sha256 TEXT;
ALTER TABLE submissions ADD CONSTRAINT submissions_kind_target CHECK (
    (kind = 'endpoint' AND endpoint_url IS NOT NULL AND image IS NULL)
    OR (kind = 'docker' AND image IS NOT NULL AND endpoint_url IS NULL));

-- Copied from the submission when its jobs are queued, so the claim stays on the partial index
-- and a worker without Docker never takes a job it cannot run.
ALTER TABLE jobs ADD COLUMN needs_docker BOOLEAN NOT NULL DEFAULT FALSE;

-- Workers say, at start and on every housekeeping round, whether they can run images; the API
-- refuses `docker` submissions when no such worker has been seen lately.
CREATE TABLE workers (
    id          TEXT PRIMARY KEY,
    docker      BOOLEAN NOT NULL,
    seen_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX workers_docker ON workers (seen_at) WHERE docker;
