-- The web console: users' passwords (an argon2id PHC string; '' = none)
-- and whether the next sign-in must change it; sessions, kept in the
-- catalog so that any node serves any of them, known by the SHA-256 of
-- their id only; and failed sign-ins, counted per user and per client
-- address in fixed windows, so that every node refuses alike.
ALTER TABLE users ADD COLUMN password TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN password_must_change INTEGER NOT NULL DEFAULT 0;

CREATE TABLE console_sessions (
  id_hash     TEXT PRIMARY KEY,
  subject     TEXT NOT NULL,
  method      TEXT NOT NULL,
  tenant      TEXT NOT NULL,
  user_name   TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  access_key  TEXT NOT NULL,
  csrf        TEXT NOT NULL,
  must_change INTEGER NOT NULL,
  created     BIGINT NOT NULL,
  last_seen   BIGINT NOT NULL,
  expires     BIGINT NOT NULL
);
CREATE INDEX console_sessions_subject ON console_sessions (subject);
CREATE INDEX console_sessions_expires ON console_sessions (expires);
CREATE INDEX console_sessions_last_seen ON console_sessions (last_seen);

CREATE TABLE console_signin_failures (
  fkey         TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  failures     INTEGER NOT NULL
);
CREATE INDEX console_signin_failures_window ON console_signin_failures (window_start);
