-- The VMware Cloud Director ids that OSIS maps onto tenants (user_name
-- '') and users: an organization may map several ids to one tenant, and
-- an id maps to one tenant or user. Deleting the tenant or user deletes
-- its rows.
CREATE TABLE cloud_director_ids (
    kind      TEXT NOT NULL,
    cd_id     TEXT NOT NULL,
    tenant    TEXT NOT NULL,
    user_name TEXT NOT NULL,
    PRIMARY KEY (kind, cd_id)
);
CREATE INDEX cloud_director_ids_owner ON cloud_director_ids (tenant, user_name);
