-- Server access logging: a bucket's configuration (as package objects
-- encodes it), and the records every node queues in batches until the
-- leased delivery job writes them to their target bucket. id sorts the
-- records by the time they were made.
ALTER TABLE buckets ADD COLUMN logging TEXT NOT NULL DEFAULT '';
CREATE TABLE access_log_queue (
    id           TEXT PRIMARY KEY,
    source       {{bytes}} NOT NULL,
    target       {{bytes}} NOT NULL,
    key_prefix   TEXT NOT NULL,
    partition_by TEXT NOT NULL,
    logged       BIGINT NOT NULL,
    line         TEXT NOT NULL
);
