-- Rates sold with a tenant's (or a bucket's) quota: requests a second and
-- bytes a second in each direction, 0 = no limit.
ALTER TABLE quotas ADD COLUMN requests_per_sec BIGINT NOT NULL DEFAULT 0;
ALTER TABLE quotas ADD COLUMN bytes_in_per_sec BIGINT NOT NULL DEFAULT 0;
ALTER TABLE quotas ADD COLUMN bytes_out_per_sec BIGINT NOT NULL DEFAULT 0;

-- What each node saw asked of each limited scope in its last interval:
-- nodes split a limit in proportion to these, so that the limit holds
-- across them however the balancer spreads a tenant's requests. A dead
-- node's rows age out by their time.
CREATE TABLE rate_demand (
    node   TEXT NOT NULL,
    scope  TEXT NOT NULL,
    demand BIGINT NOT NULL,
    at     BIGINT NOT NULL,
    PRIMARY KEY (scope, node)
);
