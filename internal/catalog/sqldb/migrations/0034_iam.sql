-- IAM entities beside the catalog's own users and access keys (an IAM
-- user is a user, an IAM access key an access key). Groups, managed
-- policies and roles are keyed by their lower-case name (lname), as AWS
-- names are unique without regard to case; the name keeps its case.
-- A principal (kind 'user', 'group' or 'role') is named by the user's
-- name or the group's or role's lname.
ALTER TABLE users ADD COLUMN iam_path TEXT NOT NULL DEFAULT '/';
CREATE TABLE iam_groups (
    tenant  TEXT NOT NULL,
    lname   TEXT NOT NULL,
    name    TEXT NOT NULL,
    path    TEXT NOT NULL,
    id      TEXT NOT NULL,
    created BIGINT NOT NULL,
    PRIMARY KEY (tenant, lname)
);
CREATE TABLE iam_group_members (
    tenant    TEXT NOT NULL,
    grp       TEXT NOT NULL,
    user_name TEXT NOT NULL,
    PRIMARY KEY (tenant, grp, user_name)
);
CREATE INDEX iam_group_members_user ON iam_group_members (tenant, user_name);
-- A managed policy's versions are numbered from 1, never reused:
-- next_version is the number the next one takes.
CREATE TABLE iam_policies (
    tenant          TEXT NOT NULL,
    lname           TEXT NOT NULL,
    name            TEXT NOT NULL,
    path            TEXT NOT NULL,
    id              TEXT NOT NULL,
    description     TEXT NOT NULL,
    default_version INTEGER NOT NULL,
    next_version    INTEGER NOT NULL,
    created         BIGINT NOT NULL,
    updated         BIGINT NOT NULL,
    PRIMARY KEY (tenant, lname)
);
CREATE TABLE iam_policy_versions (
    tenant   TEXT NOT NULL,
    policy   TEXT NOT NULL,
    version  INTEGER NOT NULL,
    document TEXT NOT NULL,
    created  BIGINT NOT NULL,
    PRIMARY KEY (tenant, policy, version)
);
CREATE TABLE iam_attachments (
    tenant    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    principal TEXT NOT NULL,
    policy    TEXT NOT NULL,
    PRIMARY KEY (tenant, kind, principal, policy)
);
CREATE INDEX iam_attachments_policy ON iam_attachments (tenant, policy);
CREATE TABLE iam_inline_policies (
    tenant    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    principal TEXT NOT NULL,
    lname     TEXT NOT NULL,
    name      TEXT NOT NULL,
    document  TEXT NOT NULL,
    PRIMARY KEY (tenant, kind, principal, lname)
);
CREATE TABLE iam_roles (
    tenant       TEXT NOT NULL,
    lname        TEXT NOT NULL,
    name         TEXT NOT NULL,
    path         TEXT NOT NULL,
    id           TEXT NOT NULL,
    description  TEXT NOT NULL,
    trust_policy TEXT NOT NULL,
    max_session  INTEGER NOT NULL,
    created      BIGINT NOT NULL,
    PRIMARY KEY (tenant, lname)
);
-- client_ids and thumbprints are lists joined by newlines (neither
-- holds one).
CREATE TABLE iam_oidc_providers (
    tenant      TEXT NOT NULL,
    url         TEXT NOT NULL,
    client_ids  TEXT NOT NULL,
    thumbprints TEXT NOT NULL,
    created     BIGINT NOT NULL,
    PRIMARY KEY (tenant, url)
);
CREATE TABLE iam_tags (
    tenant    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    principal TEXT NOT NULL,
    lkey      TEXT NOT NULL,
    tkey      TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (tenant, kind, principal, lkey)
);
