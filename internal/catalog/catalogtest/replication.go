package catalogtest

import (
	"bytes"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func testReplicationTargets(t *testing.T, s catalog.Store) {
	tg := catalog.ReplicationTarget{Tenant: "acme", Name: "site2", Endpoint: "https://s3.site2.example", Region: "eu-1",
		AccessKey: "AK", SecretSealed: []byte{1, 2, 3}, PathStyle: true, Created: time.Now()}
	wantErr(t, s.AddReplicationTarget(ctx, tg), catalog.ErrNoSuchTenant)
	tenant(t, s, "acme")
	must(t, s.AddReplicationTarget(ctx, tg))
	wantErr(t, s.AddReplicationTarget(ctx, tg), catalog.ErrReplicationTargetExists)
	// The provider's namespace is its own: the same name is another target.
	must(t, s.AddReplicationTarget(ctx, catalog.ReplicationTarget{Name: "site2", Endpoint: "https://p", SecretSealed: []byte{9}, Shared: true, Created: time.Now()}))
	got, err := s.GetReplicationTarget(ctx, "acme", "site2")
	must(t, err)
	if got.Endpoint != tg.Endpoint || got.Region != "eu-1" || got.AccessKey != "AK" || !bytes.Equal(got.SecretSealed, tg.SecretSealed) || !got.PathStyle || got.Shared {
		t.Fatalf("target = %+v", got)
	}
	prov, err := s.ListReplicationTargets(ctx, "")
	must(t, err)
	if len(prov) != 1 || !prov[0].Shared || prov[0].Endpoint != "https://p" {
		t.Fatalf("provider's targets = %+v", prov)
	}
	must(t, s.DeleteReplicationTarget(ctx, "acme", "site2"))
	wantErr(t, s.DeleteReplicationTarget(ctx, "acme", "site2"), catalog.ErrNoSuchReplicationTarget)
	_, err = s.GetReplicationTarget(ctx, "acme", "site2")
	wantErr(t, err, catalog.ErrNoSuchReplicationTarget)

	// A version's replication status changes with its key held and
	// leaves the rest of its meta.
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "rb", Owner: "o", CreatedAt: time.Now()}))
	must(t, s.PutObject(ctx, catalog.Object{Bucket: "rb", Key: "k", VersionID: "v1", ETag: `"e"`, LastModified: time.Now(),
		Meta: catalog.Meta{ContentType: "text/plain", Replication: "PENDING"}}, catalog.PutOptions{}))
	must(t, s.SetReplicationStatus(ctx, "rb", "k", "v1", "COMPLETED"))
	o, err := s.GetObject(ctx, "rb", "k", "v1")
	must(t, err)
	if o.Meta.Replication != "COMPLETED" || o.Meta.ContentType != "text/plain" {
		t.Fatalf("meta = %+v", o.Meta)
	}
	wantErr(t, s.SetReplicationStatus(ctx, "rb", "k", "v2", "FAILED"), catalog.ErrNoSuchObject)
}
