-- The object lock a multipart upload asked for at creation
-- (x-amz-object-lock-*), which the version its completion makes carries;
-- as the objects' columns of 0012.
ALTER TABLE uploads ADD COLUMN lock_mode TEXT NOT NULL DEFAULT '';
ALTER TABLE uploads ADD COLUMN retain_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE uploads ADD COLUMN legal_hold INTEGER NOT NULL DEFAULT 0;
