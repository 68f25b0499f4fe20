package s3_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
)

// A gateway with two platforms: its own disk ("local", the default) and
// another Ostium on loopback as an S3 platform ("remote", a bucket per
// tenant). Tenants and buckets are placed on either; objects stay
// readable where they were written; while the remote platform is down,
// requests that need it get 503 ServiceUnavailable with Retry-After and
// nothing is half-written.
func TestPlatformsPlacementAndOutage(t *testing.T) {
	ctx := context.Background()
	remote := nodetest.Start(t, nodetest.Options{})
	gw := nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.Platforms = map[string]platform.Spec{
			"local": {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			"remote": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: remote.URL, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey,
				PathStyle: true, Layout: s3blob.LayoutBucketPerTenant, Bucket: "ostium", Retries: -1, Timeout: time.Second, ETagIsMD5: true}},
		}
	}})
	ad := admin.NewClient(gw.URL, nodetest.AccessKey, nodetest.SecretKey, gw.Client())
	do := func(method, path string, in, out any) {
		t.Helper()
		if err := ad.Do(ctx, method, path, in, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	do("POST", "/tenants", map[string]string{"name": "acme", "platform": "remote"}, nil)
	do("POST", "/tenants/acme/users", map[string]string{"name": "bob"}, nil)
	var k admin.Key
	do("POST", "/tenants/acme/users/bob/keys", nil, &k)
	bob := s3.New(client(t, gw, gw.URL, false, k.AccessKey, k.SecretKey).Options(), func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	direct := client(t, remote, remote.URL, false) // the platform, as its root sees it
	onRemote := func() int {
		t.Helper()
		out, err := direct.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("ostium-acme")})
		if err != nil {
			t.Fatalf("list the platform's bucket of acme (made at onboarding): %v", err)
		}
		return len(out.Contents)
	}
	if n := onRemote(); n != 0 {
		t.Fatalf("%d blobs on the platform before any write", n)
	}
	if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("photos")}); err != nil {
		t.Fatal(err)
	}
	big := func(seed uint64) []byte { return randBytes(1<<20, seed) } // past the inline limit: a blob
	// The ETag is the platform's MD5 (etag_is_md5): the same as hashing.
	if out := put(t, bob, "photos", "a", big(1)); *out.ETag != md5hex(big(1)) {
		t.Fatalf("ETag %s, want the MD5 of the body", *out.ETag)
	}
	if n := onRemote(); n != 1 {
		t.Fatalf("after a PUT by acme: %d blobs on its platform, want 1", n)
	}
	_, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("photos"), Key: aws.String("bad"), Body: bytes.NewReader(big(9)),
		ContentMD5: aws.String("1B2M2Y8AsgTpgAmY7PhCfg==")})
	wantCode(t, err, "BadDigest")
	if n := onRemote(); n != 1 {
		t.Fatalf("a PUT refused for its Content-MD5 left its blob on the platform (%d blobs)", n)
	}
	// acme moves to the local platform: new blobs go there, old ones stay
	// readable where they are.
	do("PUT", "/tenants/acme/platform", map[string]string{"platform": "local"}, nil)
	put(t, bob, "photos", "b", big(2))
	if n := onRemote(); n != 1 {
		t.Fatalf("after moving acme to local: %d blobs on the remote platform, want still 1", n)
	}
	// The bucket alone goes back to the remote platform.
	do("PUT", "/buckets/photos/platform", map[string]string{"platform": "remote"}, nil)
	put(t, bob, "photos", "c", big(3))
	if n := onRemote(); n != 2 {
		t.Fatalf("after placing photos on remote: %d blobs there, want 2", n)
	}
	for i, key := range []string{"a", "b", "c"} {
		if !bytes.Equal(get(t, bob, "photos", key), big(uint64(i+1))) {
			t.Fatalf("%s reads back different", key)
		}
	}
	if err := ad.Do(ctx, "PUT", "/buckets/photos/platform", map[string]string{"platform": "nowhere"}, nil); err == nil {
		t.Fatal("placing a bucket on an unknown platform succeeded")
	}

	// The remote platform goes away.
	remote.Close()
	within(t, 10*time.Second, func() bool { return ready(t, gw)["remote"] != "ok" })
	if ready(t, gw)["local"] != "ok" {
		t.Fatal("the local platform is reported down too")
	}
	_, err = bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("photos"), Key: aws.String("a")})
	wantUnavailable(t, err)
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("photos"), Key: aws.String("d"), Body: bytes.NewReader(big(4))})
	wantUnavailable(t, err)
	if !bytes.Equal(get(t, bob, "photos", "b"), big(2)) {
		t.Fatal("an object on the local platform became unreadable")
	}
	out, err := bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("photos")})
	if err != nil || len(out.Contents) != 3 {
		t.Fatalf("listing after the failed PUT: %+v, %v (want a, b, c)", out, err)
	}
}

// ready returns the platforms' states from the readiness endpoint.
func ready(t *testing.T, srv *nodetest.Server) map[string]string {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Platforms map[string]string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("readiness: %d, %v", resp.StatusCode, err)
	}
	return body.Platforms
}

func wantUnavailable(t *testing.T, err error) {
	t.Helper()
	wantCode(t, err, "ServiceUnavailable")
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.Response.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After: %v", err)
	}
}

// A platform's inline_max decides where small objects live: in the
// catalog row (the default, up to 32 KiB) or, with inline_max 0, on the
// platform like any other object.
func TestPlatformInlineMax(t *testing.T) {
	ctx := context.Background()
	remote := nodetest.Start(t, nodetest.Options{})
	spec := func(bucket string, inline *int64) platform.Spec {
		return platform.Spec{Type: platform.TypeS3, InlineMax: inline, S3: s3blob.Config{Endpoint: remote.URL,
			AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey, PathStyle: true, Bucket: bucket}}
	}
	zero := int64(0)
	gw := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.Platforms = map[string]platform.Spec{"inline": spec("inline", nil), "direct": spec("direct", &zero)}
		c.DefaultPlatform = "inline"
	}})
	root, direct := client(t, gw, gw.URL, false), client(t, remote, remote.URL, false)
	onPlatform := func(bucket string) int {
		t.Helper()
		out, err := direct.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		if err != nil {
			return 0 // made on the first blob
		}
		return len(out.Contents)
	}
	ad := admin.NewClient(gw.URL, nodetest.AccessKey, nodetest.SecretKey, gw.Client())
	for _, b := range []string{"small-inline", "small-direct"} {
		if _, err := root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ad.Do(ctx, "PUT", "/buckets/small-direct/platform", map[string]string{"platform": "direct"}, nil); err != nil {
		t.Fatal(err)
	}
	for i, size := range []int{1, 4 << 10, 32 << 10} {
		for _, b := range []string{"small-inline", "small-direct"} {
			body := randBytes(size, uint64(i))
			put(t, root, b, "k"+string(rune('a'+i)), body)
			if !bytes.Equal(get(t, root, b, "k"+string(rune('a'+i))), body) {
				t.Fatalf("%s: %d bytes read back different", b, size)
			}
		}
	}
	if n := onPlatform("inline"); n != 0 {
		t.Errorf("%d objects of at most 32 KiB reached the platform with the default inline_max, want 0", n)
	}
	if n := onPlatform("direct"); n != 3 {
		t.Errorf("%d objects on the platform with inline_max 0, want all 3", n)
	}
	put(t, root, "small-inline", "big", randBytes(32<<10+1, 9))
	if n := onPlatform("inline"); n != 1 {
		t.Errorf("an object past 32 KiB: %d on the platform, want 1", n)
	}
}
