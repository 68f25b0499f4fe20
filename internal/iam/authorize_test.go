package iam_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// enforced is a bucket's access under BucketOwnerEnforced, with no
// policy: what ownership and roles alone decide.
var enforced = &iam.BucketAccess{Ownership: iam.OwnerEnforced}

func TestAuthorizeRules(t *testing.T) {
	acme := &catalog.Bucket{Name: "acme-data", Owner: "c-alice", Tenant: "acme"}
	bob := &catalog.Bucket{Name: "acme-bob", Owner: "c-bob", Tenant: "acme"}
	beta := &catalog.Bucket{Name: "beta-data", Owner: "c-carol", Tenant: "beta"}
	root := &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}
	admin := &iam.Identity{Tenant: "acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"}
	alice := &iam.Identity{Tenant: "acme", User: "alice", Role: catalog.RoleUser, CanonicalID: "c-alice"}
	app := func(ro bool) *iam.Identity {
		id := *alice
		id.App = &iam.AppLimits{Buckets: []string{"acme-data"}, ReadOnly: ro}
		return &id
	}
	suspended := *alice
	suspended.Suspended = true

	cases := []struct {
		name      string
		id        *iam.Identity
		action    iam.Action
		bucket    *catalog.Bucket
		suspended bool
		allow     bool
	}{
		{"root anything", root, "s3:DeleteBucket", beta, false, true},
		{"root into a suspended tenant", root, "s3:GetObject", beta, true, true},
		{"anonymous", nil, "s3:GetObject", acme, false, false},
		{"admin own tenant's bucket", admin, "s3:PutObject", bob, false, true},
		{"admin other tenant", admin, "s3:GetObject", beta, false, false},
		{"user own bucket", alice, "s3:DeleteObject", acme, false, true},
		{"user colleague's bucket", alice, "s3:GetObject", bob, false, false},
		{"user other tenant", alice, "s3:GetObject", beta, false, false},
		{"user creates a bucket", alice, iam.ActionCreateBucket, nil, false, true},
		{"suspended user", &suspended, "s3:GetObject", acme, false, false},
		{"bucket of a suspended tenant", alice, "s3:GetObject", acme, true, false},
		{"app read-only reads", app(true), "s3:GetObject", acme, false, true},
		{"app read-only lists", app(true), "s3:ListBucket", acme, false, true},
		{"app read-only writes", app(true), "s3:PutObject", acme, false, false},
		{"app read-write writes", app(false), "s3:PutObject", acme, false, true},
		{"app outside its buckets", app(false), "s3:GetObject", bob, false, false},
		{"app creates a bucket", app(false), iam.ActionCreateBucket, nil, false, false},
		{"app deletes its bucket", app(false), iam.ActionDeleteBucket, acme, false, false},
		{"app puts its bucket's policy", app(false), "s3:PutBucketPolicy", acme, false, false},
		{"app deletes its bucket's policy", app(false), "s3:DeleteBucketPolicy", acme, false, false},
		{"app sets its bucket's ACL", app(false), "s3:PutBucketAcl", acme, false, false},
		{"app lifts its bucket's public access block", app(false), "s3:PutBucketPublicAccessBlock", acme, false, false},
		{"app changes its bucket's ownership", app(false), "s3:PutBucketOwnershipControls", acme, false, false},
		{"app reads its bucket's ACL", app(true), "s3:GetBucketAcl", acme, false, true},
		{"app sets an object's ACL", app(false), "s3:PutObjectAcl", acme, false, true},
		{"app lists its buckets", app(true), iam.ActionListAllMyBuckets, nil, false, true},
	}
	for _, c := range cases {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: c.bucket, BucketSuspended: c.suspended, Access: enforced})
		if (err == nil) != c.allow {
			t.Errorf("%s: Authorize = %v, want allow %v", c.name, err, c.allow)
		}
		if err != nil && !errors.Is(err, iam.ErrAccessDenied) {
			t.Errorf("%s: error %v is not ErrAccessDenied", c.name, err)
		}
	}
}

func TestAuthorizeAdmin(t *testing.T) {
	admin := &iam.Identity{Tenant: "acme", Role: catalog.RoleAdmin}
	user := &iam.Identity{Tenant: "acme", Role: catalog.RoleUser}
	appOfAdmin := &iam.Identity{Tenant: "acme", Role: catalog.RoleAdmin, App: &iam.AppLimits{}}
	for _, c := range []struct {
		id     *iam.Identity
		tenant string
		allow  bool
	}{
		{&iam.Identity{Root: true}, "", true}, {&iam.Identity{Root: true}, "beta", true},
		{admin, "acme", true}, {admin, "beta", false}, {admin, "", false},
		{user, "acme", false}, {appOfAdmin, "acme", false}, {nil, "acme", false},
	} {
		if err := iam.AuthorizeAdmin(c.id, c.tenant); (err == nil) != c.allow {
			t.Errorf("AuthorizeAdmin(%+v, %q) = %v, want allow %v", c.id, c.tenant, err, c.allow)
		}
	}
}

// The keyring refuses disabled and expired keys, reports suspension, and
// drops its cache when another node changes the catalog.
func TestKeyringFollowsChanges(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir()+"/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	key, _ := iam.LoadNodeKey(t.TempDir(), "")
	sealer, _ := iam.NewSealer(key)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.CreateTenant(ctx, catalog.Tenant{Name: "acme", Status: catalog.TenantActive}))
	must(store.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "alice", Role: catalog.RoleUser, CanonicalID: "c"}))
	put := func(ak string, expires time.Time) {
		must(store.PutAccessKey(ctx, catalog.AccessKey{AccessKey: ak, SecretSealed: sealer.Seal("s-"+ak, ak), Owner: "c",
			Tenant: "acme", User: "alice", Kind: catalog.KeyAppCred, Buckets: []string{"b"}, Expires: expires}))
	}
	put("AK1", time.Time{})
	put("AKOLD", time.Now().Add(-time.Second))

	kr := iam.NewKeyring(store, sealer, time.Hour, nil) // only Watch or Flush can refresh it
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go kr.Watch(wctx, 20*time.Millisecond)

	secret, id, err := kr.Lookup(ctx, "AK1")
	must(err)
	if secret != "s-AK1" || id.Tenant != "acme" || id.Role != catalog.RoleUser || id.App == nil || id.App.Buckets[0] != "b" || id.Suspended {
		t.Fatalf("Lookup = %q %+v", secret, id)
	}
	if _, _, err := kr.Lookup(ctx, "AKOLD"); !errors.Is(err, iam.ErrUnknownKey) {
		t.Fatalf("expired key: %v", err)
	}
	// Changes made straight in the catalog, as another node would.
	must(store.SetTenantStatus(ctx, "acme", catalog.TenantSuspended))
	eventually(t, func() bool { _, id, err := kr.Lookup(ctx, "AK1"); return err == nil && id.Suspended })
	must(store.UpdateAccessKey(ctx, "AK1", catalog.KeyDisable, time.Time{}))
	eventually(t, func() bool { _, _, err := kr.Lookup(ctx, "AK1"); return errors.Is(err, iam.ErrUnknownKey) })
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 2s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ACLs grant after ownership, roles and policy, only while enabled, and
// public grants only while the public access block lets them; a public
// policy grants outside the bucket's tenant only while public buckets are
// not restricted.
func TestAuthorizeACLsAndBlocks(t *testing.T) {
	b := &catalog.Bucket{Name: "acme-data", Owner: "c-alice", Tenant: "acme"}
	carl := &iam.Identity{Tenant: "beta", User: "carl", CanonicalID: "c-carl"}
	cy := &iam.Identity{Tenant: "acme", User: "cy", CanonicalID: "c-cy"}
	readCarl := iam.ACL{Owner: b.Owner, Grants: []iam.Grant{{Type: iam.GranteeUser, ID: carl.CanonicalID, Permission: iam.PermRead}}}
	publicRead, _ := iam.CannedACL("public-read", b.Owner, "")
	public, err := bucketpolicy.Parse([]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-data/*"}]}`), "acme-data")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		id        *iam.Identity
		action    iam.Action
		access    iam.BucketAccess
		objectACL *iam.ACL
		want      error
	}{
		{"bucket READ lists", carl, "s3:ListBucket", iam.BucketAccess{ACL: readCarl}, nil, nil},
		{"bucket READ does not write", carl, "s3:PutObject", iam.BucketAccess{ACL: readCarl}, nil, iam.ErrAccessDenied},
		{"object read asks for the object's ACL", carl, "s3:GetObject", iam.BucketAccess{ACL: readCarl}, nil, iam.ErrNeedObjectACL},
		{"object ACL grants the read", carl, "s3:GetObject", iam.BucketAccess{}, &readCarl, nil},
		{"object ACL for someone else", cy, "s3:GetObject", iam.BucketAccess{}, &readCarl, iam.ErrAccessDenied},
		{"ACLs disabled", carl, "s3:ListBucket", iam.BucketAccess{ACL: readCarl, Ownership: iam.OwnerEnforced}, nil, iam.ErrAccessDenied},
		{"public ACL, anonymous", nil, "s3:ListBucket", iam.BucketAccess{ACL: publicRead}, nil, nil},
		{"public ACL ignored", nil, "s3:ListBucket", iam.BucketAccess{ACL: publicRead, Block: iam.PublicAccessBlock{IgnorePublicACLs: true}}, nil, iam.ErrAccessDenied},
		{"named grant survives IgnorePublicAcls", carl, "s3:ListBucket", iam.BucketAccess{ACL: readCarl, Block: iam.BlockAll}, nil, nil},
		{"unmapped action", carl, "s3:PutBucketPolicy", iam.BucketAccess{ACL: readCarl}, nil, iam.ErrAccessDenied},
		{"public policy, anonymous", nil, "s3:GetObject", iam.BucketAccess{Policy: public, Ownership: iam.OwnerEnforced}, nil, nil},
		{"public policy restricted", nil, "s3:GetObject", iam.BucketAccess{Policy: public, Ownership: iam.OwnerEnforced, Block: iam.PublicAccessBlock{RestrictPublicBuckets: true}}, nil, iam.ErrAccessDenied},
		{"restricted, other tenant", carl, "s3:GetObject", iam.BucketAccess{Policy: public, Ownership: iam.OwnerEnforced, Block: iam.PublicAccessBlock{RestrictPublicBuckets: true}}, nil, iam.ErrAccessDenied},
		{"restricted, same tenant", cy, "s3:GetObject", iam.BucketAccess{Policy: public, Ownership: iam.OwnerEnforced, Block: iam.PublicAccessBlock{RestrictPublicBuckets: true}}, nil, nil},
	}
	for _, c := range cases {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: b, Key: "k", Access: &c.access, ObjectACL: c.objectACL})
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%s: Authorize = %v, want %v", c.name, err, c.want)
		}
	}
}

// A tenant admin, like an AWS account's root user, may always read,
// replace and delete its buckets' policies, even under a policy that
// denies everything to everyone: no policy locks its owner out. The
// same policy still binds the admin's other actions, the tenant's other
// users (the bucket's owner included), the admin's application
// credentials and other tenants' admins.
func TestPolicyCannotLockOutTenantAdmin(t *testing.T) {
	b := &catalog.Bucket{Name: "acme-data", Owner: "c-alice", Tenant: "acme"}
	denyAll, err := bucketpolicy.Parse([]byte(`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::acme-data","arn:aws:s3:::acme-data/*"]}]}`), "acme-data")
	if err != nil {
		t.Fatal(err)
	}
	ann := &iam.Identity{Tenant: "acme", User: "ann", Role: catalog.RoleAdmin, CanonicalID: "c-ann"}
	annApp := *ann
	annApp.App = &iam.AppLimits{Buckets: []string{"acme-data"}}
	alice := &iam.Identity{Tenant: "acme", User: "alice", Role: catalog.RoleUser, CanonicalID: "c-alice"}
	betaAdmin := &iam.Identity{Tenant: "beta", User: "bo", Role: catalog.RoleAdmin, CanonicalID: "c-bo"}
	for _, c := range []struct {
		id     *iam.Identity
		action iam.Action
		allow  bool
	}{
		{ann, "s3:GetBucketPolicy", true}, {ann, "s3:PutBucketPolicy", true}, {ann, "s3:DeleteBucketPolicy", true},
		{ann, "s3:GetObject", false}, {ann, "s3:PutBucketAcl", false},
		{alice, "s3:GetBucketPolicy", false}, {alice, "s3:DeleteBucketPolicy", false},
		{&annApp, "s3:GetBucketPolicy", false},
		{betaAdmin, "s3:DeleteBucketPolicy", false},
	} {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: b, Access: &iam.BucketAccess{Policy: denyAll, Ownership: iam.OwnerEnforced}})
		if (err == nil) != c.allow {
			t.Errorf("%s/%s %s under a deny-all policy: %v, want allow %v", c.id.Tenant, c.id.User, c.action, err, c.allow)
		}
	}
}
