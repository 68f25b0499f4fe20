-- Where new blobs go: a tenant's default platform and a bucket's own
-- placement ('' = the tenant's, then the node's default).
ALTER TABLE tenants ADD COLUMN platform TEXT NOT NULL DEFAULT '';
ALTER TABLE buckets ADD COLUMN platform TEXT NOT NULL DEFAULT '';
