-- One secondary index on objects where there were two. objects_seq
-- (bucket, key, seq) served the next seq of a PUT, the demotion of the
-- latest version and the order of a key's versions; objects_current
-- (bucket, key) held the latest versions that are not delete markers,
-- for list pages. objects_latest holds every latest version, delete
-- markers too, and serves a GET of the latest version, a list page (its
-- delete markers skipped by the row's flag), the demotion, and the next
-- seq (a key's latest version has its highest seq: a PUT gives the new
-- latest the next one, a removal of the latest promotes the highest).
-- The promotion after a removal and a page of versions read a key's
-- versions by the primary key and order them by seq, a sort of one
-- key's versions. objects_seq cost as much as the primary key, 50 to 80
-- bytes an object (bench/results/2026-11-27-10m-objects-3.md).
DROP INDEX IF EXISTS objects_seq;
DROP INDEX IF EXISTS objects_current;
CREATE INDEX objects_latest ON objects (bucket, key) WHERE latest = 1;
{{postgres}}ANALYZE objects;
