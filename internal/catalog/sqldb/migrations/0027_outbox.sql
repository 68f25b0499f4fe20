-- The outbox: changes to objects for replication and notifications,
-- written in the transaction of the change. ids come from the engine's
-- own counter (no row every writer updates): a key's writers hold its
-- lock until they commit, so its events' ids follow commit order, which
-- is the only order consumers keep.
CREATE TABLE object_events (
    id         {{serial}},
    sink       TEXT NOT NULL,
    bucket     {{bytes}} NOT NULL,
    key        {{bytes}} NOT NULL,
    version_id TEXT NOT NULL,
    name       TEXT NOT NULL,
    payload    {{bytes}} NOT NULL,
    created    BIGINT NOT NULL,
    attempts   INTEGER NOT NULL,
    not_before BIGINT NOT NULL,
    last_error TEXT NOT NULL
);
CREATE INDEX object_events_sink ON object_events (sink, id);
CREATE INDEX object_events_key ON object_events (sink, bucket, key, id);
