-- OpenID Connect providers for console sign-in: the provider's own
-- (tenant ''), for every tenant, and tenants' own. The settings as
-- package idp encodes them, the client secret sealed under the node key.
CREATE TABLE identity_providers (
    tenant        TEXT NOT NULL,
    name          TEXT NOT NULL,
    config        TEXT NOT NULL,
    secret_sealed {{bytes}} NOT NULL,
    created       BIGINT NOT NULL,
    updated       BIGINT NOT NULL,
    PRIMARY KEY (tenant, name)
);

-- The link of a tenant's user to the subject (the token's sub) an
-- identity provider names it by: a user whose name claim changes stays
-- the same user.
CREATE TABLE idp_users (
    tenant     TEXT NOT NULL,
    user_name  TEXT NOT NULL,
    idp_tenant TEXT NOT NULL,
    idp        TEXT NOT NULL,
    subject    TEXT NOT NULL,
    login      TEXT NOT NULL,
    groups     TEXT NOT NULL,
    signed_in  BIGINT NOT NULL,
    PRIMARY KEY (tenant, user_name)
);
CREATE UNIQUE INDEX idp_users_subject ON idp_users (tenant, idp_tenant, idp, subject);

-- The states of console sign-ins with an identity provider that came
-- back, until they expire: each is used once, on whichever node.
CREATE TABLE idp_used_states (
    state_hash TEXT PRIMARY KEY,
    expires    BIGINT NOT NULL
);
CREATE INDEX idp_used_states_expires ON idp_used_states (expires);

-- The console sessions signed in through an identity provider: which
-- provider, and the ID token it gave, the hint its sign-out takes.
CREATE TABLE idp_sessions (
    session_hash TEXT PRIMARY KEY,
    idp_tenant   TEXT NOT NULL,
    idp          TEXT NOT NULL,
    id_token     TEXT NOT NULL
);
