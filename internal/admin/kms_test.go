package admin_test

import (
	"errors"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Tenants' KMS keys through the admin API: a tenant admin manages its
// own tenant's keys (short of destroying them, which only the provider
// may), nobody else's; bad input gets its error.
func TestKMSKeysAdmin(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	for _, name := range []string{"acme", "beta"} {
		must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": name}, nil))
	}
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	var annKey admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &annKey))
	ann := admin.NewClient(srv.URL, annKey.AccessKey, annKey.SecretKey, srv.Client())

	var k kms.KeyInfo
	must(t, ann.Do(ctx, "POST", "/tenants/acme/kms-keys", map[string]string{"alias": "app/logs"}, &k))
	if k.Alias != "app/logs" || k.State != "enabled" || k.Tenant != "acme" || k.Versions != 1 || k.ID == "" {
		t.Fatalf("created %+v", k)
	}
	wantCode(t, ann.Do(ctx, "POST", "/tenants/acme/kms-keys", map[string]string{"alias": "app/logs"}, nil), 409, "AliasAlreadyExists")
	wantCode(t, ann.Do(ctx, "POST", "/tenants/acme/kms-keys", map[string]string{"alias": "aws/s3"}, nil), 400, "InvalidAlias")
	wantCode(t, ann.Do(ctx, "POST", "/tenants/beta/kms-keys", map[string]string{"alias": "x"}, nil), 403, "AccessDenied")
	wantCode(t, ann.Do(ctx, "GET", "/tenants/beta/kms-keys", nil, nil), 403, "AccessDenied")
	wantCode(t, c.Do(ctx, "GET", "/tenants/nope/kms-keys", nil, nil), 404, "NoSuchTenant")
	// Another tenant's key is no key of this one.
	wantCode(t, c.Do(ctx, "POST", "/tenants/beta/kms-keys/"+k.ID+"/rotate", nil, nil), 404, "NoSuchKMSKey")

	var r kms.KeyInfo
	must(t, ann.Do(ctx, "POST", "/tenants/acme/kms-keys/"+k.ID+"/rotate", nil, &r))
	if r.ID != k.ID || r.Versions != 2 {
		t.Fatalf("rotated: %+v", r)
	}
	must(t, ann.Do(ctx, "POST", "/tenants/acme/kms-keys/"+k.ID+"/disable", nil, &r))
	if r.State != "disabled" {
		t.Fatalf("disabled: %+v", r)
	}
	if _, err := srv.Node.KMS.NewDataKey(ctx, "acme", k.ID, nil); !errors.Is(err, kms.ErrKeyDisabled) {
		t.Fatalf("a disabled key wrapped: %v", err)
	}
	must(t, ann.Do(ctx, "POST", "/tenants/acme/kms-keys/"+k.ID+"/enable", nil, nil))
	dk, err := srv.Node.KMS.NewDataKey(ctx, "acme", k.ID, nil)
	must(t, err)

	wantCode(t, ann.Do(ctx, "DELETE", "/tenants/acme/kms-keys/"+k.ID, nil, nil), 403, "AccessDenied")
	must(t, c.Do(ctx, "DELETE", "/tenants/acme/kms-keys/"+k.ID, nil, &r))
	if r.State != "destroyed" || r.Versions != 0 {
		t.Fatalf("destroyed: %+v", r)
	}
	if _, err := srv.Node.KMS.Unwrap(ctx, "acme", k.ID, dk.Wrapped, nil); !errors.Is(err, kms.ErrDestroyed) {
		t.Fatalf("Unwrap under a destroyed key: %v", err)
	}
	wantCode(t, c.Do(ctx, "POST", "/tenants/acme/kms-keys/"+k.ID+"/enable", nil, nil), 409, "KMSKeyDestroyed")
	var list []kms.KeyInfo
	must(t, ann.Do(ctx, "GET", "/tenants/acme/kms-keys", nil, &list))
	if len(list) != 1 || list[0].State != "destroyed" {
		t.Fatalf("list = %+v", list)
	}

	// The master key: the provider's alone.
	wantCode(t, ann.Do(ctx, "POST", "/master-key/rotate", nil, nil), 403, "AccessDenied")
	var mr kms.MasterRotation
	must(t, c.Do(ctx, "POST", "/master-key/rotate", nil, &mr))
	if mr.Version != 2 || len(mr.Retired) != 1 {
		t.Fatalf("master rotation = %+v", mr)
	}
}

// tenant delete --purge destroys the tenant's keys before its buckets
// go: what it wrote is unreadable even where a copy outlives the purge.
// A tenant made again under the name gets none of them.
func TestPurgeDestroysTenantKeys(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "beta"}, nil))
	k := srv.Node.KMS
	def, err := k.DefaultKey(ctx, "acme")
	must(t, err)
	named, err := k.CreateKey(ctx, "acme", "n")
	must(t, err)
	other, err := k.DefaultKey(ctx, "beta")
	must(t, err)
	var dks []kms.DataKey
	for _, id := range []string{def, named.ID} {
		dk, err := k.NewDataKey(ctx, "acme", id, []byte("cx"))
		must(t, err)
		dks = append(dks, dk)
	}
	keep, err := k.NewDataKey(ctx, "beta", other, nil)
	must(t, err)
	must(t, c.Do(ctx, "DELETE", "/tenants/acme?purge=true", nil, nil))
	for _, dk := range dks {
		if _, err := k.Unwrap(ctx, "acme", dk.KeyID, dk.Wrapped, []byte("cx")); !errors.Is(err, kms.ErrDestroyed) {
			t.Fatalf("after the purge, %s: %v, want ErrDestroyed", dk.KeyID, err)
		}
	}
	if _, err := k.Unwrap(ctx, "beta", other, keep.Wrapped, nil); err != nil {
		t.Fatalf("another tenant's key went with the purge: %v", err)
	}
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	again, err := k.DefaultKey(ctx, "acme")
	must(t, err)
	if again == def {
		t.Fatal("a tenant made again under the name got the old default key")
	}
}
