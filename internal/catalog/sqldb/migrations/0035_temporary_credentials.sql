-- Temporary credentials (STS): the secret sealed as an access key's, the
-- session token only as its SHA-256. Rows stay past their expiry (so a
-- late request is told its token expired) until the pruner drops them.
CREATE TABLE temp_creds (
    access_key    TEXT PRIMARY KEY,
    secret_sealed {{bytes}} NOT NULL,
    token_hash    {{bytes}} NOT NULL,
    tenant        TEXT NOT NULL,
    user_name     TEXT NOT NULL,
    owner         TEXT NOT NULL,
    role_name     TEXT NOT NULL DEFAULT '',
    session_name  TEXT NOT NULL DEFAULT '',
    policy        TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '',
    created       BIGINT NOT NULL,
    expires       BIGINT NOT NULL
);
CREATE INDEX temp_creds_expires ON temp_creds (expires);
