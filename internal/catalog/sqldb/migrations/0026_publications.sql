-- Content libraries a tenant publishes from a bucket (package vcsp), and
-- the index documents the leased indexer generates for each: kept here
-- rather than in the bucket, where the tenant could overwrite them and
-- they would count against its quota.
CREATE TABLE publications (
    tenant        TEXT NOT NULL,
    name          TEXT NOT NULL,
    bucket        TEXT NOT NULL,
    prefix        {{bytes}} NOT NULL,
    description   TEXT NOT NULL,
    auth_user     TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    library_id    TEXT NOT NULL,
    created       BIGINT NOT NULL,
    version       BIGINT NOT NULL,
    digest        TEXT NOT NULL,
    indexed       BIGINT NOT NULL,
    PRIMARY KEY (tenant, name)
);

CREATE TABLE publication_docs (
    tenant TEXT NOT NULL,
    name   TEXT NOT NULL,
    path   {{bytes}} NOT NULL,
    body   {{bytes}} NOT NULL,
    PRIMARY KEY (tenant, name, path)
);
