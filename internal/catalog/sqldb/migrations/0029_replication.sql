-- Bucket replication: a bucket's configuration (as package replication
-- encodes it, the writer included; '' means none) and the remote S3
-- endpoints replicas may go to, registered by the provider (tenant '')
-- or a tenant, each secret sealed by the node key.
ALTER TABLE buckets ADD COLUMN replication TEXT NOT NULL DEFAULT '';
CREATE TABLE replication_targets (
  tenant      TEXT NOT NULL,
  name        TEXT NOT NULL,
  endpoint    TEXT NOT NULL,
  region      TEXT NOT NULL,
  access_key  TEXT NOT NULL,
  secret      {{bytes}} NOT NULL,
  shared      INTEGER NOT NULL,
  path_style  INTEGER NOT NULL,
  created     BIGINT NOT NULL,
  PRIMARY KEY (tenant, name)
);
