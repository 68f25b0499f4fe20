package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The root's own buckets belong to no tenant, and are metered all the
// same: their storage and traffic are the usage of _provider, which the
// root reads (JSON and CSV) and no tenant does, and no tenant's usage
// holds them.
func TestProviderBucketsAreMetered(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	var ann admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &ann))
	rootKey := admin.Key{AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey}
	for _, b := range []struct {
		k          admin.Key
		name, body string
	}{{rootKey, "provider-photos", "twelve bytes"}, {ann, "acme-photos", "five!"}} {
		cl := s3As(srv, b.k)
		if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.name)}); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b.name), Key: aws.String("k"), Body: strings.NewReader(b.body)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Node.Meter.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	var u admin.Usage
	must(t, c.Do(ctx, "GET", "/tenants/"+admin.ProviderUsage+"/usage", nil, &u))
	if u.Tenant != "_provider" || u.Now != (catalog.Usage{Bytes: 12, Objects: 1}) || len(u.Rows) == 0 {
		t.Fatalf("provider usage = %+v", u)
	}
	var put int64
	for _, r := range u.Rows {
		if r.Bucket != "provider-photos" {
			t.Errorf("the provider's usage has a row of %s", r.Bucket)
		}
		put += r.Put
		if r.ByteHours != 12 {
			t.Errorf("provider storage sample %+v, want 12 byte-hours", r)
		}
	}
	if put != 2 { // CreateBucket and PutObject
		t.Errorf("provider PUT requests %d, want 2", put)
	}
	csv, err := c.Raw(ctx, "GET", "/tenants/_provider/usage?format=csv", nil)
	must(t, err)
	if !strings.Contains(string(csv), "\n_provider,provider-photos,") {
		t.Errorf("provider CSV:\n%s", csv)
	}

	var acme admin.Usage
	must(t, c.Do(ctx, "GET", "/tenants/acme/usage", nil, &acme))
	if acme.Now != (catalog.Usage{Bytes: 5, Objects: 1}) {
		t.Errorf("acme stores %+v, want its 5 bytes only", acme.Now)
	}
	for _, r := range acme.Rows {
		if r.Bucket != "acme-photos" {
			t.Errorf("acme's usage has a row of %s", r.Bucket)
		}
	}
	// A tenant admin reads its own usage, not the provider's.
	a := admin.NewClient(srv.URL, ann.AccessKey, ann.SecretKey, srv.Client())
	must(t, a.Do(ctx, "GET", "/tenants/acme/usage", nil, nil))
	wantCode(t, a.Do(ctx, "GET", "/tenants/_provider/usage", nil, nil), http.StatusForbidden, "AccessDenied")
	// The name is no tenant's.
	wantCode(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "_provider"}, nil), http.StatusBadRequest, "InvalidArgument")
}
