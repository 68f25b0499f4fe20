-- Access settings of a bucket, as the documents S3 exchanges for them
-- (stored as JSON or as sent); '' means the setting was never made.
ALTER TABLE buckets ADD COLUMN acl TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN policy TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN ownership TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN public_access_block TEXT NOT NULL DEFAULT '';
