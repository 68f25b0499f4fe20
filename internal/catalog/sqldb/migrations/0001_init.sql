-- One schema for every SQL driver. {{bytes}} is the binary type of the
-- dialect (BLOB, BYTEA): names and keys are compared as bytes, which is
-- S3's UTF-8 order, whatever the database's collation.
CREATE TABLE buckets (
    name     {{bytes}} PRIMARY KEY,
    owner    TEXT NOT NULL,
    region   TEXT NOT NULL,
    created  BIGINT NOT NULL
);

-- Every object row is a version; an unversioned bucket holds the "null"
-- version of each key. latest marks the version a plain GET reads.
CREATE TABLE objects (
    bucket        {{bytes}} NOT NULL,
    key           {{bytes}} NOT NULL,
    version_id    TEXT NOT NULL,
    latest        INTEGER NOT NULL,
    delete_marker INTEGER NOT NULL,
    size          BIGINT NOT NULL,
    etag          TEXT NOT NULL,
    modified      BIGINT NOT NULL,
    owner         TEXT NOT NULL,
    storage_class TEXT NOT NULL,
    meta          TEXT NOT NULL,
    parts         TEXT NOT NULL,
    inline        {{bytes}},
    PRIMARY KEY (bucket, key, version_id)
);
CREATE INDEX objects_current ON objects (bucket, key) WHERE latest = 1 AND delete_marker = 0;
CREATE INDEX objects_versions ON objects (bucket, key, modified);

-- Which object version holds each blob, so that the sweeper can ask
-- whether a blob is referenced without reading every object's parts.
CREATE TABLE object_blobs (
    blob_id    TEXT PRIMARY KEY,
    bucket     {{bytes}} NOT NULL,
    key        {{bytes}} NOT NULL,
    version_id TEXT NOT NULL
);

CREATE TABLE uploads (
    upload_id          TEXT PRIMARY KEY,
    bucket             {{bytes}} NOT NULL,
    key                {{bytes}} NOT NULL,
    initiated          BIGINT NOT NULL,
    owner              TEXT NOT NULL,
    storage_class      TEXT NOT NULL,
    meta               TEXT NOT NULL,
    checksum_algorithm TEXT NOT NULL,
    checksum_type      TEXT NOT NULL
);
CREATE INDEX uploads_order ON uploads (bucket, key, initiated, upload_id);

CREATE TABLE upload_parts (
    upload_id TEXT NOT NULL,
    number    INTEGER NOT NULL,
    blob_id   TEXT NOT NULL,
    size      BIGINT NOT NULL,
    etag      TEXT NOT NULL,
    modified  BIGINT NOT NULL,
    checksums TEXT NOT NULL,
    PRIMARY KEY (upload_id, number)
);
CREATE INDEX upload_parts_blob ON upload_parts (blob_id);

CREATE TABLE gc_queue (
    blob_id  TEXT PRIMARY KEY,
    enqueued BIGINT NOT NULL
);
CREATE INDEX gc_queue_order ON gc_queue (enqueued);

CREATE TABLE access_keys (
    access_key    TEXT PRIMARY KEY,
    secret_sealed {{bytes}} NOT NULL,
    owner         TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    created       BIGINT NOT NULL
);
CREATE INDEX access_keys_owner ON access_keys (owner);
