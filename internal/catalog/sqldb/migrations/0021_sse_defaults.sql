-- Default encryption of new objects: a bucket's (PutBucketEncryption's
-- rule, as package objects encodes it) and a tenant's, which the
-- provider sets; '' means none set.
ALTER TABLE buckets ADD COLUMN encryption TEXT NOT NULL DEFAULT '';
ALTER TABLE tenants ADD COLUMN encryption TEXT NOT NULL DEFAULT '';
