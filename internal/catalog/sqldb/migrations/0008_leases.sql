-- Leases of background jobs: one node at a time runs each (collector,
-- sweeper, ...); expires is the holder's clock in Unix nanoseconds.
CREATE TABLE leases (
  name    TEXT PRIMARY KEY,
  holder  TEXT NOT NULL,
  expires BIGINT NOT NULL
);
