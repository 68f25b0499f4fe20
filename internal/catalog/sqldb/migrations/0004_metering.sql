-- Metering for billing, per tenant, bucket and hour. Each node adds its
-- own request counters to its own rows, so nodes never wait on each other;
-- a report sums them. Stored bytes are sampled once an hour by whichever
-- node comes first.
CREATE TABLE usage_hourly (
    tenant          TEXT NOT NULL,
    bucket          {{bytes}} NOT NULL,
    hour            BIGINT NOT NULL,
    node            TEXT NOT NULL,
    get_requests    BIGINT NOT NULL,
    put_requests    BIGINT NOT NULL,
    list_requests   BIGINT NOT NULL,
    delete_requests BIGINT NOT NULL,
    bytes_in        BIGINT NOT NULL,
    bytes_out       BIGINT NOT NULL,
    PRIMARY KEY (tenant, bucket, hour, node)
);

CREATE TABLE storage_hourly (
    bucket  {{bytes}} NOT NULL,
    hour    BIGINT NOT NULL,
    tenant  TEXT NOT NULL,
    bytes   BIGINT NOT NULL,
    objects BIGINT NOT NULL,
    PRIMARY KEY (bucket, hour)
);
CREATE INDEX storage_hourly_tenant ON storage_hourly (tenant, hour);
