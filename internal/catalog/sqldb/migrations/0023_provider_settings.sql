-- The provider's own settings that every node shares (the default
-- encryption of new objects, set through the admin API); a missing row
-- means unset.
CREATE TABLE provider_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
