-- A user's e-mail address, for ACL grants by e-mail (AWS's
-- emailAddress grantee); unique over the endpoint when set.
ALTER TABLE users ADD COLUMN email TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX users_email ON users (email) WHERE email <> '';
