-- Directories (LDAP, Active Directory) that tenants' users come from.
-- A user can be disabled: a directory user removed or disabled in its
-- directory stays (it may own buckets) but signs nothing in.
ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;

-- One directory per tenant: its settings as package directory encodes
-- them, the bind secret sealed under the node key, the last sync.
CREATE TABLE directories (
    tenant        TEXT PRIMARY KEY,
    config        TEXT NOT NULL,
    secret_sealed {{bytes}} NOT NULL,
    created       BIGINT NOT NULL,
    updated       BIGINT NOT NULL,
    last_sync     BIGINT NOT NULL DEFAULT 0,
    last_result   TEXT NOT NULL DEFAULT ''
);

-- The link of a tenant's user to its directory entry, by the entry's
-- stable id (entryUUID, objectGUID): a renamed entry is the same user.
CREATE TABLE directory_users (
    tenant       TEXT NOT NULL,
    user_name    TEXT NOT NULL,
    external_id  TEXT NOT NULL,
    login        TEXT NOT NULL,
    dn           TEXT NOT NULL,
    display_name TEXT NOT NULL,
    groups       TEXT NOT NULL,
    synced       BIGINT NOT NULL,
    PRIMARY KEY (tenant, user_name)
);
CREATE UNIQUE INDEX directory_users_external ON directory_users (tenant, external_id);
CREATE INDEX directory_users_login ON directory_users (tenant, login);

-- The groups the last sync found, and the role each gives.
CREATE TABLE directory_groups (
    tenant      TEXT NOT NULL,
    external_id TEXT NOT NULL,
    name        TEXT NOT NULL,
    dn          TEXT NOT NULL,
    role        TEXT NOT NULL,
    members     INTEGER NOT NULL,
    PRIMARY KEY (tenant, external_id)
);
