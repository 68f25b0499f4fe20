package s3_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// lifecycleNode starts a node whose lifecycle day lasts a second and
// whose worker passes five times a second, and makes bucket.
func lifecycleNode(t *testing.T, bucket string) (*s3.Client, *nodetest.Server) {
	t.Helper()
	return nodeWithBucket(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.Lifecycle = node.LifecycleConfig{Day: time.Second, Interval: 200 * time.Millisecond}
	}}, bucket)
}

func putLifecycle(t *testing.T, c *s3.Client, bucket string, rules ...types.LifecycleRule) {
	t.Helper()
	_, err := c.PutBucketLifecycleConfiguration(context.Background(), &s3.PutBucketLifecycleConfigurationInput{
		Bucket: &bucket, LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: rules}})
	if err != nil {
		t.Fatalf("put lifecycle: %v", err)
	}
}

func prefixRule(id, prefix string, days int32) types.LifecycleRule {
	return types.LifecycleRule{ID: aws.String(id), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String(prefix)}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(days)}}
}

// exists tells whether key has a current version.
func exists(t *testing.T, c *s3.Client, bucket, key string) bool {
	t.Helper()
	_, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	var nf *types.NotFound
	if errors.As(err, &nf) {
		return false
	}
	if err != nil {
		t.Fatalf("head %s: %v", key, err)
	}
	return true
}

// eventually waits (at most 15 s) for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 15 s: %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLifecycleConfiguration: Put, Get and Delete round trip, AWS's
// errors for what is refused, and 404 NoSuchLifecycleConfiguration.
func TestLifecycleConfiguration(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	_, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: &bucket})
	wantCode(t, err, "NoSuchLifecycleConfiguration")

	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	putLifecycle(t, c, bucket,
		prefixRule("logs", "logs/", 30),
		types.LifecycleRule{ID: aws.String("dated"), Status: types.ExpirationStatusDisabled,
			Filter: &types.LifecycleRuleFilter{And: &types.LifecycleRuleAndOperator{Prefix: aws.String("tmp/"),
				Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}, ObjectSizeGreaterThan: aws.Int64(10)}},
			Expiration: &types.LifecycleExpiration{Date: &date}},
		types.LifecycleRule{ID: aws.String("versions"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
			NoncurrentVersionExpiration:    &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(7), NewerNoncurrentVersions: aws.Int32(3)},
			AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(2)},
			Expiration:                     &types.LifecycleExpiration{ExpiredObjectDeleteMarker: aws.Bool(true)}},
	)
	got, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) != 3 {
		t.Fatalf("rules = %+v", got.Rules)
	}
	r0, r1, r2 := got.Rules[0], got.Rules[1], got.Rules[2]
	if *r0.ID != "logs" || *r0.Filter.Prefix != "logs/" || *r0.Expiration.Days != 30 || r0.Status != types.ExpirationStatusEnabled {
		t.Errorf("rule 0 = %+v", r0)
	}
	if r1.Status != types.ExpirationStatusDisabled || !r1.Expiration.Date.Equal(date) || *r1.Filter.And.Prefix != "tmp/" ||
		*r1.Filter.And.Tags[0].Key != "k" || *r1.Filter.And.ObjectSizeGreaterThan != 10 {
		t.Errorf("rule 1 = %+v", r1)
	}
	if *r2.NoncurrentVersionExpiration.NoncurrentDays != 7 || *r2.NoncurrentVersionExpiration.NewerNoncurrentVersions != 3 ||
		*r2.AbortIncompleteMultipartUpload.DaysAfterInitiation != 2 || !*r2.Expiration.ExpiredObjectDeleteMarker {
		t.Errorf("rule 2 = %+v", r2)
	}

	for _, tc := range []struct {
		name, code string
		rules      []types.LifecycleRule
	}{
		{"zero days", "InvalidArgument", []types.LifecycleRule{prefixRule("r", "", 0)}},
		{"duplicate ids", "InvalidArgument", []types.LifecycleRule{prefixRule("r", "a", 1), prefixRule("r", "b", 1)}},
		{"no action", "InvalidRequest", []types.LifecycleRule{{ID: aws.String("r"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{}}}},
		{"abort with tags", "InvalidRequest", []types.LifecycleRule{{ID: aws.String("r"), Status: types.ExpirationStatusEnabled,
			Filter:                         &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("k"), Value: aws.String("v")}},
			AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(1)}}}},
		// An archive class: nothing here restores it (docs/storage-classes.md).
		{"transition to an archive", "InvalidStorageClass", []types.LifecycleRule{{ID: aws.String("r"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
			Transitions: []types.Transition{{Days: aws.Int32(30), StorageClass: types.TransitionStorageClassGlacier}}}}},
		// A class with no platform of its own on this node.
		{"transition to no platform", "InvalidStorageClass", []types.LifecycleRule{{ID: aws.String("r"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
			Transitions: []types.Transition{{Days: aws.Int32(30), StorageClass: types.TransitionStorageClassStandardIa}}}}},
	} {
		_, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
			Bucket: &bucket, LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: tc.rules}})
		if apiCode(err) != tc.code {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.code)
		}
	}
	// A refused configuration left the last one in place.
	if got, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: &bucket}); err != nil || len(got.Rules) != 3 {
		t.Fatalf("after refusals: %v, %v", got, err)
	}

	// AWS requires Content-MD5 or a checksum of the document.
	body := `<LifecycleConfiguration><Rule><ID>r</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`
	resp := signedDo(t, srv, "PUT", "/"+bucket+"?lifecycle", body, nil)
	if resp.StatusCode != 400 || !strings.Contains(resp.body, "<Code>InvalidRequest</Code>") {
		t.Errorf("without Content-MD5: %d %s", resp.StatusCode, resp.body)
	}
	resp = signedDo(t, srv, "PUT", "/"+bucket+"?lifecycle", body, http.Header{"Content-Md5": {md5b64([]byte(body))}})
	if resp.StatusCode != 200 {
		t.Errorf("with Content-MD5: %d %s", resp.StatusCode, resp.body)
	}

	if _, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: &bucket})
	wantCode(t, err, "NoSuchLifecycleConfiguration")
}

type response struct {
	*http.Response
	body string
}

// signedDo sends a root-signed request with body as it is (no checksum
// the SDK would add).
func signedDo(t *testing.T, srv *nodetest.Server, method, path, body string, header http.Header) response {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	for k, vs := range header {
		req.Header[k] = vs
	}
	sum := sha256.Sum256([]byte(body))
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	creds := aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hash, "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp, string(b)}
}

// TestLifecycleExpiration: with a day of a second, current objects
// expire by prefix and by size, a disabled rule does nothing, and PUT,
// HEAD, CopyObject and CompleteMultipartUpload say when an object expires (x-amz-expiration), as
// AWS does.
func TestLifecycleExpiration(t *testing.T) {
	const bucket = "lc-expire"
	c, srv := lifecycleNode(t, bucket)
	ctx := context.Background()
	putLifecycle(t, c, bucket,
		prefixRule("tmp", "tmp/", 1),
		types.LifecycleRule{ID: aws.String("large"), Status: types.ExpirationStatusEnabled,
			Filter:     &types.LifecycleRuleFilter{And: &types.LifecycleRuleAndOperator{Prefix: aws.String("size/"), ObjectSizeGreaterThan: aws.Int64(100)}},
			Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
		types.LifecycleRule{ID: aws.String("off"), Status: types.ExpirationStatusDisabled,
			Filter: &types.LifecycleRuleFilter{Prefix: aws.String("keep/")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
		types.LifecycleRule{ID: aws.String("tagged"), Status: types.ExpirationStatusEnabled,
			Filter: &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("class"), Value: aws.String("scratch")}}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
	)
	out := put(t, c, bucket, "tmp/a", []byte("a"))
	if out.Expiration == nil || !strings.Contains(*out.Expiration, `rule-id="tmp"`) || !strings.Contains(*out.Expiration, `expiry-date="`) {
		t.Fatalf("PUT x-amz-expiration = %v", aws.ToString(out.Expiration))
	}
	// The date is the creation plus the days, rounded up to the next
	// "midnight": within two (test) days.
	v := *out.Expiration
	exp, err := time.Parse(http.TimeFormat, v[len(`expiry-date="`):strings.Index(v, `",`)])
	if err != nil || exp.Sub(time.Now()) > 2*time.Second || exp.Nanosecond() != 0 {
		t.Fatalf("expiry date %q: %v", v, err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("tmp/a")})
	if err == nil && (head.Expiration == nil || *head.Expiration != v) {
		t.Errorf("HEAD x-amz-expiration = %v, want %s", aws.ToString(head.Expiration), v)
	}
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("tmp/b"), CopySource: aws.String(bucket + "/tmp/a")})
	if err != nil || cp.Expiration == nil || !strings.Contains(*cp.Expiration, `rule-id="tmp"`) {
		t.Errorf("CopyObject x-amz-expiration: %v, %v", cp, err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("tmp/mp")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("tmp/mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("tmp/mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil || done.Expiration == nil || !strings.Contains(*done.Expiration, `rule-id="tmp"`) {
		t.Errorf("CompleteMultipartUpload x-amz-expiration: %v, %v", done, err)
	}
	if out := put(t, c, bucket, "keep/a", []byte("a")); out.Expiration != nil {
		t.Errorf("a disabled rule gave x-amz-expiration %s", *out.Expiration)
	}
	put(t, c, bucket, "size/small", []byte("small"))
	put(t, c, bucket, "size/large", bytes.Repeat([]byte("l"), 101))
	put(t, c, bucket, "other", []byte("o"))

	eventually(t, "tmp/a, tmp/b and size/large expire", func() bool {
		return !exists(t, c, bucket, "tmp/a") && !exists(t, c, bucket, "tmp/b") && !exists(t, c, bucket, "tmp/mp") && !exists(t, c, bucket, "size/large")
	})
	// Two more passes, then what no rule covers is still there.
	time.Sleep(time.Second)
	for _, k := range []string{"keep/a", "size/small", "other"} {
		if !exists(t, c, bucket, k) {
			t.Errorf("%s expired", k)
		}
	}
	if n := lifecycleCount(t, srv, "expired"); n != 4 {
		t.Errorf("ostium_lifecycle_actions_total{outcome=expired} = %v, want 4", n)
	}

	t.Run("tag filter", func(t *testing.T) {
		out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("tagged"), Body: strings.NewReader("t"),
			Tagging: aws.String("class=scratch")})
		if apiCode(err) == "NotImplemented" {
			t.Skip("object tags are not in this build")
		}
		if err != nil {
			t.Fatal(err)
		}
		// The expiry follows the object's tags.
		if out.Expiration == nil || !strings.Contains(*out.Expiration, `rule-id="tagged"`) {
			t.Errorf("x-amz-expiration of a tagged object = %v", aws.ToString(out.Expiration))
		}
		eventually(t, "the tagged object expires", func() bool { return !exists(t, c, bucket, "tagged") })
		if !exists(t, c, bucket, "other") {
			t.Error("an untagged object expired by a tag rule")
		}
	})
}

// TestLifecycleAbortUploads: uploads older than DaysAfterInitiation are
// aborted; those outside the rule's prefix stay.
func TestLifecycleAbortUploads(t *testing.T) {
	const bucket = "lc-abort"
	c, _ := lifecycleNode(t, bucket)
	ctx := context.Background()
	putLifecycle(t, c, bucket, types.LifecycleRule{ID: aws.String("abort"), Status: types.ExpirationStatusEnabled,
		Filter:                         &types.LifecycleRuleFilter{Prefix: aws.String("up/")},
		AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(1)}})
	for _, k := range []string{"up/a", "up/b", "stay"} {
		u, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(k)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(k), UploadId: u.UploadId,
			PartNumber: aws.Int32(1), Body: strings.NewReader("part")}); err != nil {
			t.Fatal(err)
		}
	}
	uploads := func() []string {
		out, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, u := range out.Uploads {
			keys = append(keys, *u.Key)
		}
		return keys
	}
	eventually(t, "the uploads under up/ are aborted", func() bool { return len(uploads()) == 1 })
	if got := uploads(); got[0] != "stay" {
		t.Fatalf("uploads left = %v", got)
	}
}

// versioned turns versioning on, or skips the test in a build without it.
func versioned(t *testing.T, c *s3.Client, bucket string) {
	t.Helper()
	_, err := c.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
	if apiCode(err) == "NotImplemented" {
		t.Skip("versioning is not in this build")
	}
	if err != nil {
		t.Fatal(err)
	}
}

func versionsOf(t *testing.T, c *s3.Client, bucket, key string) (versions []types.ObjectVersion, markers []types.DeleteMarkerEntry) {
	t.Helper()
	out, err := c.ListObjectVersions(context.Background(), &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range out.Versions {
		if *v.Key == key {
			versions = append(versions, v)
		}
	}
	for _, m := range out.DeleteMarkers {
		if *m.Key == key {
			markers = append(markers, m)
		}
	}
	return
}

// TestLifecycleVersioned: in a versioned bucket, expiration of a current
// version writes a delete marker (AWS); noncurrent versions go
// NoncurrentDays after they became noncurrent, but the
// NewerNoncurrentVersions newest stay; an expired object delete marker
// (a key's only version) is removed, by ExpiredObjectDeleteMarker or
// by an expiration of days once the marker is old enough.
func TestLifecycleVersioned(t *testing.T) {
	const bucket = "lc-versions"
	c, _ := lifecycleNode(t, bucket)
	ctx := context.Background()
	versioned(t, c, bucket)
	putLifecycle(t, c, bucket,
		types.LifecycleRule{ID: aws.String("noncurrent"), Status: types.ExpirationStatusEnabled,
			Filter:                      &types.LifecycleRuleFilter{Prefix: aws.String("nc/")},
			NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(1), NewerNoncurrentVersions: aws.Int32(2)}},
		types.LifecycleRule{ID: aws.String("markers"), Status: types.ExpirationStatusEnabled,
			Filter: &types.LifecycleRuleFilter{Prefix: aws.String("dm/")}, Expiration: &types.LifecycleExpiration{ExpiredObjectDeleteMarker: aws.Bool(true)}},
		prefixRule("current", "cur/", 1),
	)
	var ids []string
	for i := range 5 {
		ids = append(ids, *put(t, c, bucket, "nc/k", []byte{byte('a' + i)}).VersionId)
	}
	// dm/gone: its only version removed by id leaves a lone marker;
	// dm/kept: a marker over a version is not expired.
	v := put(t, c, bucket, "dm/gone", []byte("x")).VersionId
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("dm/gone")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("dm/gone"), VersionId: v}); err != nil {
		t.Fatal(err)
	}
	put(t, c, bucket, "dm/kept", []byte("x"))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("dm/kept")}); err != nil {
		t.Fatal(err)
	}
	put(t, c, bucket, "cur/a", []byte("x"))
	// cur/lone: a lone delete marker under a rule of days goes once it
	// is old enough (AWS: "when the delete markers are old enough to
	// satisfy the age criteria").
	v = put(t, c, bucket, "cur/lone", []byte("x")).VersionId
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("cur/lone")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("cur/lone"), VersionId: v}); err != nil {
		t.Fatal(err)
	}

	eventually(t, "noncurrent versions beyond the 2 newest go", func() bool {
		vs, _ := versionsOf(t, c, bucket, "nc/k")
		return len(vs) == 3
	})
	vs, _ := versionsOf(t, c, bucket, "nc/k")
	for i, v := range vs {
		if want := ids[len(ids)-1-i]; *v.VersionId != want {
			t.Errorf("version %d = %s, want %s (the newest stay)", i, *v.VersionId, want)
		}
	}
	eventually(t, "the expired object delete marker goes", func() bool {
		_, ms := versionsOf(t, c, bucket, "dm/gone")
		return len(ms) == 0
	})
	if vs, ms := versionsOf(t, c, bucket, "dm/kept"); len(vs) != 1 || len(ms) != 1 {
		t.Errorf("dm/kept: %d versions, %d markers; want 1 and 1", len(vs), len(ms))
	}
	eventually(t, "the lone delete marker of cur/lone goes", func() bool {
		vs, ms := versionsOf(t, c, bucket, "cur/lone")
		return len(vs) == 0 && len(ms) == 0
	})
	eventually(t, "cur/a expires behind a delete marker", func() bool {
		vs, ms := versionsOf(t, c, bucket, "cur/a")
		return len(vs) == 1 && len(ms) == 1 && *ms[0].IsLatest
	})
}

// lifecycleCount reads the node's lifecycle counter of an outcome.
func lifecycleCount(t *testing.T, srv *nodetest.Server, outcome string) float64 {
	t.Helper()
	fams, err := srv.Node.Metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "ostium_lifecycle_actions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == outcome {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatal("no ostium_lifecycle_actions_total")
	return 0
}

// TestLifecycleSkipsLocked: a noncurrent version under object lock is
// never removed by lifecycle (the catalog refuses; the worker counts and
// skips it), while an unlocked one beside it goes.
func TestLifecycleSkipsLocked(t *testing.T) {
	const bucket = "lc-locked"
	srv := nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.Lifecycle = node.LifecycleConfig{Day: time.Second, Interval: 200 * time.Millisecond}
	}})
	c := client(t, srv, srv.URL, false)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	putLifecycle(t, c, bucket, types.LifecycleRule{ID: aws.String("noncurrent"), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{}, NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(1)}})
	locked, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("locked"), Body: strings.NewReader("v1"),
		ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: aws.Time(time.Now().Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	put(t, c, bucket, "locked", []byte("v2"))
	free := put(t, c, bucket, "free", []byte("v1")).VersionId
	put(t, c, bucket, "free", []byte("v2"))

	eventually(t, "the unlocked noncurrent version goes", func() bool {
		vs, _ := versionsOf(t, c, bucket, "free")
		return len(vs) == 1 && *vs[0].VersionId != *free
	})
	eventually(t, "the locked version is skipped and counted", func() bool { return lifecycleCount(t, srv, "skipped_locked") > 0 })
	vs, _ := versionsOf(t, c, bucket, "locked")
	if len(vs) != 2 || *vs[1].VersionId != *locked.VersionId {
		t.Fatalf("versions of the locked key: %+v", vs)
	}
}

// A document that lists more than S3 takes is refused before it is
// decoded, as AWS refuses it (MalformedXML: its schema has no such
// list), rather than built whole into values first: 2 MiB of empty
// <Rule/> elements were 300,000 rules, some 240 MB allocated by one
// request, before the count was checked. The largest configuration AWS
// takes, 1,000 rules with every filter and action, still passes.
func TestDocumentListsBoundedBeforeDecoding(t *testing.T) {
	const bucket = "lc-bounded"
	c, srv := lifecycleNode(t, bucket)
	ctx := context.Background()

	rules := make([]types.LifecycleRule, 1000)
	for i := range rules {
		var tags []types.Tag
		for j := range 5 {
			tags = append(tags, types.Tag{Key: aws.String(fmt.Sprintf("k%d", j)), Value: aws.String("v")})
		}
		rules[i] = types.LifecycleRule{ID: aws.String(fmt.Sprintf("rule-%04d", i)), Status: types.ExpirationStatusEnabled,
			Filter: &types.LifecycleRuleFilter{And: &types.LifecycleRuleAndOperator{Prefix: aws.String(fmt.Sprintf("p%04d/", i)), Tags: tags,
				ObjectSizeGreaterThan: aws.Int64(1), ObjectSizeLessThan: aws.Int64(1 << 30)}},
			Expiration:                  &types.LifecycleExpiration{Days: aws.Int32(30)},
			NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(7), NewerNoncurrentVersions: aws.Int32(2)}}
	}
	if _, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
		Bucket: aws.String(bucket), LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: rules}}); err != nil {
		t.Fatalf("1,000 full rules: %v", err)
	}

	for _, tc := range []struct{ name, method, path, doc string }{
		{"lifecycle", "PUT", "/" + bucket + "?lifecycle", "<LifecycleConfiguration>" + strings.Repeat("<Rule/>", (2<<20-64)/7) + "</LifecycleConfiguration>"},
		{"delete", "POST", "/" + bucket + "?delete", "<Delete>" + strings.Repeat("<Object/>", (2<<20-64)/9) + "</Delete>"},
	} {
		resp := signedDo(t, srv, tc.method, tc.path, tc.doc, http.Header{"Content-Md5": {md5b64([]byte(tc.doc))}})
		if resp.StatusCode != 400 || !strings.Contains(resp.body, "<Code>MalformedXML</Code>") {
			t.Errorf("%s of %d bytes of empty entries: %d %.300s, want 400 MalformedXML", tc.name, len(tc.doc), resp.StatusCode, resp.body)
		}
	}
	// The configuration in place is the one taken.
	got, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String(bucket)})
	if err != nil || len(got.Rules) != 1000 {
		t.Fatalf("after the refusals: %d rules, %v", len(got.Rules), err)
	}
}
