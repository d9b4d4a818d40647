-- One public gateway address for every worker: a run's id carries its worker's route key
-- (`run_<route>_<random>`), and the routing layer (crates/service/route) finds that worker's
-- gateway here. A worker draws a new route each time it starts, so a route never changes its
-- gateway; UNIQUE makes the lookup an index scan.
ALTER TABLE workers
    ADD COLUMN route TEXT UNIQUE CHECK (route ~ '^[0-9a-f]{8}$'),
    ADD COLUMN gateway TEXT CHECK (length(gateway) BETWEEN 1 AND 512);
