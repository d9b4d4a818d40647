-- Private tasks sent to hosted endpoints. A hosted endpoint receives every goal it runs, so a
-- task of a private set posted to one is exposed to that vendor from then on, whatever the
-- board shows; the first time is kept. Sandboxed images are never recorded: they cannot send a
-- task home. The next rotation replaces exposed tasks first.
CREATE TABLE exposures (
    set_id        TEXT NOT NULL REFERENCES task_sets (id) ON DELETE CASCADE,
    task_id       TEXT NOT NULL,
    vendor_id     BIGINT NOT NULL REFERENCES vendors (id),
    submission_id UUID NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    first_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (set_id, task_id, vendor_id)
);
