-- Data protection. A bucket's versioning state, object lock configuration,
-- tags, CORS rules and lifecycle rules, as package objects encodes them;
-- '' means never set.
ALTER TABLE buckets ADD COLUMN versioning TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN object_lock TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN tagging TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN cors TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN lifecycle TEXT NOT NULL DEFAULT '';

-- seq orders a key's versions by commit, newest highest: the key is locked
-- while a version is written, so it is exact where clocks of nodes are not.
-- Rows from before versioning are each the only (null) version of its key.
ALTER TABLE objects ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX objects_seq ON objects (bucket, key, seq);

-- A version's object lock: retention mode and date, and legal hold. The
-- catalog refuses to remove a version they protect, in the removing
-- transaction, so no path can delete one.
ALTER TABLE objects ADD COLUMN lock_mode TEXT NOT NULL DEFAULT '';
ALTER TABLE objects ADD COLUMN retain_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE objects ADD COLUMN legal_hold INTEGER NOT NULL DEFAULT 0;
CREATE INDEX objects_locked ON objects (bucket) WHERE retain_until > 0 OR legal_hold = 1;
