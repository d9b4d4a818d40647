-- The standard track (docs/protocol.md, section 9): a vendor submits a model, an
-- OpenAI-compatible chat-completions endpoint and the model's name there, and the service runs
-- its own `llm` agent against it. The key is sealed at rest with the task keyring (AES-256-GCM,
-- bound to the vendor and the base URL, so a sealed key moved to another row does not open) and
-- is never shown again; `model_key_id` names the keyring key that sealed it. Prices, when
-- given, are US dollars per million tokens (the runs then report their cost).
ALTER TABLE submissions DROP CONSTRAINT submissions_kind_check;
ALTER TABLE submissions ADD CONSTRAINT submissions_kind_check
    CHECK (kind IN ('endpoint', 'docker', 'model'));
ALTER TABLE submissions
    ADD COLUMN model_base_url TEXT CHECK (length(model_base_url) BETWEEN 1 AND 2048),
    ADD COLUMN model_id TEXT CHECK (length(model_id) BETWEEN 1 AND 200),
    ADD COLUMN model_key_id TEXT,
    ADD COLUMN model_key BYTEA,
    ADD COLUMN price_input DOUBLE PRECISION CHECK (price_input >= 0),
    ADD COLUMN price_output DOUBLE PRECISION CHECK (price_output >= 0),
    ADD CONSTRAINT submissions_model_key_whole CHECK ((model_key IS NULL) = (model_key_id IS NULL)),
    ADD CONSTRAINT submissions_prices_whole CHECK ((price_input IS NULL) = (price_output IS NULL));
ALTER TABLE submissions DROP CONSTRAINT submissions_kind_target;
ALTER TABLE submissions ADD CONSTRAINT submissions_kind_target CHECK (
    (kind = 'endpoint' AND endpoint_url IS NOT NULL AND image IS NULL AND model_base_url IS NULL)
    OR (kind = 'docker' AND image IS NOT NULL AND endpoint_url IS NULL AND model_base_url IS NULL)
    OR (kind = 'model' AND model_base_url IS NOT NULL AND model_id IS NOT NULL
        AND endpoint_url IS NULL AND image IS NULL));
