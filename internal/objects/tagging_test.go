package objects

import (
	"bytes"
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob/memory"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/testenv"
)

// readCounter is a catalog that counts the object versions read.
type readCounter struct {
	catalog.Store
	reads atomic.Int64
}

func (c *readCounter) GetObject(ctx context.Context, bucket, key, version string) (catalog.Object, error) {
	c.reads.Add(1)
	return c.Store.GetObject(ctx, bucket, key, version)
}

func (c *readCounter) SetObjectTags(ctx context.Context, bucket, key, version string, tags map[string]string, opt catalog.ChangeOptions) error {
	return c.Store.(catalog.ObjectTags).SetObjectTags(ctx, bucket, key, version, tags, opt)
}

func openCatalog(t *testing.T) catalog.Store {
	t.Helper()
	ctx := context.Background()
	var cat catalog.Store
	var err error
	if u := testenv.CatalogURL(t); u != "" {
		cat, err = postgres.Open(ctx, u, 4)
	} else {
		cat, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// A policy that tests an object's tags has the object read once, for the
// decision and the operation together; a write that sets tags reads
// nothing (the object it replaces has no say); and a bucket whose policy
// tests no tags reads only what the operation reads.
func TestTagDecisionsReadOnce(t *testing.T) {
	ctx := context.Background()
	cat := &readCounter{Store: openCatalog(t)}
	sealer, err := iam.NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	svc := New(cat, memory.New(), iam.NewKeyring(cat, sealer, time.Minute, nil), Options{})
	docs := map[string]string{
		"tagged": `{"Statement":[
		{"Effect":"Allow","Principal":{"AWS":"beta"},"Action":["s3:GetObject","s3:GetObjectTagging"],"Resource":"arn:aws:s3:::tagged/*",
		 "Condition":{"StringEquals":{"s3:ExistingObjectTag/Class":"public"}}},
		{"Effect":"Allow","Principal":{"AWS":"beta"},"Action":["s3:PutObject","s3:PutObjectTagging"],"Resource":"arn:aws:s3:::tagged/*",
		 "Condition":{"StringEquals":{"s3:RequestObjectTag/Class":"public"}}}]}`,
		"plain": `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"beta"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::plain/*"}]}`,
	}
	for name, doc := range docs {
		b := catalog.Bucket{Name: name, Owner: "id-owner", Region: "us-east-1", CreatedAt: time.Now(),
			Settings: catalog.Settings{Ownership: iam.OwnerEnforced, Policy: iam.EncodePolicy([]byte(doc), map[string]string{"beta": "id-beta"})}}
		if err := cat.CreateBucket(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	root := &iam.Identity{Root: true, CanonicalID: "id-root"}
	carl := &iam.Identity{Tenant: "beta", User: "carl", Role: catalog.RoleUser, CanonicalID: "id-carl", TenantID: "id-beta"}
	write := func(id *iam.Identity, bucket, key string, tags map[string]string) error {
		_, err := svc.PutObject(ctx, id, PutInput{Bucket: bucket, Key: key, Meta: catalog.Meta{Tags: tags},
			Payload: Payload{Body: bytes.NewReader([]byte("data")), Size: 4}})
		return err
	}
	for _, w := range []struct{ bucket, key, class string }{{"tagged", "pub", "public"}, {"tagged", "priv", "private"}, {"plain", "k", "public"}} {
		if err := write(root, w.bucket, w.key, map[string]string{"Class": w.class}); err != nil {
			t.Fatal(err)
		}
	}
	reads := func(what string, want int64, fn func() error, wantErr error) {
		t.Helper()
		cat.reads.Store(0)
		if err := fn(); err != wantErr && !(wantErr != nil && err != nil && err.Error() == wantErr.Error()) {
			t.Fatalf("%s: %v, want %v", what, err, wantErr)
		}
		if got := cat.reads.Load(); got != want {
			t.Errorf("%s read the object %d times, want %d", what, got, want)
		}
	}
	get := func(bucket, key string) func() error {
		return func() error {
			r, err := svc.GetObject(ctx, carl, GetInput{Bucket: bucket, Key: key}, true)
			if err == nil && r.TagCount != 1 && bucket == "tagged" {
				t.Errorf("tag count %d", r.TagCount)
			}
			return err
		}
	}
	reads("GET of a tagged object", 1, get("tagged", "pub"), nil)
	reads("GET refused by its tags", 1, get("tagged", "priv"), ErrAccessDenied)
	reads("GET where no tag is tested", 1, get("plain", "k"), nil)
	reads("GetObjectTagging", 1, func() error {
		_, err := svc.GetObjectTagging(ctx, carl, "tagged", "pub", "")
		return err
	}, nil)
	reads("PutObjectTagging", 1, func() error {
		_, err := svc.PutObjectTagging(ctx, carl, "tagged", "pub", "", []Tag{{"Class", "public"}, {"Team", "web"}})
		return err
	}, nil)
	reads("a tagged write", 0, func() error { return write(carl, "tagged", "new", map[string]string{"Class": "public"}) }, nil)
	reads("a write with other tags", 0, func() error { return write(carl, "tagged", "new", map[string]string{"Class": "secret"}) }, ErrAccessDenied)
}
