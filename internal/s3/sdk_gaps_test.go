package s3_test

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node"
)

// TestListEncodingURL pins what encoding-type=url returns, as AWS: form
// encoding with "/" left alone in Key, CommonPrefixes, Prefix, Delimiter,
// V1's Marker and NextMarker and V2's StartAfter; V2's continuation
// tokens are opaque and never encoded. botocore decodes every one of those
// but V1's Prefix, so an encoded "/" reached boto3 users as "%2F".
func TestListEncodingURL(t *testing.T) {
	c, bucket, srv := setup(t)
	for _, k := range []string{"foo/a b", "foo/a+b", "foo/sub/x", "foo/100%", "zz"} {
		put(t, c, bucket, k, []byte(k))
	}
	type entry struct {
		Key string `xml:"Key"`
	}
	type result struct {
		Prefix, Delimiter, Marker, NextMarker, StartAfter string
		ContinuationToken, NextContinuationToken          string
		EncodingType                                      string
		Contents                                          []entry
		CommonPrefixes                                    []struct{ Prefix string }
	}
	list := func(q url.Values) result {
		t.Helper()
		status, code, body := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"?"+q.Encode(), nil, nil))
		if status != http.StatusOK {
			t.Fatalf("list %v: %d %s", q, status, code)
		}
		var r result
		if err := xml.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	keys := func(r result) (out []string) {
		for _, e := range r.Contents {
			out = append(out, e.Key)
		}
		for _, p := range r.CommonPrefixes {
			out = append(out, "cp:"+p.Prefix)
		}
		return out
	}

	// V1, as boto3's list_objects(Prefix="foo/", Delimiter="/") sends it.
	r := list(url.Values{"prefix": {"foo/"}, "delimiter": {"/"}, "encoding-type": {"url"}, "marker": {"foo/100%"}, "max-keys": {"2"}})
	if r.Prefix != "foo/" || r.Delimiter != "/" || r.Marker != "foo/100%25" || r.EncodingType != "url" {
		t.Fatalf("V1 echoes: %+v", r)
	}
	if got, want := keys(r), []string{"foo/a+b", "foo/a%2Bb"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("V1 keys %q, want %q", got, want)
	}
	if r.NextMarker != "foo/a%2Bb" {
		t.Fatalf("V1 NextMarker %q", r.NextMarker)
	}
	r = list(url.Values{"prefix": {"foo/"}, "delimiter": {"/"}, "encoding-type": {"url"}, "marker": {"foo/a+b"}})
	if got, want := keys(r), []string{"cp:foo/sub/"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("V1 common prefixes %q, want %q", got, want)
	}

	// V2: StartAfter encoded; the token comes back as given.
	r = list(url.Values{"list-type": {"2"}, "prefix": {"foo/"}, "encoding-type": {"url"}, "start-after": {"foo/a b"}, "max-keys": {"1"}})
	if r.Prefix != "foo/" || r.StartAfter != "foo/a+b" || !reflect.DeepEqual(keys(r), []string{"foo/a%2Bb"}) {
		t.Fatalf("V2: %+v", r)
	}
	tok := r.NextContinuationToken
	r = list(url.Values{"list-type": {"2"}, "prefix": {"foo/"}, "encoding-type": {"url"}, "continuation-token": {tok}})
	if r.ContinuationToken != tok || !reflect.DeepEqual(keys(r), []string{"foo/sub/x"}) {
		t.Fatalf("V2 next page: %+v", r)
	}

	// The SDK hands the encoded values through; decoding gives the keys.
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("foo/"), EncodingType: types.EncodingTypeUrl})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out.Contents {
		k, err := url.QueryUnescape(*o.Key)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
	}
	if want := []string{"foo/100%", "foo/a b", "foo/a+b", "foo/sub/x"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded keys %q, want %q", got, want)
	}
}

// TestConditionalWriteETag: If-None-Match with entity tags on PutObject,
// CompleteMultipartUpload and CopyObject fails with 412 when the current
// version has one of them, as Ceph RGW and MinIO (AWS takes "*" only).
func TestConditionalWriteETag(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	first := put(t, c, bucket, "k", []byte("first"))
	putIf := func(key, inm string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader("next"), IfNoneMatch: &inm})
		return err
	}
	bare := strings.Trim(*first.ETag, `"`)
	for _, inm := range []string{*first.ETag, bare, `"0123", ` + *first.ETag, "W/" + *first.ETag} {
		err := putIf("k", inm)
		wantCode(t, err, "PreconditionFailed")
		var re interface{ HTTPStatusCode() int }
		if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusPreconditionFailed {
			t.Fatalf("If-None-Match %s: want 412, got %v", inm, err)
		}
	}
	if got := string(get(t, c, bucket, "k")); got != "first" {
		t.Fatalf("refused write changed the object: %q", got)
	}
	// Another ETag, or no object: the write goes on.
	if err := putIf("k", `"0123456789abcdef0123456789abcdef"`); err != nil {
		t.Fatal(err)
	}
	if err := putIf("absent", *first.ETag); err != nil {
		t.Fatal(err)
	}
	if got := string(get(t, c, bucket, "k")); got != "next" {
		t.Fatalf("after a write whose condition held: %q", got)
	}
	// A malformed list is the client's mistake.
	status, code, _ := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"/k", []byte("x"), http.Header{"If-None-Match": {`"a b"`}}))
	if status != http.StatusBadRequest || code != "InvalidArgument" {
		t.Fatalf("malformed If-None-Match: %d %s", status, code)
	}

	// CompleteMultipartUpload: refused while the key's ETag matches; the
	// upload stays, so the client can complete it otherwise.
	cur, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("k"), UploadId: cu.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("multipart")})
	if err != nil {
		t.Fatal(err)
	}
	complete := func(inm string) error {
		_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("k"), UploadId: cu.UploadId,
			IfNoneMatch: &inm, MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
				{PartNumber: aws.Int32(1), ETag: up.ETag, ChecksumCRC32: up.ChecksumCRC32}}}})
		return err
	}
	wantCode(t, complete(*cur.ETag), "PreconditionFailed")
	if err := complete(*first.ETag); err != nil {
		t.Fatalf("complete with a stale ETag in If-None-Match: %v", err)
	}
	if got := string(get(t, c, bucket, "k")); got != "multipart" {
		t.Fatalf("completed object %q", got)
	}

	// CopyObject takes the destination's condition the same way.
	done, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("k"), CopySource: aws.String(bucket + "/absent"),
		IfNoneMatch: done.ETag})
	wantCode(t, err, "PreconditionFailed")
}

// TestBucketDefaults: new buckets keep AWS's defaults unless the provider
// chooses the older ones (bucket_defaults: legacy), under which a canned
// public ACL on CreateBucket and a public bucket policy work as on Ceph
// RGW; the provider-wide block still refuses them.
func TestBucketDefaults(t *testing.T) {
	ctx := context.Background()
	public := func(bucket string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/*"}]}`
	}
	t.Run("aws", func(t *testing.T) {
		ten := newTenancy(t, func(c *node.Config) { c.BucketDefaults = node.BucketDefaultsAWS })
		bob := ten.clients["bob"]
		_, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-pub"), ACL: types.BucketCannedACLPublicRead})
		wantCode(t, err, "InvalidBucketAclWithObjectOwnership")
		oc, err := bob.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: aws.String("acme-bob")})
		if err != nil || oc.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipBucketOwnerEnforced {
			t.Fatalf("ownership: %+v %v", oc, err)
		}
		wantCode(t, putPolicy(t, bob, "acme-bob", public("acme-bob")), "AccessDenied")
		_, err = ten.clients["anonymous"].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("k")})
		wantCode(t, err, "AccessDenied")
	})
	t.Run("legacy", func(t *testing.T) {
		ten := newTenancy(t, func(c *node.Config) { c.BucketDefaults = node.BucketDefaultsLegacy })
		bob, anon := ten.clients["bob"], ten.clients["anonymous"]
		if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-pub"), ACL: types.BucketCannedACLPublicRead}); err != nil {
			t.Fatalf("CreateBucket public-read: %v", err)
		}
		oc, err := bob.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: aws.String("acme-pub")})
		if err != nil || oc.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipObjectWriter {
			t.Fatalf("ownership: %+v %v", oc, err)
		}
		_, err = bob.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: aws.String("acme-pub")})
		wantCode(t, err, "NoSuchPublicAccessBlockConfiguration")
		// The bucket's public-read ACL lists to anyone; an object's
		// public-read ACL reads.
		put(t, bob, "acme-pub", "private", []byte("p"))
		if _, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-pub"), Key: aws.String("open"),
			Body: strings.NewReader("o"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
			t.Fatal(err)
		}
		l, err := anon.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("acme-pub")})
		if err != nil || len(l.Contents) != 2 {
			t.Fatalf("anonymous list of a public-read bucket: %+v %v", l, err)
		}
		if got := string(get(t, anon, "acme-pub", "open")); got != "o" {
			t.Fatalf("anonymous read of a public-read object: %q", got)
		}
		_, err = anon.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-pub"), Key: aws.String("private")})
		wantCode(t, err, "AccessDenied")
		// A public policy on a bucket made without a canned ACL.
		if err := putPolicy(t, bob, "acme-bob", public("acme-bob")); err != nil {
			t.Fatalf("public policy: %v", err)
		}
		if got := string(get(t, anon, "acme-bob", "k")); got != "data of acme-bob" {
			t.Fatalf("anonymous read under a public policy: %q", got)
		}
		// Asking for AWS's settings still gets them.
		_, err = bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-strict"), ACL: types.BucketCannedACLPublicRead,
			ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced})
		wantCode(t, err, "InvalidBucketAclWithObjectOwnership")
	})
	t.Run("legacy under the provider's block", func(t *testing.T) {
		ten := newTenancy(t, func(c *node.Config) { c.BucketDefaults, c.BlockPublicAccess = node.BucketDefaultsLegacy, true })
		_, err := ten.clients["bob"].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-pub"), ACL: types.BucketCannedACLPublicRead})
		wantCode(t, err, "InvalidBucketAclWithBlockPublicAccessError")
	})
	cfg := node.Config{DataDir: t.TempDir(), BucketDefaults: "open"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "bucket_defaults") {
		t.Fatalf("Validate of bucket_defaults: open: %v", err)
	}
}
