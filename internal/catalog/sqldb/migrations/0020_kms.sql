-- Tenant keys (package kms): each version's material sealed by a version
-- of the master key, itself sealed by the node key. The catalog never
-- holds a key in the clear. A destroyed key keeps its row (so reads of
-- what it wrapped say so) and loses its versions.
CREATE TABLE kms_keys (
  id       TEXT PRIMARY KEY,
  tenant   TEXT NOT NULL,
  name     TEXT NOT NULL,
  state    TEXT NOT NULL,
  created  BIGINT NOT NULL,
  version  INTEGER NOT NULL
);
CREATE INDEX kms_keys_tenant ON kms_keys (tenant, created);
-- A name (alias) names one live key of its tenant; a destroyed key's
-- name may be taken again.
CREATE UNIQUE INDEX kms_keys_name ON kms_keys (tenant, name) WHERE name <> '' AND state <> 'destroyed';
CREATE TABLE kms_key_versions (
  key_id   TEXT NOT NULL,
  version  INTEGER NOT NULL,
  sealed   {{bytes}} NOT NULL,
  master   INTEGER NOT NULL,
  created  BIGINT NOT NULL,
  PRIMARY KEY (key_id, version)
);
CREATE INDEX kms_key_versions_master ON kms_key_versions (master);
CREATE TABLE kms_master_keys (
  version  INTEGER PRIMARY KEY,
  sealed   {{bytes}} NOT NULL,
  created  BIGINT NOT NULL
);
