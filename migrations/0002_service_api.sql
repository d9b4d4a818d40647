-- The API and the worker: trials per submission, the per-vendor quota lookup, and the task
-- metadata scores need, copied out of the task JSON once when a set is stored.

ALTER TABLE submissions ADD COLUMN trials INTEGER NOT NULL DEFAULT 1 CHECK (trials BETWEEN 1 AND 10);
-- Jobs of the submission still queued or running, kept by the queue: "was that the last job?"
-- in constant time rather than a scan past every finished job (quadratic over a submission).
ALTER TABLE submissions ADD COLUMN jobs_open INTEGER NOT NULL DEFAULT 0;
UPDATE submissions s SET jobs_open = (SELECT count(*) FROM jobs j WHERE j.submission_id = s.id
                                      AND j.state IN ('queued', 'running'));
-- "How many submissions has this vendor made to this set this month?" for the quota.
CREATE INDEX submissions_quota ON submissions (vendor_id, set_id, created_at);

ALTER TABLE set_tasks ADD COLUMN server TEXT NOT NULL DEFAULT '';
ALTER TABLE set_tasks ADD COLUMN category TEXT NOT NULL DEFAULT '';
ALTER TABLE set_tasks ADD COLUMN difficulty TEXT NOT NULL DEFAULT '';
ALTER TABLE set_tasks ADD COLUMN max_steps INTEGER NOT NULL DEFAULT 0;
UPDATE set_tasks SET server = COALESCE(task->>'server', ''),
                     category = COALESCE(task->>'category', ''),
                     difficulty = COALESCE(task->>'difficulty', ''),
                     max_steps = COALESCE((task->>'max_steps')::int, 0);

CREATE INDEX jobs_failed ON jobs (submission_id) WHERE state = 'failed';
-- Submissions still to finish, for the sweep that finishes any whose last completion raced.
CREATE INDEX submissions_live ON submissions (created_at) WHERE status IN ('queued', 'running');
