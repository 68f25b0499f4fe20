package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// classNode starts a node with two local-disk platforms, "fast" (the
// default: STANDARD) and "cold", which STANDARD_IA and GLACIER_IR map
// to; its lifecycle day lasts a second and its collector runs ten
// times a second. It returns the platforms' directories.
func classNode(t *testing.T) (srv *nodetest.Server, fast, cold string) {
	t.Helper()
	srv = nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		fast, cold = filepath.Join(c.DataDir, "fast"), filepath.Join(c.DataDir, "cold")
		c.Platforms = map[string]platform.Spec{"fast": {Type: platform.TypeFS, Path: fast}, "cold": {Type: platform.TypeFS, Path: cold}}
		c.DefaultPlatform = "fast"
		c.StorageClasses = storageclass.Map{storageclass.StandardIA: "cold", storageclass.GlacierIR: "cold"}
		c.Lifecycle = node.LifecycleConfig{Day: time.Second, Interval: 200 * time.Millisecond}
		c.GCInterval = 100 * time.Millisecond
	}})
	return srv, fast, cold
}

// platformFiles lists the blob files under a platform's directory.
func platformFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func wantFiles(t *testing.T, what, dir string, n int) {
	t.Helper()
	if got := platformFiles(t, dir); len(got) != n {
		t.Fatalf("%s: %d blob files in %s, want %d", what, len(got), filepath.Base(dir), n)
	}
}

func headClass(t *testing.T, c *s3.Client, bucket, key string) types.StorageClass {
	t.Helper()
	h, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("head %s: %v", key, err)
	}
	return h.StorageClass
}

func multipartPut(t *testing.T, c *s3.Client, bucket, key string, class types.StorageClass, parts ...[]byte) {
	t.Helper()
	ctx := context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key, StorageClass: class})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i, p := range parts {
		n := int32(i + 1)
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId, PartNumber: &n, Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{ETag: out.ETag, PartNumber: &n, ChecksumCRC32: out.ChecksumCRC32})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatal(err)
	}
}

// TestStorageClassPlacement: every write path puts an object's blobs on
// its class's platform (PUT, each part of a multipart upload, CopyObject,
// POST Object); a class with no platform of its own is stored as
// STANDARD is; an archive class is refused; and the class is reported
// as AWS reports it (HEAD and GET leave STANDARD out; listings,
// ListObjectVersions and GetObjectAttributes name it).
func TestStorageClassPlacement(t *testing.T) {
	srv, fast, cold := classNode(t)
	c := client(t, srv, srv.URL, false)
	ctx := context.Background()
	bucket := "classes"
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	big := func(seed uint64) []byte { return randBytes(200<<10, seed) } // past inline: a blob
	putClass := func(key string, class types.StorageClass, data []byte) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data), StorageClass: class})
		return err
	}

	if err := putClass("std", "", big(1)); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "a STANDARD PUT", fast, 1)
	wantFiles(t, "a STANDARD PUT", cold, 0)
	if err := putClass("ia", types.StorageClassStandardIa, big(2)); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "a STANDARD_IA PUT", cold, 1)
	// No platform of its own: stored as STANDARD, reported as asked.
	if err := putClass("oz", types.StorageClassOnezoneIa, big(3)); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "an ONEZONE_IA PUT (no platform of its own)", fast, 2)
	// AWS refuses none of these; nothing here restores an archive.
	wantCode(t, putClass("gl", types.StorageClassGlacier, big(4)), "InvalidStorageClass")
	wantCode(t, putClass("da", types.StorageClassDeepArchive, big(4)), "InvalidStorageClass")
	wantFiles(t, "refused archive PUTs", cold, 1)
	wantFiles(t, "refused archive PUTs", fast, 2)

	// Every part of a multipart upload.
	part1, part2 := randBytes(5<<20, 5), randBytes(100<<10, 6)
	multipartPut(t, c, bucket, "mp", types.StorageClassStandardIa, part1, part2)
	wantFiles(t, "a STANDARD_IA multipart upload", cold, 3)
	if got := get(t, c, bucket, "mp"); !bytes.Equal(got, append(append([]byte{}, part1...), part2...)) {
		t.Fatal("multipart object read back differs")
	}

	// A copy with another class places the new blob there.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("copy-ir"), CopySource: aws.String(bucket + "/std"),
		StorageClass: types.StorageClassGlacierIr}); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "a GLACIER_IR copy", cold, 4)
	// AWS: a copy that names no class is STANDARD, whatever its source's.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("copy-std"), CopySource: aws.String(bucket + "/ia")}); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "a copy of a STANDARD_IA object naming no class", fast, 3)
	if got := headClass(t, c, bucket, "copy-std"); got != "" {
		t.Fatalf("a copy naming no class: %q, want STANDARD (none on HEAD)", got)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("copy-std")}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted copy's blob is collected", func() bool { return len(platformFiles(t, fast)) == 2 })
	// A copy in place with only a new class moves the object: its new
	// blob on the class's platform, the old one collected.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("std"), CopySource: aws.String(bucket + "/std"),
		StorageClass: types.StorageClassStandardIa}); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, "a copy in place to STANDARD_IA", cold, 5)
	eventually(t, "the old blob of the object copied in place is collected", func() bool { return len(platformFiles(t, fast)) == 1 })
	if got := get(t, c, bucket, "std"); !bytes.Equal(got, big(1)) {
		t.Fatal("object copied in place reads back differently")
	}

	// POST Object with the class as a form field.
	pp, err := s3.NewPresignClient(c).PresignPostObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("posted")}, func(o *s3.PresignPostOptions) {
		o.Conditions = []any{map[string]string{"x-amz-storage-class": "STANDARD_IA"}}
	})
	if err != nil {
		t.Fatal(err)
	}
	fields := []field{{"x-amz-storage-class", "STANDARD_IA"}}
	for k, v := range pp.Values {
		fields = append(fields, field{k, v})
	}
	if resp, body := postForm(t, srv, pp.URL, fields, "posted.bin", bytes.NewReader(big(7))); resp.StatusCode != 204 {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	wantFiles(t, "a STANDARD_IA POST", cold, 6)

	// Reported as AWS does.
	want := map[string]types.StorageClass{"std": "STANDARD_IA", "ia": "STANDARD_IA", "oz": "ONEZONE_IA", "mp": "STANDARD_IA", "copy-ir": "GLACIER_IR", "posted": "STANDARD_IA"}
	for key, class := range want {
		if got := headClass(t, c, bucket, key); got != class {
			t.Errorf("HEAD %s: class %q, want %q", key, got, class)
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		out.Body.Close()
		if out.StorageClass != class {
			t.Errorf("GET %s: class %q, want %q", key, out.StorageClass, class)
		}
		attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String(key),
			ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesStorageClass}})
		if err != nil || attrs.StorageClass != class {
			t.Errorf("GetObjectAttributes %s: %v %v", key, attrs.StorageClass, err)
		}
	}
	if err := putClass("plain", "", []byte("small")); err != nil {
		t.Fatal(err)
	}
	want["plain"] = "STANDARD"
	// AWS leaves STANDARD out of HEAD and GET, and names it in listings.
	if got := headClass(t, c, bucket, "plain"); got != "" {
		t.Errorf("HEAD of a STANDARD object: class %q, want none", got)
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket})
	if err != nil || len(list.Contents) != len(want) {
		t.Fatalf("list: %v %v", list, err)
	}
	for _, o := range list.Contents {
		if string(o.StorageClass) != string(want[*o.Key]) {
			t.Errorf("ListObjectsV2 %s: class %q, want %q", *o.Key, o.StorageClass, want[*o.Key])
		}
	}
	vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: &bucket})
	if err != nil || len(vs.Versions) != len(want) {
		t.Fatalf("versions: %v %v", vs, err)
	}
	for _, v := range vs.Versions {
		if string(v.StorageClass) != string(want[*v.Key]) {
			t.Errorf("ListObjectVersions %s: class %q, want %q", *v.Key, v.StorageClass, want[*v.Key])
		}
	}
}

// TestStorageClassTenantMap: the provider's map through the admin API
// and a tenant's own, which overrides it class by class; what a map may
// not say is refused.
func TestStorageClassTenantMap(t *testing.T) {
	srv, fast, cold := classNode(t)
	ctx := context.Background()
	ad := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	do := func(method, path string, in, out any) error { return ad.Do(ctx, method, path, in, out) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(do("POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(do("POST", "/tenants/acme/users", map[string]string{"name": "bob", "role": "admin"}, nil))
	var k admin.Key
	must(do("POST", "/tenants/acme/users/bob/keys", nil, &k))
	bob := client(t, srv, srv.URL, false, k.AccessKey, k.SecretKey)
	bucket := "acme-data"
	if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	putClass := func(key string, class types.StorageClass) {
		t.Helper()
		if _, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(randBytes(100<<10, 1)), StorageClass: class}); err != nil {
			t.Fatal(err)
		}
	}
	// The provider maps ONEZONE_IA (which the nodes leave unmapped).
	var got admin.StorageClasses
	must(do("PUT", "/storage-classes", admin.StorageClasses{Classes: map[string]string{"ONEZONE_IA": "cold"}}, &got))
	if got.Classes["ONEZONE_IA"] != "cold" {
		t.Fatalf("provider map: %+v", got)
	}
	putClass("oz", types.StorageClassOnezoneIa)
	wantFiles(t, "ONEZONE_IA by the provider's map", cold, 1)
	// The tenant's own map sends STANDARD_IA to fast, over the nodes'.
	var ten admin.Tenant
	must(do("PUT", "/tenants/acme/storage-classes", admin.StorageClasses{Classes: map[string]string{"STANDARD_IA": "fast"}}, &ten))
	if ten.StorageClasses["STANDARD_IA"] != "fast" {
		t.Fatalf("tenant: %+v", ten)
	}
	putClass("ia", types.StorageClassStandardIa)
	wantFiles(t, "STANDARD_IA by the tenant's map", fast, 1)
	wantFiles(t, "STANDARD_IA by the tenant's map", cold, 1)
	putClass("ir", types.StorageClassGlacierIr) // the nodes' map still applies
	wantFiles(t, "GLACIER_IR by the nodes' map", cold, 2)

	for _, tc := range []struct {
		classes map[string]string
		code    string
	}{
		{map[string]string{"GLACIER": "cold"}, "InvalidArgument"},
		{map[string]string{"STANDARD": "cold"}, "InvalidArgument"},
		{map[string]string{"COLDEST": "cold"}, "InvalidArgument"},
		{map[string]string{"STANDARD_IA": "tape"}, "NoSuchPlatform"},
	} {
		err := do("PUT", "/tenants/acme/storage-classes", admin.StorageClasses{Classes: tc.classes}, nil)
		var ae *admin.Error
		if !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%v: %v, want %s", tc.classes, err, tc.code)
		}
	}
	// A tenant admin may not change the map.
	bobAdmin := admin.NewClient(srv.URL, k.AccessKey, k.SecretKey, srv.Client())
	if err := bobAdmin.Do(ctx, "PUT", "/tenants/acme/storage-classes", admin.StorageClasses{}, nil); err == nil {
		t.Fatal("a tenant admin changed its storage classes")
	}
}

// TestStorageClassTransition: a Transition rule moves due objects to the
// class's platform a (test-clock) day later: single-part, multipart
// (every part) and SSE-S3 objects (as ciphertext), each readable after,
// the old blobs collected; a GET that began before the move finishes
// with the right bytes; an object under AWS's 128 KiB default minimum
// stays; usage and metrics count by class. AWS's refusals of rules come
// first.
func TestStorageClassTransition(t *testing.T) {
	srv, fast, cold := classNode(t)
	c := client(t, srv, srv.URL, false)
	ctx := context.Background()
	bucket := "tiered"
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	rule := func(id string, tr types.Transition) types.LifecycleRule {
		return types.LifecycleRule{ID: aws.String(id), Status: types.ExpirationStatusEnabled,
			Filter: &types.LifecycleRuleFilter{Prefix: aws.String("t/")}, Transitions: []types.Transition{tr}}
	}
	for _, tc := range []struct {
		tr   types.Transition
		code string
	}{
		// AWS: 30 days in STANDARD before STANDARD_IA.
		{types.Transition{Days: aws.Int32(29), StorageClass: types.TransitionStorageClassStandardIa}, "InvalidArgument"},
		// No platform of its own: the transition would move nothing.
		{types.Transition{Days: aws.Int32(30), StorageClass: types.TransitionStorageClassOnezoneIa}, "InvalidStorageClass"},
		// Archives: nothing here restores them.
		{types.Transition{Days: aws.Int32(1), StorageClass: types.TransitionStorageClassGlacier}, "InvalidStorageClass"},
		{types.Transition{Days: aws.Int32(1), StorageClass: types.TransitionStorageClassDeepArchive}, "InvalidStorageClass"},
	} {
		_, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: &bucket,
			LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{rule("r", tc.tr)}}})
		wantCode(t, err, tc.code)
	}

	plain, sealed := randBytes(300<<10, 1), randBytes(300<<10, 2)
	part1, part2 := randBytes(16<<20, 3), randBytes(1<<20, 4)
	whole := append(append([]byte{}, part1...), part2...)
	put(t, c, bucket, "t/plain", plain)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("t/sse"), Body: bytes.NewReader(sealed),
		ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatal(err)
	}
	multipartPut(t, c, bucket, "t/mp", "", part1, part2)
	put(t, c, bucket, "t/small", randBytes(64<<10, 5)) // a blob, under 128 KiB
	put(t, c, bucket, "keep/plain", plain)
	wantFiles(t, "before the rule", fast, 6)

	// A read that begins before the move: its first part is open when
	// the move switches the object; its second is opened after the
	// collector took the old blob. (A small socket buffer keeps the
	// node from reaching the second part before the client reads on.)
	slow := s3.New(c.Options(), func(o *s3.Options) {
		tr := srv.Client().Transport.(*http.Transport).Clone()
		addr := srv.Listener.Addr().String()
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil {
				err = conn.(*net.TCPConn).SetReadBuffer(32 << 10)
			}
			return conn, err
		}
		o.HTTPClient = &http.Client{Transport: tr}
	})
	reading, err := slow.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("t/mp")})
	if err != nil {
		t.Fatal(err)
	}
	defer reading.Body.Close()
	head := make([]byte, 1<<20)
	if _, err := io.ReadFull(reading.Body, head); err != nil {
		t.Fatal(err)
	}

	putLifecycle(t, c, bucket, rule("tier", types.Transition{Days: aws.Int32(1), StorageClass: types.TransitionStorageClassGlacierIr}))
	eventually(t, "the due objects move to GLACIER_IR", func() bool {
		for _, k := range []string{"t/plain", "t/sse", "t/mp"} {
			if headClass(t, c, bucket, k) != types.StorageClassGlacierIr {
				return false
			}
		}
		return true
	})
	// plain, sse and the two parts of mp on cold; small and keep/plain
	// stay, the old blobs collected.
	eventually(t, "the moved objects' old blobs are collected", func() bool { return len(platformFiles(t, fast)) == 2 })
	wantFiles(t, "after the move", cold, 4)
	if got := headClass(t, c, bucket, "t/small"); got != "" {
		t.Errorf("an object under 128 KiB moved to %q", got)
	}

	rest, err := io.ReadAll(reading.Body)
	if err != nil {
		t.Fatalf("the read begun before the move: %v", err)
	}
	if !bytes.Equal(append(head, rest...), whole) {
		t.Fatal("the read begun before the move got other bytes")
	}
	if !bytes.Equal(get(t, c, bucket, "t/plain"), plain) || !bytes.Equal(get(t, c, bucket, "t/mp"), whole) {
		t.Fatal("moved objects read back differently")
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("t/sse")})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if !bytes.Equal(got, sealed) || out.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		t.Fatalf("the SSE-S3 object after its move: %d bytes, %q", len(got), out.ServerSideEncryption)
	}
	// Moved as ciphertext: no plaintext on the cold platform.
	for _, f := range platformFiles(t, cold) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, sealed[4096:4096+256]) {
			t.Fatalf("%s holds the SSE-S3 object's plaintext", f)
		}
	}

	if n := lifecycleCount(t, srv, "transitioned"); n != 3 {
		t.Errorf("transitioned = %v, want 3", n)
	}
	if n := gauge(t, srv, "ostium_lifecycle_transition_bytes_total"); n < float64(len(plain)+len(whole)+len(sealed)) {
		t.Errorf("bytes moved = %v", n)
	}
	// Usage by class: the provider's bucket's bytes in GLACIER_IR.
	var u admin.Usage
	ad := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	if err := ad.Do(ctx, "GET", "/tenants/_provider/usage", nil, &u); err != nil {
		t.Fatal(err)
	}
	ir, std := u.NowByClass["GLACIER_IR"], u.NowByClass["STANDARD"]
	if ir.Objects != 3 || ir.Bytes != int64(len(plain)+len(whole)+len(sealed)) || std.Objects != 2 || std.Bytes != int64(len(plain)+64<<10) {
		t.Fatalf("usage by class: %+v", u.NowByClass)
	}
}

// TestStorageClassNoncurrentLocked: a NoncurrentVersionTransition moves
// noncurrent versions only, and a version under a COMPLIANCE retention
// moves too, keeping its protection.
func TestStorageClassNoncurrentLocked(t *testing.T) {
	srv, fast, cold := classNode(t)
	c := client(t, srv, srv.URL, false)
	ctx := context.Background()
	bucket := "locked-tiers"
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket, ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	v1data, v2data := randBytes(200<<10, 1), randBytes(200<<10, 2)
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	v1, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("k"), Body: bytes.NewReader(v1data),
		ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: &until})
	if err != nil {
		t.Fatal(err)
	}
	v2 := put(t, c, bucket, "k", v2data)
	putLifecycle(t, c, bucket, types.LifecycleRule{ID: aws.String("old"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
		NoncurrentVersionTransitions: []types.NoncurrentVersionTransition{{NoncurrentDays: aws.Int32(1), StorageClass: types.TransitionStorageClassGlacierIr}}})
	eventually(t, "the noncurrent version moves", func() bool {
		vs, _ := versionsOf(t, c, bucket, "k")
		return len(vs) == 2 && vs[1].StorageClass == types.ObjectVersionStorageClass("GLACIER_IR")
	})
	vs, _ := versionsOf(t, c, bucket, "k")
	if *vs[0].VersionId != *v2.VersionId || vs[0].StorageClass != types.ObjectVersionStorageClassStandard {
		t.Fatalf("the current version: %+v", vs[0])
	}
	eventually(t, "the old blob is collected", func() bool { return len(platformFiles(t, fast)) == 1 })
	wantFiles(t, "after the move", cold, 1)
	r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: &bucket, Key: aws.String("k"), VersionId: v1.VersionId})
	if err != nil || r.Retention.Mode != types.ObjectLockRetentionModeCompliance || !r.Retention.RetainUntilDate.Equal(until) {
		t.Fatalf("retention after the move: %+v %v", r, err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("k"), VersionId: v1.VersionId})
	wantCode(t, err, "AccessDenied")
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("k"), VersionId: v1.VersionId})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if !bytes.Equal(got, v1data) || out.StorageClass != types.StorageClassGlacierIr {
		t.Fatalf("the moved locked version: %d bytes, class %q", len(got), out.StorageClass)
	}
}

// gauge reads a metric without labels.
func gauge(t *testing.T, srv *nodetest.Server, name string) float64 {
	t.Helper()
	fams, err := srv.Node.Metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			m := f.GetMetric()[0]
			if m.Counter != nil {
				return m.Counter.GetValue()
			}
			return m.Gauge.GetValue()
		}
	}
	t.Fatalf("no %s", name)
	return 0
}
