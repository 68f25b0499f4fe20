-- The audit log: admin API calls and changes to buckets' access settings.
-- ids come from audit_seq, taken in the writing transaction, so they
-- increase in commit order on every engine and listings page by them.
CREATE TABLE audit_log (
  id         BIGINT PRIMARY KEY,
  at         BIGINT NOT NULL,
  access_key TEXT NOT NULL,
  tenant     TEXT NOT NULL,
  user_name  TEXT NOT NULL,
  root       INTEGER NOT NULL,
  action     TEXT NOT NULL,
  target     TEXT NOT NULL,
  source     TEXT NOT NULL,
  outcome    TEXT NOT NULL,
  status     INTEGER NOT NULL,
  request_id TEXT NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_tenant ON audit_log (tenant, id);
CREATE TABLE audit_seq (id INTEGER PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO audit_seq (id, n) VALUES (1, 0);
-- Where each key came from: root keys given at start (env), generated at
-- the first start, or made through the admin API. Root keys from before
-- this migration came from the start-up, the only way there was.
ALTER TABLE access_keys ADD COLUMN source TEXT NOT NULL DEFAULT '';
UPDATE access_keys SET source = 'env' WHERE tenant = '' AND user_name = 'root';
