-- Console sign-ins. Attempts are counted per key (a user, a client
-- address, a device) before they are evaluated, and uncounted when one
-- succeeds or was never evaluated: attempts (reserved or failed) and the
-- time of the last one, from which the delay before the next is
-- computed (catalog.SignInLimit). Devices are the browsers that signed
-- in before, known by the SHA-256 of their cookie's token, so that a
-- lockout others build up does not keep the real user out.
DROP TABLE console_signin_failures;

CREATE TABLE console_signin_attempts (
  fkey     TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL,
  last_at  BIGINT NOT NULL
);
CREATE INDEX console_signin_attempts_last ON console_signin_attempts (last_at);

CREATE TABLE console_devices (
  token_hash TEXT PRIMARY KEY,
  subject    TEXT NOT NULL,
  tenant     TEXT NOT NULL,
  user_name  TEXT NOT NULL,
  created    BIGINT NOT NULL,
  expires    BIGINT NOT NULL
);
CREATE INDEX console_devices_subject ON console_devices (subject, created);
CREATE INDEX console_devices_user ON console_devices (tenant, user_name);
CREATE INDEX console_devices_expires ON console_devices (expires);
