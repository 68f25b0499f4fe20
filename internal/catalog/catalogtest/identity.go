package catalogtest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// generation returns the identity generation, failing the test on error.
func generation(t *testing.T, s catalog.Store) int64 {
	t.Helper()
	g, err := s.IdentityGeneration(ctx)
	must(t, err)
	return g
}

// advances checks that fn changes the identity generation.
func advances(t *testing.T, s catalog.Store, what string, fn func() error) {
	t.Helper()
	before := generation(t, s)
	must(t, fn())
	if after := generation(t, s); after <= before {
		t.Errorf("%s: identity generation %d -> %d, want it advanced", what, before, after)
	}
}

// Expired keys go, keys that expire later or never stay, and only a pass
// that deletes something moves the identity generation.
func testExpiredAccessKeys(t *testing.T, s catalog.Store) {
	now := time.Now()
	for name, exp := range map[string]time.Time{"EXP-OLD": now.Add(-48 * time.Hour), "EXP-RECENT": now.Add(-time.Hour),
		"EXP-LATER": now.Add(time.Hour), "EXP-NEVER": {}} {
		must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: name, SecretSealed: []byte{1}, Owner: "o1", CreatedAt: now, Expires: exp}))
	}
	var n int
	advances(t, s, "DeleteExpiredAccessKeys", func() (err error) {
		n, err = s.DeleteExpiredAccessKeys(ctx, now.Add(-24*time.Hour))
		return err
	})
	if n != 1 {
		t.Fatalf("deleted %d keys expired a day ago, want 1", n)
	}
	wantErr(t, func() error { _, err := s.GetAccessKey(ctx, "EXP-OLD"); return err }(), catalog.ErrNoSuchAccessKey)
	for _, k := range []string{"EXP-RECENT", "EXP-LATER", "EXP-NEVER"} {
		if _, err := s.GetAccessKey(ctx, k); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	before := generation(t, s)
	if n, err := s.DeleteExpiredAccessKeys(ctx, now.Add(-24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("second pass: %d %v", n, err)
	}
	if after := generation(t, s); after != before {
		t.Errorf("a pass that deleted nothing moved the generation %d -> %d", before, after)
	}
	n, err := s.DeleteExpiredAccessKeys(ctx, now)
	if err != nil || n != 1 {
		t.Fatalf("keys expired by now: %d %v", n, err)
	}
	for _, k := range []string{"EXP-LATER", "EXP-NEVER"} {
		must(t, s.DeleteAccessKey(ctx, k))
	}
}

func testAccessKeys(t *testing.T, s catalog.Store) {
	k := catalog.AccessKey{AccessKey: "AK1", SecretSealed: []byte{0, 1, 2, 0xff}, Owner: "o1", DisplayName: "root", CreatedAt: time.Now()}
	advances(t, s, "PutAccessKey", func() error { return s.PutAccessKey(ctx, k) })
	wantErr(t, s.PutAccessKey(ctx, k), catalog.ErrAccessKeyExists)
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AK0", SecretSealed: []byte{9}, Owner: "o1", CreatedAt: time.Now()}))
	got, err := s.GetAccessKey(ctx, "AK1")
	must(t, err)
	if string(got.SecretSealed) != string(k.SecretSealed) || got.Owner != "o1" || got.DisplayName != "root" ||
		got.User != "root" || got.Kind != catalog.KeyUser || got.Status != catalog.KeyActive || !got.Expires.IsZero() {
		t.Fatalf("GetAccessKey = %+v", got)
	}
	_, err = s.GetAccessKey(ctx, "nope")
	wantErr(t, err, catalog.ErrNoSuchAccessKey)
	ks, err := s.ListAccessKeys(ctx, "", "root")
	must(t, err)
	if len(ks) != 2 || ks[0].AccessKey != "AK0" {
		t.Fatalf("ListAccessKeys = %+v", ks)
	}

	app := catalog.AccessKey{AccessKey: "AK2", SecretSealed: []byte{1}, Owner: "o2", Tenant: "t", User: "u",
		Kind: catalog.KeyAppCred, Buckets: []string{"b1", "b2"}, ReadOnly: true, CreatedAt: time.Now()}
	must(t, s.PutAccessKey(ctx, app))
	got, err = s.GetAccessKey(ctx, "AK2")
	must(t, err)
	if got.Kind != catalog.KeyAppCred || !got.ReadOnly || fmt.Sprint(got.Buckets) != "[b1 b2]" || got.Tenant != "t" || got.User != "u" {
		t.Fatalf("app credential = %+v", got)
	}
	exp := time.Now().Add(5 * time.Minute).UTC().Truncate(time.Microsecond)
	advances(t, s, "UpdateAccessKey", func() error { return s.UpdateAccessKey(ctx, "AK2", catalog.KeyDisable, exp) })
	got, _ = s.GetAccessKey(ctx, "AK2")
	if got.Status != catalog.KeyDisable || !got.Expires.Equal(exp) {
		t.Fatalf("after update: status %q expires %v, want disabled %v", got.Status, got.Expires, exp)
	}
	wantErr(t, s.UpdateAccessKey(ctx, "nope", catalog.KeyActive, time.Time{}), catalog.ErrNoSuchAccessKey)
	advances(t, s, "DeleteAccessKey", func() error { return s.DeleteAccessKey(ctx, "AK2") })
	wantErr(t, s.DeleteAccessKey(ctx, "AK2"), catalog.ErrNoSuchAccessKey)
	_, err = s.GetAccessKey(ctx, "AK2")
	wantErr(t, err, catalog.ErrNoSuchAccessKey)
}

func tenant(t *testing.T, s catalog.Store, name string) {
	t.Helper()
	must(t, s.CreateTenant(ctx, catalog.Tenant{Name: name, DisplayName: "T " + name, Status: catalog.TenantActive, CanonicalID: "c-" + name, CreatedAt: time.Now()}))
}

func testTenants(t *testing.T, s catalog.Store) {
	advances(t, s, "CreateTenant", func() error {
		return s.CreateTenant(ctx, catalog.Tenant{Name: "acme", DisplayName: "Acme", Status: catalog.TenantActive, CanonicalID: "c-acme", CreatedAt: time.Now()})
	})
	wantErr(t, s.CreateTenant(ctx, catalog.Tenant{Name: "acme", Status: catalog.TenantActive}), catalog.ErrTenantExists)
	tenant(t, s, "beta")
	got, err := s.GetTenant(ctx, "acme")
	must(t, err)
	if got.DisplayName != "Acme" || got.Status != catalog.TenantActive || got.CanonicalID != "c-acme" || got.CreatedAt.IsZero() {
		t.Fatalf("GetTenant = %+v", got)
	}
	_, err = s.GetTenant(ctx, "nope")
	wantErr(t, err, catalog.ErrNoSuchTenant)
	ts, err := s.ListTenants(ctx)
	must(t, err)
	if len(ts) != 2 || ts[0].Name != "acme" || ts[1].Name != "beta" {
		t.Fatalf("ListTenants = %+v", ts)
	}
	advances(t, s, "SetTenantStatus", func() error { return s.SetTenantStatus(ctx, "acme", catalog.TenantSuspended) })
	got, _ = s.GetTenant(ctx, "acme")
	if got.Status != catalog.TenantSuspended {
		t.Fatalf("status = %q after suspend", got.Status)
	}
	wantErr(t, s.SetTenantStatus(ctx, "nope", catalog.TenantActive), catalog.ErrNoSuchTenant)
	advances(t, s, "SetTenantPlatform", func() error { return s.SetTenantPlatform(ctx, "acme", "ceph") })
	if got, _ = s.GetTenant(ctx, "acme"); got.Platform != "ceph" || got.Status != catalog.TenantSuspended {
		t.Fatalf("after SetTenantPlatform: %+v", got)
	}
	wantErr(t, s.SetTenantPlatform(ctx, "nope", "ceph"), catalog.ErrNoSuchTenant)
	advances(t, s, "SetTenantEncryption", func() error { return s.SetTenantEncryption(ctx, "acme", "sse") })
	if got, _ = s.GetTenant(ctx, "acme"); got.Encryption != "sse" || got.Platform != "ceph" {
		t.Fatalf("after SetTenantEncryption: %+v", got)
	}
	wantErr(t, s.SetTenantEncryption(ctx, "nope", "sse"), catalog.ErrNoSuchTenant)

	// The provider's settings: unset, set, replaced, unset again.
	if v, err := s.ProviderSetting(ctx, catalog.ProviderEncryption); err != nil || v != "" {
		t.Fatalf("unset provider setting: %q %v", v, err)
	}
	for _, v := range []string{"sse-a", "sse-b", ""} {
		advances(t, s, "SetProviderSetting", func() error { return s.SetProviderSetting(ctx, catalog.ProviderEncryption, v) })
		if got, err := s.ProviderSetting(ctx, catalog.ProviderEncryption); err != nil || got != v {
			t.Fatalf("provider setting after setting %q: %q %v", v, got, err)
		}
	}
	// A setting made once: the first value stays, and every later caller
	// (another node starting at once) is told it.
	if v, err := s.InitProviderSetting(ctx, catalog.ProviderNodeKeyCheck, "check-1"); err != nil || v != "check-1" {
		t.Fatalf("InitProviderSetting on none: %q %v", v, err)
	}
	if v, err := s.InitProviderSetting(ctx, catalog.ProviderNodeKeyCheck, "check-2"); err != nil || v != "check-1" {
		t.Fatalf("InitProviderSetting on one set: %q %v", v, err)
	}
	if v, err := s.ProviderSetting(ctx, catalog.ProviderNodeKeyCheck); err != nil || v != "check-1" {
		t.Fatalf("after InitProviderSetting: %q %v", v, err)
	}
	var wg sync.WaitGroup
	seen := make([]string, 8)
	for i := range seen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.InitProviderSetting(ctx, "race", fmt.Sprintf("v%d", i))
			if err != nil {
				t.Errorf("InitProviderSetting at once: %v", err)
			}
			seen[i] = v
		}()
	}
	wg.Wait()
	for _, v := range seen {
		if v != seen[0] || v == "" {
			t.Fatalf("callers at once were told different values: %q", seen)
		}
	}
	if _, err := s.InitProviderSetting(ctx, "empty", ""); err == nil {
		t.Fatal("InitProviderSetting took an empty value")
	}

	// A tenant with a bucket cannot go; without, it takes its users,
	// keys and quotas with it.
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "acme-b", Owner: "c-acme", Tenant: "acme", CreatedAt: time.Now()}))
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "alice", Role: catalog.RoleUser, CanonicalID: "c-alice", CreatedAt: time.Now()}))
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AKA", SecretSealed: []byte{1}, Owner: "c-alice", Tenant: "acme", User: "alice", CreatedAt: time.Now()}))
	must(t, s.SetQuota(ctx, catalog.Quota{Tenant: "acme", MaxBytes: 10}))
	wantErr(t, s.DeleteTenant(ctx, "acme"), catalog.ErrTenantNotEmpty)
	must(t, s.DeleteBucket(ctx, "acme-b"))
	advances(t, s, "DeleteTenant", func() error { return s.DeleteTenant(ctx, "acme") })
	wantErr(t, s.DeleteTenant(ctx, "acme"), catalog.ErrNoSuchTenant)
	_, err = s.GetUser(ctx, "acme", "alice")
	wantErr(t, err, catalog.ErrNoSuchUser)
	_, err = s.GetAccessKey(ctx, "AKA")
	wantErr(t, err, catalog.ErrNoSuchAccessKey)
	if qs, _ := s.ListQuotas(ctx, "acme"); len(qs) != 0 {
		t.Fatalf("quotas survive their tenant: %+v", qs)
	}
}

func testUsers(t *testing.T, s catalog.Store) {
	wantErr(t, s.CreateUser(ctx, catalog.User{Tenant: "nope", Name: "x", Role: catalog.RoleUser}), catalog.ErrNoSuchTenant)
	tenant(t, s, "acme")
	tenant(t, s, "beta")
	u := catalog.User{Tenant: "acme", Name: "bob", Role: catalog.RoleAdmin, CanonicalID: "c-bob", CreatedAt: time.Now()}
	advances(t, s, "CreateUser", func() error { return s.CreateUser(ctx, u) })
	wantErr(t, s.CreateUser(ctx, u), catalog.ErrUserExists)
	// The same name in another tenant is another user.
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "beta", Name: "bob", Role: catalog.RoleUser, CanonicalID: "c-bob2", CreatedAt: time.Now()}))
	must(t, s.CreateUser(ctx, catalog.User{Tenant: "acme", Name: "amy", Role: catalog.RoleUser, CanonicalID: "c-amy", Email: "amy@acme.test", CreatedAt: time.Now()}))
	wantErr(t, s.CreateUser(ctx, catalog.User{Tenant: "beta", Name: "amy2", Role: catalog.RoleUser, CanonicalID: "c-amy2", Email: "amy@acme.test"}), catalog.ErrEmailExists)
	byMail, err := s.UserByEmail(ctx, "amy@acme.test")
	must(t, err)
	if byMail.Name != "amy" || byMail.Tenant != "acme" || byMail.CanonicalID != "c-amy" || byMail.Email != "amy@acme.test" {
		t.Fatalf("UserByEmail = %+v", byMail)
	}
	for _, none := range []string{"", "nobody@acme.test"} {
		_, err := s.UserByEmail(ctx, none)
		wantErr(t, err, catalog.ErrNoSuchUser)
	}
	// An address moves only to a user who does not share it with another.
	wantErr(t, s.SetUserEmail(ctx, "beta", "bob", "amy@acme.test"), catalog.ErrEmailExists)
	wantErr(t, s.SetUserEmail(ctx, "beta", "nobody", "x@beta.test"), catalog.ErrNoSuchUser)
	must(t, s.SetUserEmail(ctx, "acme", "amy", "amy@acme.test")) // her own: no change
	advances(t, s, "SetUserEmail", func() error { return s.SetUserEmail(ctx, "acme", "amy", "amy@new.test") })
	if u, err := s.UserByEmail(ctx, "amy@new.test"); err != nil || u.Name != "amy" {
		t.Fatalf("UserByEmail after SetUserEmail = %+v, %v", u, err)
	}
	_, err = s.UserByEmail(ctx, "amy@acme.test")
	wantErr(t, err, catalog.ErrNoSuchUser)
	must(t, s.SetUserEmail(ctx, "beta", "bob", "amy@acme.test")) // free again
	must(t, s.SetUserEmail(ctx, "beta", "bob", ""))
	if u, _ := s.GetUser(ctx, "beta", "bob"); u.Email != "" {
		t.Fatalf("cleared address: %+v", u)
	}
	must(t, s.SetUserEmail(ctx, "acme", "amy", "amy@acme.test"))
	got, err := s.GetUser(ctx, "acme", "bob")
	must(t, err)
	if got.Role != catalog.RoleAdmin || got.CanonicalID != "c-bob" {
		t.Fatalf("GetUser = %+v", got)
	}
	us, err := s.ListUsers(ctx, "acme")
	must(t, err)
	if len(us) != 2 || us[0].Name != "amy" || us[1].Name != "bob" {
		t.Fatalf("ListUsers = %+v", us)
	}
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AKB", SecretSealed: []byte{1}, Owner: "c-bob", Tenant: "acme", User: "bob", CreatedAt: time.Now()}))
	must(t, s.PutAccessKey(ctx, catalog.AccessKey{AccessKey: "AKB2", SecretSealed: []byte{1}, Owner: "c-bob2", Tenant: "beta", User: "bob", CreatedAt: time.Now()}))
	ks, _ := s.ListAccessKeys(ctx, "acme", "bob")
	if len(ks) != 1 || ks[0].AccessKey != "AKB" {
		t.Fatalf("ListAccessKeys(acme, bob) = %+v", ks)
	}
	advances(t, s, "DeleteUser", func() error { return s.DeleteUser(ctx, "acme", "bob") })
	wantErr(t, s.DeleteUser(ctx, "acme", "bob"), catalog.ErrNoSuchUser)
	_, err = s.GetAccessKey(ctx, "AKB")
	wantErr(t, err, catalog.ErrNoSuchAccessKey)
	if _, err := s.GetAccessKey(ctx, "AKB2"); err != nil {
		t.Fatalf("deleting acme/bob took beta/bob's key: %v", err)
	}
}

func testQuotas(t *testing.T, s catalog.Store) {
	wantErr(t, s.SetQuota(ctx, catalog.Quota{Tenant: "nope", MaxBytes: 1}), catalog.ErrNoSuchTenant)
	tenant(t, s, "acme")
	must(t, s.SetQuota(ctx, catalog.Quota{Tenant: "acme", MaxBytes: 100, MaxObjects: 10}))
	must(t, s.SetQuota(ctx, catalog.Quota{Tenant: "acme", Bucket: "b", MaxBytes: 5}))
	must(t, s.SetQuota(ctx, catalog.Quota{Tenant: "acme", MaxBytes: 200, MaxObjects: 20})) // replaces
	qs, err := s.ListQuotas(ctx, "acme")
	must(t, err)
	if fmt.Sprint(qs) != "[{acme  200 20 0 0 0} {acme b 5 0 0 0 0}]" {
		t.Fatalf("ListQuotas = %v", qs)
	}
}

func testPurge(t *testing.T, s catalog.Store) {
	bucket(t, s, "p")
	bucket(t, s, "keep")
	var blobs []string
	for i := range 500 + 7 { // more than one batch
		o := put(t, s, object("p", fmt.Sprintf("k%04d", i), 1))
		blobs = append(blobs, o.Parts[0].BlobID)
	}
	kept := put(t, s, object("keep", "k", 1))
	u := catalog.Upload{Bucket: "p", Key: "up", UploadID: "u1", Initiated: time.Now(), StorageClass: "STANDARD"}
	must(t, s.CreateUpload(ctx, u))
	pt := part(1, 5)
	must(t, s.PutPart(ctx, "p", "up", "u1", pt, catalog.Limits{}))
	blobs = append(blobs, pt.BlobID)

	must(t, s.PurgeBucket(ctx, "p"))
	_, err := s.GetBucket(ctx, "p")
	wantErr(t, err, catalog.ErrNoSuchBucket)
	q := map[string]bool{}
	for _, id := range queued(t, s) {
		q[id] = true
	}
	for _, id := range blobs {
		if !q[id] {
			t.Fatalf("blob %s of the purged bucket not queued", id)
		}
	}
	if q[kept.Parts[0].BlobID] {
		t.Fatal("purge queued another bucket's blob")
	}
	if _, err := s.GetObject(ctx, "keep", "k", ""); err != nil {
		t.Fatalf("other bucket's object: %v", err)
	}
}

func testUsageAndLimits(t *testing.T, s catalog.Store) {
	tenant(t, s, "acme")
	for _, b := range []string{"a1", "a2"} {
		must(t, s.CreateBucket(ctx, catalog.Bucket{Name: b, Owner: "o", Tenant: "acme", CreatedAt: time.Now()}))
	}
	bucket(t, s, "other")
	usage := func(u catalog.Usage, err error) string { must(t, err); return fmt.Sprintf("%d/%d", u.Bytes, u.Objects) }

	put(t, s, object("a1", "x", 100))
	put(t, s, object("a1", "y", 50))
	put(t, s, object("a2", "x", 10))
	put(t, s, object("other", "x", 1000))
	put(t, s, object("a1", "x", 70)) // replaces 100
	if got := usage(s.BucketUsage(ctx, "a1")); got != "120/2" {
		t.Fatalf("BucketUsage(a1) = %s, want 120/2", got)
	}
	if got := usage(s.TenantUsage(ctx, "acme")); got != "130/3" {
		t.Fatalf("TenantUsage(acme) = %s, want 130/3", got)
	}
	_, err := s.DeleteObject(ctx, "a1", "y", "", catalog.DeleteOptions{})
	must(t, err)
	if got := usage(s.BucketUsage(ctx, "a1")); got != "70/1" {
		t.Fatalf("after delete: %s, want 70/1", got)
	}

	// Limits: the write that would cross fails and changes nothing.
	lim := catalog.PutOptions{Limits: catalog.Limits{Tenant: "acme", TenantBytes: 100}}
	o := object("a2", "big", 21) // 70 + 10 + 21 > 100
	wantErr(t, s.PutObject(ctx, o, lim), catalog.ErrQuotaExceeded)
	_, err = s.GetObject(ctx, "a2", "big", "")
	wantErr(t, err, catalog.ErrNoSuchObject)
	if got := usage(s.TenantUsage(ctx, "acme")); got != "80/2" {
		t.Fatalf("after refused write: %s, want 80/2", got)
	}
	must(t, s.PutObject(ctx, object("a2", "fits", 20), lim)) // exactly 100
	wantErr(t, s.PutObject(ctx, object("a1", "one-more", 1), lim), catalog.ErrQuotaExceeded)
	// Shrinking an object passes even at the limit; so do other buckets.
	must(t, s.PutObject(ctx, object("a1", "x", 60), lim))
	must(t, s.PutObject(ctx, object("other", "y", 5000), lim))
	objLim := catalog.PutOptions{Limits: catalog.Limits{BucketObjects: 2}}
	wantErr(t, s.PutObject(ctx, object("a2", "third", 0), objLim), catalog.ErrQuotaExceeded)
	must(t, s.PutObject(ctx, object("a2", "fits", 0), objLim)) // a replacement adds no object

	// Multipart completion is checked the same way.
	u := catalog.Upload{Bucket: "a1", Key: "mp", UploadID: "u1", Initiated: time.Now(), StorageClass: "STANDARD"}
	must(t, s.CreateUpload(ctx, u))
	p := part(1, 500)
	must(t, s.PutPart(ctx, "a1", "mp", "u1", p, catalog.Limits{}))
	mo := object("a1", "mp", 500)
	mo.Parts = []catalog.Part{p}
	wantErr(t, s.CompleteUpload(ctx, "u1", mo, lim), catalog.ErrQuotaExceeded)
	if _, err := s.GetUpload(ctx, "a1", "mp", "u1"); err != nil {
		t.Fatalf("a refused completion loses the upload: %v", err)
	}
}

func testSettings(t *testing.T, s catalog.Store) {
	advances(t, s, "CreateBucket", func() error {
		return s.CreateBucket(ctx, catalog.Bucket{Name: "b", Owner: "o", CreatedAt: time.Now(),
			Settings: catalog.Settings{ACL: "acl0", Ownership: "BucketOwnerEnforced", PublicAccessBlock: "pab0"}})
	})
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "gone", Owner: "o", CreatedAt: time.Now()}))
	advances(t, s, "DeleteBucket", func() error { return s.DeleteBucket(ctx, "gone") })
	b, err := s.GetBucket(ctx, "b")
	must(t, err)
	if b.Settings != (catalog.Settings{ACL: "acl0", Ownership: "BucketOwnerEnforced", PublicAccessBlock: "pab0"}) {
		t.Fatalf("settings at creation = %+v", b.Settings)
	}
	advances(t, s, "SetBucketSetting", func() error { return s.SetBucketSetting(ctx, "b", catalog.SettingPolicy, `{"Statement":[]}`) })
	must(t, s.SetBucketSetting(ctx, "b", catalog.SettingACL, "acl1"))
	must(t, s.SetBucketSetting(ctx, "b", catalog.SettingOwnership, ""))
	must(t, s.SetBucketSetting(ctx, "b", catalog.SettingPublicAccessBlock, "pab1"))
	must(t, s.SetBucketSetting(ctx, "b", catalog.SettingPlatform, "ceph"))
	for which, v := range map[catalog.Setting]string{
		catalog.SettingLogging: "log", catalog.SettingVersioning: "Enabled", catalog.SettingObjectLock: "lock",
		catalog.SettingTagging: "tags", catalog.SettingCORS: "cors", catalog.SettingLifecycle: "rules",
		catalog.SettingEncryption: "enc", catalog.SettingReplication: "repl",
	} {
		must(t, s.SetBucketSetting(ctx, "b", which, v))
	}
	listed, err := s.ListBuckets(ctx, catalog.BucketFilter{Owner: "o"})
	must(t, err)
	if len(listed) != 1 || listed[0].Versioning != "Enabled" || listed[0].ObjectLock != "lock" || listed[0].Policy != `{"Statement":[]}` {
		t.Fatalf("ListBuckets does not carry settings: %+v", listed)
	}
	b, _ = s.GetBucket(ctx, "b")
	if b.Settings != (catalog.Settings{ACL: "acl1", Policy: `{"Statement":[]}`, PublicAccessBlock: "pab1", Platform: "ceph",
		Logging: "log", Versioning: "Enabled", ObjectLock: "lock", Tagging: "tags", CORS: "cors", Lifecycle: "rules", Encryption: "enc", Replication: "repl"}) {
		t.Fatalf("settings after changes = %+v", b.Settings)
	}
	wantErr(t, s.SetBucketSetting(ctx, "nope", catalog.SettingACL, "x"), catalog.ErrNoSuchBucket)

	put(t, s, object("b", "k", 1))
	must(t, s.SetObjectACL(ctx, "b", "k", "", "oacl", catalog.ChangeOptions{}))
	o, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if o.Meta.ACL != "oacl" || o.Meta.ContentType != "text/plain" || len(o.Parts) != 1 {
		t.Fatalf("object after SetObjectACL = %+v", o)
	}
	wantErr(t, s.SetObjectACL(ctx, "b", "nope", "", "x", catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
}
