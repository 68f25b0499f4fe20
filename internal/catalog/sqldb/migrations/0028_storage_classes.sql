-- Storage classes as platforms. A tenant's own map of classes to
-- platforms (JSON, as package storageclass encodes it; '' = the
-- provider's map applies), over the provider's.
ALTER TABLE tenants ADD COLUMN storage_classes TEXT NOT NULL DEFAULT '';
-- Running totals of what each bucket stores per storage class, for
-- versions whose class is not STANDARD (STANDARD's is the bucket's total
-- less these), kept by the same writes as bucket_stats and sharded alike.
CREATE TABLE class_stats (
    bucket  {{bytes}} NOT NULL,
    class   TEXT NOT NULL,
    shard   INTEGER NOT NULL,
    bytes   BIGINT NOT NULL,
    objects BIGINT NOT NULL,
    PRIMARY KEY (bucket, class, shard)
);
INSERT INTO class_stats (bucket, class, shard, bytes, objects)
    SELECT bucket, storage_class, 0, SUM(size), COUNT(*) FROM objects
    WHERE delete_marker = 0 AND storage_class <> 'STANDARD' AND storage_class <> '' GROUP BY bucket, storage_class;
-- The hourly storage sample per class (the bill's byte-hours by class),
-- taken with storage_hourly's.
CREATE TABLE storage_class_hourly (
    bucket  {{bytes}} NOT NULL,
    hour    BIGINT NOT NULL,
    class   TEXT NOT NULL,
    bytes   BIGINT NOT NULL,
    objects BIGINT NOT NULL,
    PRIMARY KEY (bucket, hour, class)
);
