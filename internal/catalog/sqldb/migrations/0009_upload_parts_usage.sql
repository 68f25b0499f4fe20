-- The parts of open multipart uploads count in their bucket's bytes from
-- now on; those uploaded before are added here, in a shard of their own
-- (-1: never one that writers pick), so that aborting them takes off what
-- was added.
INSERT INTO bucket_stats (bucket, shard, bytes, objects)
    SELECT u.bucket, -1, SUM(p.size), 0 FROM upload_parts p JOIN uploads u ON u.upload_id = p.upload_id GROUP BY u.bucket;
