-- What a submission says of its model and agent (docs/data.md, "What a submission says of itself"):
-- the model's organisation and version, open or closed weights, the agent framework, and
-- whether the scaffold is the standard one or the vendor's own. Each is optional (null: not
-- stated, never guessed); the API checks the words, these checks keep the table honest.
ALTER TABLE submissions
    ADD COLUMN organisation TEXT CHECK (length(organisation) BETWEEN 1 AND 80),
    ADD COLUMN model_version TEXT CHECK (length(model_version) BETWEEN 1 AND 80),
    ADD COLUMN weights TEXT CHECK (weights IN ('open', 'closed')),
    ADD COLUMN framework TEXT CHECK (length(framework) BETWEEN 1 AND 80),
    ADD COLUMN scaffold TEXT CHECK (scaffold IN ('standard', 'own'));
