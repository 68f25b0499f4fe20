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
--
-- It is UNIQUE: a key has one latest version, which the catalog now
-- holds as well as the code, and the planner knows that a search of it
-- by bucket and key finds one entry. PostgreSQL plans a prepared query
-- anew at each execution while it weighs its generic plan as dearer
-- than a planned one; a GET in a small bucket of a 10-million-object
-- catalog was planned every time, a sixth of the server's CPU under a
-- HEAD load (bench/results/2026-11-27-10m-objects-3.md).
DROP INDEX IF EXISTS objects_seq;
DROP INDEX IF EXISTS objects_current;
CREATE UNIQUE INDEX objects_latest ON objects (bucket, key) WHERE latest = 1;
-- For the same reason PostgreSQL is told that keys are distinct: it
-- estimates their number from a sample of 30,000 rows, which put a
-- 10-million-object catalog's at 450,000, a search by bucket and key at
-- six rows, and so the generic plan at twice the cost of a planned one.
{{postgres}}ALTER TABLE objects ALTER COLUMN key SET (n_distinct = -1);
{{postgres}}ANALYZE objects;
