-- A Docker image may name a model too (docs/protocol.md, section 6): the vendor's own agent in
-- its image, calling the vendor's own model through the worker's relay, which adds the sealed
-- key. The columns are the standard track's (0015); only the kind's rule widens.
ALTER TABLE submissions DROP CONSTRAINT submissions_kind_target;
ALTER TABLE submissions ADD CONSTRAINT submissions_kind_target CHECK (
    (kind = 'endpoint' AND endpoint_url IS NOT NULL AND image IS NULL AND model_base_url IS NULL)
    OR (kind = 'docker' AND image IS NOT NULL AND endpoint_url IS NULL
        AND (model_base_url IS NULL) = (model_id IS NULL))
    OR (kind = 'model' AND model_base_url IS NOT NULL AND model_id IS NOT NULL
        AND endpoint_url IS NULL AND image IS NULL));
