-- Fair shares between vendors: a worker claims the oldest queued job of the vendor with the
-- fewest running jobs, and no vendor runs more than a cap at once, so one vendor's flood (or an
-- agent that holds every run for its whole budget) cannot starve another's submission. The
-- vendor is copied onto each job, as `needs_docker` is, so the claim reads partial indexes on
-- `jobs` alone.
ALTER TABLE jobs ADD COLUMN vendor_id BIGINT REFERENCES vendors (id);
UPDATE jobs j SET vendor_id = s.vendor_id FROM submissions s WHERE s.id = j.submission_id;
ALTER TABLE jobs ALTER COLUMN vendor_id SET NOT NULL;

CREATE INDEX jobs_queued_by_vendor ON jobs (vendor_id, id) WHERE state = 'queued';
CREATE INDEX jobs_running_by_vendor ON jobs (vendor_id) WHERE state = 'running';
