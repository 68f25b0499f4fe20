-- Running totals of what each bucket stores, kept by every write in its
-- own transaction. A bucket's total is spread over shards (by key hash)
-- so that concurrent writers to one bucket seldom wait on the same row.
CREATE TABLE bucket_stats (
    bucket  {{bytes}} NOT NULL,
    shard   INTEGER NOT NULL,
    bytes   BIGINT NOT NULL,
    objects BIGINT NOT NULL,
    PRIMARY KEY (bucket, shard)
);
INSERT INTO bucket_stats (bucket, shard, bytes, objects)
    SELECT bucket, 0, SUM(size), COUNT(*) FROM objects WHERE delete_marker = 0 GROUP BY bucket;
