-- The same PUT as bench/pgcurve-put.sql in the six statements the catalog
-- sends now (internal/catalog/sqldb/putshort.go): both locks in one
-- statement; the demotion, the counting and the row in another.
\set k random(1, 2000000000)
\set shard random(0, 63)
BEGIN;
SELECT pg_advisory_xact_lock_shared(1234, 5678), pg_advisory_xact_lock(:k);
SELECT owner FROM buckets WHERE name = '\x7067627075742d30'::bytea;
SELECT key, version_id, latest, delete_marker, size, etag, modified, CASE owner WHEN '' THEN (SELECT b.owner FROM buckets b WHERE b.name = '\x7067627075742d30'::bytea) WHEN '-' THEN '' ELSE owner END, storage_class, meta, lock_mode, retain_until, legal_hold, parts, inline FROM objects WHERE bucket = '\x7067627075742d30'::bytea AND key = convert_to('pgb-' || :k, 'UTF8') AND version_id = 'null';
WITH demoted AS (UPDATE objects SET latest = 0 WHERE bucket = '\x7067627075742d30'::bytea AND key = convert_to('pgb-' || :k, 'UTF8') AND latest = 1),
counted AS (INSERT INTO bucket_stats (bucket, shard, bytes, objects) VALUES ('\x7067627075742d30'::bytea, :shard, 16, 1) ON CONFLICT (bucket, shard) DO UPDATE SET bytes = bucket_stats.bytes + excluded.bytes, objects = bucket_stats.objects + excluded.objects)
INSERT INTO objects (bucket, key, version_id, latest, delete_marker, size, etag, modified, owner, storage_class, meta, lock_mode, retain_until, legal_hold, parts, inline, seq) SELECT '\x7067627075742d30'::bytea, convert_to('pgb-' || :k, 'UTF8'), 'null', 1, 0, 16, '"40110378eb9c0aa4354e9fbb39679d7d"', 1795780435080658588, '', '', '{}', '', 0, 0, '[]', '\x708a9c0f1cb72fb7b6dceb91929fbccf'::bytea, (SELECT COALESCE(MAX(seq), 0) + 1 FROM objects WHERE bucket = '\x7067627075742d30'::bytea AND key = convert_to('pgb-' || :k, 'UTF8'));
END;
