-- The objects table rebuilt with a narrower row; its data carried over.
--
-- - owner: the empty string where the version's owner is its bucket's
--   owner (nearly every row: a bucket's owner writes it, and
--   BucketOwnerEnforced makes every writer's object the owner's), which
--   was the same 64-hex canonical id in every row, 65 bytes; a version
--   whose owner really is empty keeps '-' (no canonical id is '-'). A
--   bucket's owner never changes, so the row needs nothing else; reads
--   take the owner from the bucket (objects.go, storedOwner).
-- - storage_class: the empty string for STANDARD (9 bytes to 1), '-' for
--   an empty class.
-- - latest, delete_marker and legal_hold as SMALLINT, and the columns in
--   order of alignment (8-byte first, then 2-byte, then the
--   variable-length ones, which PostgreSQL does not pad), so that no
--   padding sits between them.
--
-- The indexes are the same (bench/results/2026-11-27-10m-objects-2.md
-- weighs each). Rows are copied in the primary key's order, so that its
-- B-tree fills its pages as it grows (rows arriving in another order
-- split pages in half and leave them so) and a list page's rows sit
-- together in the table. The copy runs in the migration's transaction
-- and needs the table's size again in free disk until it commits; at 10
-- million objects it takes minutes, during which the catalog takes no
-- writes.
CREATE TABLE objects_0046 (
    size          BIGINT NOT NULL,
    modified      BIGINT NOT NULL,
    seq           BIGINT NOT NULL DEFAULT 0,
    retain_until  BIGINT NOT NULL DEFAULT 0,
    latest        SMALLINT NOT NULL,
    delete_marker SMALLINT NOT NULL,
    legal_hold    SMALLINT NOT NULL DEFAULT 0,
    bucket        {{bytes}} NOT NULL,
    key           {{bytes}} NOT NULL,
    version_id    TEXT NOT NULL,
    etag          TEXT NOT NULL,
    owner         TEXT NOT NULL,
    storage_class TEXT NOT NULL,
    lock_mode     TEXT NOT NULL DEFAULT '',
    meta          TEXT NOT NULL,
    parts         TEXT NOT NULL,
    inline        {{bytes}},
    PRIMARY KEY (bucket, key, version_id)
);

INSERT INTO objects_0046 (size, modified, seq, retain_until, latest, delete_marker, legal_hold,
    bucket, key, version_id, etag, owner, storage_class, lock_mode, meta, parts, inline)
SELECT o.size, o.modified, o.seq, o.retain_until, o.latest, o.delete_marker, o.legal_hold,
    o.bucket, o.key, o.version_id, o.etag,
    CASE WHEN o.owner = '' THEN '-' WHEN o.owner = b.owner THEN '' ELSE o.owner END,
    CASE o.storage_class WHEN 'STANDARD' THEN '' WHEN '' THEN '-' ELSE o.storage_class END,
    o.lock_mode, o.meta, o.parts, o.inline
FROM objects o LEFT JOIN buckets b ON b.name = o.bucket
ORDER BY o.bucket, o.key, o.version_id;

DROP TABLE objects;
ALTER TABLE objects_0046 RENAME TO objects;
{{postgres}}ALTER INDEX objects_0046_pkey RENAME TO objects_pkey;

CREATE INDEX objects_current ON objects (bucket, key) WHERE latest = 1 AND delete_marker = 0;
CREATE INDEX objects_seq ON objects (bucket, key, seq);
CREATE INDEX objects_locked ON objects (bucket) WHERE retain_until > 0 OR legal_hold = 1;
{{postgres}}ANALYZE objects;
