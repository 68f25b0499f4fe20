-- objects_versions (bucket, key, modified) has served no query since a
-- key's versions are ordered by commit (seq, with its own index
-- objects_seq): nothing filters or sorts objects by modified, and every
-- lookup by (bucket, key) has the primary key. It cost as much as the
-- primary key, a fifth of the catalog's disk per object and a fifth of
-- the index pages each PUT and DELETE writes.
DROP INDEX IF EXISTS objects_versions;
