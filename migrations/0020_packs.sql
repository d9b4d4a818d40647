-- Private packs: task families kept out of the repository (docs/packs.md). A pack's files are
-- stored only sealed (AES-256-GCM under the task keyring, bound to the pack and the file's
-- place; `key_id` names the key), each with the SHA-256 of its bytes, which is listed in clear
-- from the day the pack is added: a file revealed later is checked against it. A file's name
-- is sealed with its bytes (a family's id says what it asks). Retiring a family writes its file
-- in clear; a pack's `pack.json` and `lib.jq` are written in clear once every family of it is
-- retired.
CREATE TABLE packs (
    name TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    families INTEGER NOT NULL CHECK (families > 0),
    added_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE pack_files (
    pack TEXT NOT NULL REFERENCES packs (name) ON DELETE CASCADE,
    position INTEGER NOT NULL CHECK (position >= 0),
    -- Whether the file is a family (else `pack.json` or `lib.jq`).
    family BOOLEAN NOT NULL,
    sha256 TEXT NOT NULL,
    key_id TEXT NOT NULL,
    sealed BYTEA NOT NULL,
    retired_at TIMESTAMPTZ,
    -- In clear once retired (a family) or once the whole pack is (its other files).
    revealed_name TEXT,
    revealed BYTEA,
    PRIMARY KEY (pack, position),
    CONSTRAINT pack_files_revealed_whole CHECK ((revealed_name IS NULL) = (revealed IS NULL)),
    CONSTRAINT pack_files_retired_family CHECK (retired_at IS NULL OR family)
);
