-- Event notifications: a bucket's configuration (as package notify
-- encodes it) is one more bucket setting; the targets it may name are
-- the provider's, kept here with the tenants each is open to and its
-- signing secret sealed under the node key.
ALTER TABLE buckets ADD COLUMN notification TEXT NOT NULL DEFAULT '';

CREATE TABLE notify_targets (
    arn           TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,
    endpoint      TEXT NOT NULL,
    subject       TEXT NOT NULL,
    secret_sealed {{bytes}} NOT NULL,
    tenants       TEXT NOT NULL,
    created       BIGINT NOT NULL
);
