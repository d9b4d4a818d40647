-- The deployment's identity: one random id per database, made once. Workers label their
-- sandbox pods with it (unless told a name), so two deployments sharing one Docker engine
-- never take each other's pods for their own.
CREATE TABLE deployment (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    id  UUID NOT NULL DEFAULT gen_random_uuid()
);
INSERT INTO deployment DEFAULT VALUES;
