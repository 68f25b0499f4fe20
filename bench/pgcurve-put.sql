-- The transaction of a 16-byte PUT of a new key into an unversioned
-- bucket, statement for statement as the catalog sent it before the
-- write path was shortened (bench/pgcurve.sh runs it with pgbench as
-- PostgreSQL's own ceiling), into the bucket pgbput-0 that a node made.
-- Keys are new: a repeated key would collide with its 'null' version,
-- which a real PUT replaces, and abort pgbench; keys from 10^15 make that
-- unlikely over the millions a run writes.
\set k random(1, 1000000000000000)
\set shard random(0, 63)
BEGIN;
SELECT pg_advisory_xact_lock_shared(1234, 5678);
SELECT 1 FROM buckets WHERE name = '\x7067627075742d30'::bytea;
SELECT pg_advisory_xact_lock(:k);
SELECT key, version_id, latest, delete_marker, size, etag, modified, owner, storage_class, meta, lock_mode, retain_until, legal_hold, parts, inline FROM objects WHERE bucket = '\x7067627075742d30'::bytea AND key = convert_to('pgb-' || :k, 'UTF8') AND version_id = 'null';
UPDATE objects SET latest = 0 WHERE bucket = '\x7067627075742d30'::bytea AND key = convert_to('pgb-' || :k, 'UTF8') AND latest = 1;
INSERT INTO bucket_stats (bucket, shard, bytes, objects) VALUES ('\x7067627075742d30'::bytea, :shard, 16, 1) ON CONFLICT (bucket, shard) DO UPDATE SET bytes = bucket_stats.bytes + excluded.bytes, objects = bucket_stats.objects + excluded.objects;
INSERT INTO objects (bucket, key, version_id, latest, delete_marker, size, etag, modified, owner, storage_class, meta, lock_mode, retain_until, legal_hold, parts, inline, seq) VALUES ('\x7067627075742d30'::bytea, convert_to('pgb-' || :k, 'UTF8'), 'null', 1, 0, 16, '"40110378eb9c0aa4354e9fbb39679d7d"', 1795780435080658588, 'bench', 'STANDARD', '{}', '', 0, 0, '[]', '\x708a9c0f1cb72fb7b6dceb91929fbccf'::bytea, (SELECT COALESCE(MAX(seq), 0) + 1 FROM objects WHERE bucket = '\x7067627075742d30'::bytea AND key = convert_to('pgb-' || :k, 'UTF8')));
END;
