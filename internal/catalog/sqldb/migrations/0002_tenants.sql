-- Tenants, their users and quotas; access keys learn whose they are and
-- what they may touch. Existing rows belong to the provider (tenant '').
CREATE TABLE tenants (
    name         TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    status       TEXT NOT NULL,
    canonical_id TEXT NOT NULL,
    created      BIGINT NOT NULL
);

CREATE TABLE users (
    tenant       TEXT NOT NULL,
    name         TEXT NOT NULL,
    role         TEXT NOT NULL,
    canonical_id TEXT NOT NULL,
    created      BIGINT NOT NULL,
    PRIMARY KEY (tenant, name)
);

CREATE TABLE quotas (
    tenant      TEXT NOT NULL,
    bucket      {{bytes}} NOT NULL,
    max_bytes   BIGINT NOT NULL,
    max_objects BIGINT NOT NULL,
    PRIMARY KEY (tenant, bucket)
);

-- One row, advanced by every identity change: nodes poll it to drop
-- cached credentials (admin changes are rare, so the row is never hot).
CREATE TABLE identity_generation (
    id  INTEGER PRIMARY KEY,
    gen BIGINT NOT NULL
);
INSERT INTO identity_generation (id, gen) VALUES (1, 0);

ALTER TABLE buckets ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
CREATE INDEX buckets_tenant ON buckets (tenant);

ALTER TABLE access_keys ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
ALTER TABLE access_keys ADD COLUMN user_name TEXT NOT NULL DEFAULT 'root';
ALTER TABLE access_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'key';
ALTER TABLE access_keys ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE access_keys ADD COLUMN expires BIGINT NOT NULL DEFAULT 0;
ALTER TABLE access_keys ADD COLUMN buckets TEXT NOT NULL DEFAULT '';
ALTER TABLE access_keys ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;
CREATE INDEX access_keys_user ON access_keys (tenant, user_name);
