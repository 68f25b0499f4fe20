package s3_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
)

// versionedBucket creates a bucket with versioning enabled.
func versionedBucket(t *testing.T, c *s3.Client, bucket string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("create %s: %v", bucket, err)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
}

func setVersioning(t *testing.T, c *s3.Client, bucket string, status types.BucketVersioningStatus) {
	t.Helper()
	_, err := c.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: status}})
	if err != nil {
		t.Fatalf("versioning %s of %s: %v", status, bucket, err)
	}
}

// putV writes key and returns the version id the response reported ("" for
// none).
func putV(t *testing.T, c *s3.Client, bucket, key string, data []byte) string {
	t.Helper()
	return aws.ToString(put(t, c, bucket, key, data).VersionId)
}

func getV(t *testing.T, c *s3.Client, bucket, key, version string) ([]byte, *s3.GetObjectOutput) {
	t.Helper()
	in := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
	if version != "" {
		in.VersionId = &version
	}
	out, err := c.GetObject(context.Background(), in)
	if err != nil {
		t.Fatalf("get %s@%s: %v", key, version, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, out
}

// rawHeader returns the response headers of an SDK call's output.
func rawHeader(md middleware.Metadata) http.Header {
	if r, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		return r.Header
	}
	return nil
}

// errHeader returns the response headers of a failed SDK call.
func errHeader(t *testing.T, err error) http.Header {
	t.Helper()
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("not an HTTP response error: %v", err)
	}
	return re.Response.Header
}

// versionList is a bucket's versions as key/id, with * after the latest
// and ! after a delete marker, in the order ListObjectVersions gives
// them. It reads the document itself: the SDK splits versions and
// delete markers into two lists, and so loses their order.
func versionList(t *testing.T, srv *nodetest.Server, bucket string) []string {
	t.Helper()
	status, _, body := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"?versions", nil, nil))
	if status != http.StatusOK {
		t.Fatalf("list versions of %s: %d %s", bucket, status, body)
	}
	var res struct {
		IsTruncated bool
		Entries     []struct {
			XMLName   xml.Name
			Key       string
			VersionID string `xml:"VersionId"`
			IsLatest  bool
		} `xml:",any"`
	}
	if err := xml.Unmarshal(body, &res); err != nil || res.IsTruncated {
		t.Fatalf("list versions of %s: %v (truncated %v)", bucket, err, res.IsTruncated)
	}
	var out []string
	for _, e := range res.Entries {
		if e.XMLName.Local != "Version" && e.XMLName.Local != "DeleteMarker" {
			continue
		}
		s := e.Key + "/" + e.VersionID
		if e.IsLatest {
			s += "*"
		}
		if e.XMLName.Local == "DeleteMarker" {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

func wantList(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("versions %q\nwant     %q", got, want)
	}
}

// GetBucketVersioning reports no Status for a bucket never versioned;
// versioning goes Enabled and Suspended and never back (AWS has no
// "Disabled" status); MFA delete is refused as not implemented.
func TestBucketVersioningConfiguration(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	status := func() types.BucketVersioningStatus {
		t.Helper()
		out, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: &bucket})
		if err != nil {
			t.Fatal(err)
		}
		return out.Status
	}
	if s := status(); s != "" {
		t.Fatalf("new bucket reports versioning %q", s)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	if s := status(); s != types.BucketVersioningStatusEnabled {
		t.Fatalf("status %q after enabling", s)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusSuspended)
	if s := status(); s != types.BucketVersioningStatusSuspended {
		t.Fatalf("status %q after suspending", s)
	}
	_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: "Disabled"}})
	wantCode(t, err, "MalformedXML")
	_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket, MFA: aws.String("serial 123456"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled, MFADelete: types.MFADeleteEnabled}})
	wantCode(t, err, "NotImplemented")
	// A document without a Status leaves the state as it is.
	_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{MFADelete: types.MFADeleteDisabled}})
	if err != nil {
		t.Fatal(err)
	}
	if s := status(); s != types.BucketVersioningStatusSuspended {
		t.Fatalf("status %q after a document without one", s)
	}
	_, err = c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String("no-such-bucket")})
	wantCode(t, err, "NoSuchBucket")
	// Nobody but the owner's side reads or sets it.
	anon := s3.New(c.Options(), func(o *s3.Options) { o.Credentials = aws.AnonymousCredentials{} })
	_, err = anon.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
	wantCode(t, err, "AccessDenied")
	_, err = anon.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: &bucket})
	wantCode(t, err, "AccessDenied")
}

// In a versioned bucket every PUT, copy and completed upload is a new
// version with a fresh id; each stays readable by its id, and the newest
// is what a plain GET reads. An unversioned bucket reports no version id,
// as AWS.
func TestVersionedWrites(t *testing.T) {
	c, plain, srv := setup(t)
	ctx := context.Background()
	if v := putV(t, c, plain, "k", []byte("x")); v != "" {
		t.Fatalf("unversioned bucket reported version %q", v)
	}
	if _, out := getV(t, c, plain, "k", ""); out.VersionId != nil {
		t.Fatalf("unversioned GET reported version %q", *out.VersionId)
	}

	const bucket = "versioned"
	versionedBucket(t, c, bucket)
	data := [][]byte{[]byte("first"), []byte("second!"), []byte("third..")}
	var ids []string
	for _, d := range data {
		id := putV(t, c, bucket, "k", d)
		if id == "" || id == "null" || strings.ContainsAny(id, "/+=?&%") {
			t.Fatalf("versioned PUT got version id %q", id)
		}
		for _, o := range ids {
			if o == id {
				t.Fatalf("version id %q given twice", id)
			}
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		got, out := getV(t, c, bucket, "k", id)
		if !bytes.Equal(got, data[i]) || aws.ToString(out.VersionId) != id {
			t.Fatalf("GET version %d: %q (version %q)", i, got, aws.ToString(out.VersionId))
		}
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &id})
		if err != nil || aws.ToString(h.VersionId) != id || aws.ToInt64(h.ContentLength) != int64(len(data[i])) {
			t.Fatalf("HEAD version %d: %+v %v", i, h, err)
		}
	}
	got, out := getV(t, c, bucket, "k", "")
	if !bytes.Equal(got, data[2]) || aws.ToString(out.VersionId) != ids[2] {
		t.Fatalf("current: %q version %q", got, aws.ToString(out.VersionId))
	}
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")})
	wantCode(t, err, "NoSuchVersion")

	// CopyObject and CompleteMultipartUpload make versions too.
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy"), CopySource: aws.String(bucket + "/k")})
	if err != nil || aws.ToString(cp.VersionId) == "" || aws.ToString(cp.CopySourceVersionId) != ids[2] {
		t.Fatalf("copy: %+v %v", cp, err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("k"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("multipart"))})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("k"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil || aws.ToString(done.VersionId) == "" || aws.ToString(done.VersionId) == ids[2] {
		t.Fatalf("complete: %+v %v", done, err)
	}
	if got, _ := getV(t, c, bucket, "k", ""); string(got) != "multipart" {
		t.Fatalf("current after completion: %q", got)
	}
	if got, _ := getV(t, c, bucket, "k", ids[0]); string(got) != "first" {
		t.Fatalf("first version after completion: %q", got)
	}
	vs := versionList(t, srv, bucket)
	if len(vs) != 5 || vs[1] != "k/"+aws.ToString(done.VersionId)+"*" {
		t.Fatalf("versions %q", vs)
	}
}

// Suspending versioning makes writes and deletes use the null version:
// each replaces the null version and leaves the others, exactly as AWS.
func TestSuspendedVersioningNullVersion(t *testing.T) {
	c, _, srv := setup(t)
	ctx := context.Background()
	const bucket = "suspended"
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	// Written before versioning: the null version.
	putV(t, c, bucket, "k", []byte("before"))
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	v1 := putV(t, c, bucket, "k", []byte("v1"))
	// Versioning on: the null version from before is kept, and reads as
	// "null".
	if got, out := getV(t, c, bucket, "k", "null"); string(got) != "before" || aws.ToString(out.VersionId) != "null" {
		t.Fatalf("null version: %q %q", got, aws.ToString(out.VersionId))
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusSuspended)
	if v := putV(t, c, bucket, "k", []byte("n1")); v != "null" {
		t.Fatalf("suspended PUT reported version %q, want null", v)
	}
	wantList(t, versionList(t, srv, bucket), "k/null*", "k/"+v1)
	if got, _ := getV(t, c, bucket, "k", ""); string(got) != "n1" {
		t.Fatalf("current %q", got)
	}
	if v := putV(t, c, bucket, "k", []byte("n2")); v != "null" {
		t.Fatalf("second suspended PUT reported version %q", v)
	}
	wantList(t, versionList(t, srv, bucket), "k/null*", "k/"+v1)
	if got, _ := getV(t, c, bucket, "k", "null"); string(got) != "n2" {
		t.Fatalf("null version %q, want the last write", got)
	}
	// A delete writes a null delete marker, which replaces the null version.
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || !aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) != "null" {
		t.Fatalf("suspended delete: %+v %v", del, err)
	}
	wantList(t, versionList(t, srv, bucket), "k/null*!", "k/"+v1)
	if got, _ := getV(t, c, bucket, "k", v1); string(got) != "v1" {
		t.Fatalf("v1 after the null marker: %q", got)
	}
	// Enabled again: new versions stack on the null marker.
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	v2 := putV(t, c, bucket, "k", []byte("v2"))
	wantList(t, versionList(t, srv, bucket), "k/"+v2+"*", "k/null!", "k/"+v1)
}

// DELETE without a version id writes a delete marker; GET and HEAD of
// the key then answer 404 NoSuchKey with x-amz-delete-marker, and 405
// MethodNotAllowed (with Last-Modified) when the marker is named by its
// id. DELETE with a version id removes that version or marker for good.
func TestDeleteMarkers(t *testing.T) {
	c, _, srv := setup(t)
	ctx := context.Background()
	const bucket = "markers"
	versionedBucket(t, c, bucket)
	v1 := putV(t, c, bucket, "k", []byte("v1"))
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	m1 := aws.ToString(del.VersionId)
	if !aws.ToBool(del.DeleteMarker) || m1 == "" || m1 == "null" || m1 == v1 {
		t.Fatalf("delete: marker %v id %q", aws.ToBool(del.DeleteMarker), m1)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	wantCode(t, err, "NoSuchKey")
	if h := errHeader(t, err); h.Get("x-amz-delete-marker") != "true" || h.Get("x-amz-version-id") != m1 {
		t.Fatalf("GET of a deleted key: headers %v", h)
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if h := errHeader(t, err); h.Get("x-amz-delete-marker") != "true" {
		t.Fatalf("HEAD of a deleted key: %v, headers %v", err, h)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &m1})
	wantCode(t, err, "MethodNotAllowed")
	h := errHeader(t, err)
	if h.Get("x-amz-delete-marker") != "true" || h.Get("Last-Modified") == "" || h.Get("x-amz-version-id") != m1 {
		t.Fatalf("GET of a marker by id: headers %v", h)
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &m1})
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusMethodNotAllowed || re.Response.Header.Get("x-amz-delete-marker") != "true" {
		t.Fatalf("HEAD of a marker by id: %v", err)
	}
	// The key is gone from ListObjects, its versions are not.
	l, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil || len(l.Contents) != 0 {
		t.Fatalf("list after delete: %+v %v", l, err)
	}
	if got, _ := getV(t, c, bucket, "k", v1); string(got) != "v1" {
		t.Fatalf("v1 after delete: %q", got)
	}
	// A second delete stacks a second marker.
	del2, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || !aws.ToBool(del2.DeleteMarker) || aws.ToString(del2.VersionId) == m1 {
		t.Fatalf("second delete: %+v %v", del2, err)
	}
	// Removing the markers by id brings v1 back.
	for _, m := range []string{aws.ToString(del2.VersionId), m1} {
		d, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &m})
		if err != nil || !aws.ToBool(d.DeleteMarker) || aws.ToString(d.VersionId) != m {
			t.Fatalf("delete marker %s: %+v %v", m, d, err)
		}
	}
	if got, out := getV(t, c, bucket, "k", ""); string(got) != "v1" || aws.ToString(out.VersionId) != v1 {
		t.Fatalf("current after the markers went: %q", got)
	}
	// Removing a version by id removes it for good, and no marker.
	d, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &v1})
	if err != nil || aws.ToBool(d.DeleteMarker) || aws.ToString(d.VersionId) != v1 {
		t.Fatalf("delete v1: %+v %v", d, err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &v1})
	wantCode(t, err, "NoSuchVersion")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	wantCode(t, err, "NoSuchKey")
	if vs := versionList(t, srv, bucket); len(vs) != 0 {
		t.Fatalf("versions left: %q", vs)
	}
	// The bucket is empty now, so it can go; a marker alone keeps it.
	putV(t, c, bucket, "k", []byte("x"))
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
	wantCode(t, err, "BucketNotEmpty")

	// Unversioned: DELETE removes the key and reports no marker.
	c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("plain")})
	putV(t, c, "plain", "k", []byte("x"))
	pd, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("plain"), Key: aws.String("k")})
	if err != nil || pd.DeleteMarker != nil || pd.VersionId != nil {
		t.Fatalf("unversioned delete: %+v %v", pd, err)
	}
	if h := rawHeader(pd.ResultMetadata); h.Get("x-amz-delete-marker") != "" || h.Get("x-amz-version-id") != "" {
		t.Fatalf("unversioned delete headers: %v", h)
	}
	if vs := versionList(t, srv, "plain"); len(vs) != 0 {
		t.Fatalf("unversioned bucket keeps %q after delete", vs)
	}
}

// CopyObject and UploadPartCopy read a source version named by
// ?versionId= and report it in x-amz-copy-source-version-id; a delete
// marker cannot be a source.
func TestCopyFromVersion(t *testing.T) {
	c, _, _ := setup(t)
	ctx := context.Background()
	const bucket = "copies"
	versionedBucket(t, c, bucket)
	big := randBytes(5<<20, 7)
	v1 := putV(t, c, bucket, "src", big)
	putV(t, c, bucket, "src", []byte("newer"))
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("dst"),
		CopySource: aws.String(bucket + "/src?versionId=" + v1)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(cp.CopySourceVersionId) != v1 || aws.ToString(cp.VersionId) == "" {
		t.Fatalf("copy reported source %q, version %q", aws.ToString(cp.CopySourceVersionId), aws.ToString(cp.VersionId))
	}
	if got, _ := getV(t, c, bucket, "dst", ""); !bytes.Equal(got, big) {
		t.Fatal("copy of v1 holds other bytes")
	}
	// Restoring an old version onto its own key is allowed: it is a copy
	// of another version.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("src"),
		CopySource: aws.String(bucket + "/src?versionId=" + v1)}); err != nil {
		t.Fatalf("restore v1: %v", err)
	}

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), CopySource: aws.String(bucket + "/src?versionId=" + v1)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(pc.CopySourceVersionId) != v1 {
		t.Fatalf("UploadPartCopy reported source %q", aws.ToString(pc.CopySourceVersionId))
	}
	_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(2), CopySource: aws.String(bucket + "/src?versionId=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")})
	wantCode(t, err, "NoSuchVersion")
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: pc.CopyPartResult.ETag}}}})
	if err != nil || aws.ToString(done.VersionId) == "" {
		t.Fatalf("complete: %+v %v", done, err)
	}
	if got, _ := getV(t, c, bucket, "mp", ""); !bytes.Equal(got, big) {
		t.Fatal("part copied from v1 holds other bytes")
	}

	// Delete markers: the current one reads as absent, one named is
	// refused as a source (AWS's InvalidRequest).
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("src")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("x"), CopySource: aws.String(bucket + "/src")})
	wantCode(t, err, "NoSuchKey")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("x"),
		CopySource: aws.String(bucket + "/src?versionId=" + aws.ToString(del.VersionId))})
	wantCode(t, err, "InvalidRequest")
	// A source in a bucket never versioned reports no version.
	c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("plain")})
	putV(t, c, "plain", "src", []byte("p"))
	cp, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("fromplain"), CopySource: aws.String("plain/src")})
	if err != nil || cp.CopySourceVersionId != nil || cp.VersionId == nil {
		t.Fatalf("copy from an unversioned bucket: %+v %v", cp, err)
	}
}

// DeleteObjects takes a VersionId per key and reports, per key, the
// marker it wrote or removed (DeleteMarker, DeleteMarkerVersionId) as AWS.
func TestDeleteObjectsVersions(t *testing.T) {
	c, _, srv := setup(t)
	ctx := context.Background()
	const bucket = "multidelete"
	versionedBucket(t, c, bucket)
	a1 := putV(t, c, bucket, "a", []byte("a1"))
	a2 := putV(t, c, bucket, "a", []byte("a2"))
	putV(t, c, bucket, "b", []byte("b1"))
	dm, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("c")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("a"), VersionId: &a1},
		{Key: aws.String("b")},
		{Key: aws.String("c"), VersionId: dm.VersionId},
	}}})
	if err != nil || len(out.Errors) != 0 || len(out.Deleted) != 3 {
		t.Fatalf("DeleteObjects: %+v %v", out, err)
	}
	byKey := map[string]types.DeletedObject{}
	for _, d := range out.Deleted {
		byKey[*d.Key] = d
	}
	if d := byKey["a"]; aws.ToString(d.VersionId) != a1 || aws.ToBool(d.DeleteMarker) {
		t.Fatalf("a: %+v", d)
	}
	if d := byKey["b"]; d.VersionId != nil || !aws.ToBool(d.DeleteMarker) || aws.ToString(d.DeleteMarkerVersionId) == "" {
		t.Fatalf("b: %+v", d)
	}
	if d := byKey["c"]; aws.ToString(d.VersionId) != aws.ToString(dm.VersionId) || !aws.ToBool(d.DeleteMarker) ||
		aws.ToString(d.DeleteMarkerVersionId) != aws.ToString(dm.VersionId) {
		t.Fatalf("c: %+v", d)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("a"), VersionId: &a1})
	wantCode(t, err, "NoSuchVersion")
	if got, _ := getV(t, c, bucket, "a", ""); string(got) != "a2" {
		t.Fatalf("a now %q", got)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("b")})
	wantCode(t, err, "NoSuchKey")
	vs := versionList(t, srv, bucket)
	if len(vs) != 3 || vs[0] != "a/"+a2+"*" || !strings.HasSuffix(vs[1], "*!") {
		t.Fatalf("versions %q", vs)
	}
}

// The ACL of each version is its own: Put/GetObjectAcl with versionId
// act on that version, current or not.
func TestVersionACLs(t *testing.T) {
	c, _, _ := setup(t)
	ctx := context.Background()
	const bucket = "versionacls"
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectOwnership: types.ObjectOwnershipBucketOwnerPreferred}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	v1 := putV(t, c, bucket, "k", []byte("v1"))
	v2 := putV(t, c, bucket, "k", []byte("v2"))
	acl, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: &v1,
		GrantRead: aws.String("id=" + aws.ToString(acl.Owner.ID)), GrantFullControl: aws.String("id=" + aws.ToString(acl.Owner.ID))}); err != nil {
		t.Fatal(err)
	}
	grants := func(v string) int {
		t.Helper()
		in := &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k")}
		if v != "" {
			in.VersionId = &v
		}
		out, err := c.GetObjectAcl(ctx, in)
		if err != nil {
			t.Fatalf("acl of %q: %v", v, err)
		}
		return len(out.Grants)
	}
	if g1, g2, cur := grants(v1), grants(v2), grants(""); g1 != 2 || g2 != 1 || cur != 1 {
		t.Fatalf("grants: v1 %d, v2 %d, current %d", g1, g2, cur)
	}
	_, err = c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")})
	wantCode(t, err, "NoSuchVersion")
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: del.VersionId})
	wantCode(t, err, "MethodNotAllowed")
	_, err = c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	wantCode(t, err, "NoSuchKey")
}

// A request that names a version is decided as AWS decides it, on the
// ...Version action: a policy that lets a user read and delete objects
// does not let it read old versions or remove any for good, and a Deny
// of s3:DeleteObjectVersion (the usual guard against a stolen key)
// keeps every version while deletes still write markers.
func TestVersionActions(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, cy := ten.clients["bob"], ten.clients["cy"]
	setVersioning(t, bob, "acme-bob", types.BucketVersioningStatusEnabled)
	v1 := putV(t, bob, "acme-bob", "doc", []byte("v1"))
	putV(t, bob, "acme-bob", "doc", []byte("v2"))
	policy := func(extra string) {
		t.Helper()
		doc := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},
			"Action":["s3:GetObject","s3:DeleteObject"` + extra + `],"Resource":"arn:aws:s3:::acme-bob/*"},
			{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObjectVersion","Resource":"arn:aws:s3:::acme-bob/*"}]}`
		if err := putPolicy(t, bob, "acme-bob", doc); err != nil {
			t.Fatal(err)
		}
	}
	policy("")
	if got, _ := getV(t, cy, "acme-bob", "doc", ""); string(got) != "v2" {
		t.Fatalf("cy reads %q", got)
	}
	_, err := cy.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("doc"), VersionId: &v1})
	wantCode(t, err, "AccessDenied")
	policy(`,"s3:GetObjectVersion"`)
	if got, _ := getV(t, cy, "acme-bob", "doc", v1); string(got) != "v1" {
		t.Fatalf("cy reads v1 as %q", got)
	}
	// Deny s3:DeleteObjectVersion: no one below the tenant admin removes
	// a version, the bucket's owner included; deletes still write markers.
	for _, c := range []*s3.Client{cy, bob} {
		_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("doc"), VersionId: &v1})
		wantCode(t, err, "AccessDenied")
	}
	del, err := cy.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("doc")})
	if err != nil || !aws.ToBool(del.DeleteMarker) {
		t.Fatalf("cy's delete: %+v %v", del, err)
	}
	out, err := bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("acme-bob"), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("doc"), VersionId: &v1}, {Key: aws.String("doc"), VersionId: del.VersionId}, {Key: aws.String("k")},
	}}})
	if err != nil || len(out.Errors) != 2 || len(out.Deleted) != 1 || *out.Deleted[0].Key != "k" || !aws.ToBool(out.Deleted[0].DeleteMarker) {
		t.Fatalf("DeleteObjects under the deny: %+v %v", out, err)
	}
	for _, e := range out.Errors {
		if aws.ToString(e.Code) != "AccessDenied" || aws.ToString(e.VersionId) == "" {
			t.Fatalf("refused key reported as %+v", e)
		}
	}
	if got, _ := getV(t, bob, "acme-bob", "doc", v1); string(got) != "v1" {
		t.Fatalf("v1 after the refused deletes: %q", got)
	}
}

// ListObjectVersions lists every version and delete marker in key order
// and, within a key, newest first, with IsLatest; pages (max-keys,
// key-marker, version-id-marker, NextKeyMarker, NextVersionIdMarker)
// split anywhere, within a key too; prefix and delimiter roll keys up
// into CommonPrefixes counted once; encoding-type=url encodes keys. The
// SDK's paginator walks it.
func TestListObjectVersionsComplete(t *testing.T) {
	c, _, srv := setup(t)
	ctx := context.Background()
	const bucket = "listing"
	versionedBucket(t, c, bucket)
	written := map[string][]string{} // key -> entries oldest first, as key/id[!]
	write := func(key string) {
		written[key] = append(written[key], key+"/"+putV(t, c, bucket, key, []byte(key)))
	}
	remove := func(key string) {
		d, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: &key})
		if err != nil {
			t.Fatal(err)
		}
		written[key] = append(written[key], key+"/"+aws.ToString(d.VersionId)+"!")
	}
	keys := []string{"a", "b/1", "b/2", "b/c/3", "c", "d e+f/\u00e9", "many", "z"}
	for i, k := range keys {
		for range i%3 + 1 {
			write(k)
		}
	}
	remove("a")
	write("a")
	remove("c")
	for range 27 {
		write("many")
	}
	var want []string
	for _, k := range keys {
		es := written[k]
		for i := len(es) - 1; i >= 0; i-- {
			e := es[i]
			if i == len(es)-1 {
				if m, ok := strings.CutSuffix(e, "!"); ok {
					e = m + "*!"
				} else {
					e += "*"
				}
			}
			want = append(want, e)
		}
	}
	wantList(t, versionList(t, srv, bucket), want...)

	// Pages of 7 split keys; each page is the next run of the listing.
	entry := func(key, id string, latest, marker bool) string {
		s := key + "/" + id
		if latest {
			s += "*"
		}
		if marker {
			s += "!"
		}
		return s
	}
	off := 0
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(7)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, v := range page.Versions {
			got[entry(*v.Key, *v.VersionId, *v.IsLatest, false)] = true
		}
		for _, m := range page.DeleteMarkers {
			got[entry(*m.Key, *m.VersionId, *m.IsLatest, true)] = true
		}
		n := len(got)
		if n == 0 || n > 7 || off+n > len(want) {
			t.Fatalf("page of %d at %d", n, off)
		}
		for _, w := range want[off : off+n] {
			if !got[w] {
				t.Fatalf("page at %d lacks %s: %v", off, w, got)
			}
		}
		off += n
		last := strings.TrimRight(want[off-1], "*!")
		if aws.ToBool(page.IsTruncated) && aws.ToString(page.NextKeyMarker)+"/"+aws.ToString(page.NextVersionIdMarker) != last {
			t.Fatalf("next markers %q %q, want %s", aws.ToString(page.NextKeyMarker), aws.ToString(page.NextVersionIdMarker), last)
		}
	}
	if off != len(want) {
		t.Fatalf("paginator saw %d of %d entries", off, len(want))
	}

	// A delimiter rolls keys into prefixes, each once however many
	// versions it holds, across pages of 2.
	var prefixes, top []string
	p = s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Delimiter: aws.String("/"), MaxKeys: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, cp := range page.CommonPrefixes {
			prefixes = append(prefixes, *cp.Prefix)
		}
		for _, v := range page.Versions {
			top = append(top, *v.Key)
		}
		for _, m := range page.DeleteMarkers {
			top = append(top, *m.Key)
		}
	}
	if strings.Join(prefixes, ",") != "b/,d e+f/" || len(top) != len(written["a"])+len(written["c"])+len(written["many"])+len(written["z"]) {
		t.Fatalf("with delimiter: prefixes %q, %d versions", prefixes, len(top))
	}
	out, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String("b/"), Delimiter: aws.String("/")})
	if err != nil || len(out.CommonPrefixes) != 1 || *out.CommonPrefixes[0].Prefix != "b/c/" || len(out.Versions) != len(written["b/1"])+len(written["b/2"]) {
		t.Fatalf("prefix b/: %+v %v", out, err)
	}

	// key-marker alone resumes after every version of its key; with a
	// version-id-marker, after that version.
	out, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), KeyMarker: aws.String("b/1"), MaxKeys: aws.Int32(1)})
	if err != nil || len(out.Versions) != 1 || *out.Versions[0].Key != "b/2" || aws.ToString(out.KeyMarker) != "b/1" {
		t.Fatalf("after b/1: %+v %v", out, err)
	}
	mid := written["many"][10]
	midID := strings.TrimPrefix(mid, "many/")
	out, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String("many"),
		KeyMarker: aws.String("many"), VersionIdMarker: &midID})
	if err != nil || len(out.Versions) != 10 || aws.ToString(out.Versions[0].VersionId) != strings.TrimPrefix(written["many"][9], "many/") ||
		aws.ToString(out.VersionIdMarker) != midID {
		t.Fatalf("after many/%s: %d versions, %v", midID, len(out.Versions), err)
	}

	// AWS's answers to markers that do not fit.
	_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), VersionIdMarker: &midID})
	wantCode(t, err, "InvalidArgument")
	_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), KeyMarker: aws.String("a"), VersionIdMarker: aws.String("not/an id")})
	wantCode(t, err, "InvalidArgument")

	// encoding-type=url encodes keys and markers; the SDK hands them on
	// as sent.
	status, _, body := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"?versions&encoding-type=url&prefix=d&max-keys=1", nil, nil))
	doc := string(body)
	enc := strings.ReplaceAll(url.QueryEscape("d e+f/\u00e9"), "%2F", "/") // "/" as AWS leaves it
	if status != http.StatusOK || !strings.Contains(doc, "<Key>"+enc+"</Key>") || !strings.Contains(doc, "<NextKeyMarker>"+enc+"</NextKeyMarker>") ||
		!strings.Contains(doc, "<EncodingType>url</EncodingType>") {
		t.Fatalf("encoding-type=url: %d %s", status, doc)
	}
}

// Every version is stored bytes: noncurrent versions count in a bucket's
// usage and quotas (as AWS bills them), delete markers add nothing and
// pass even over a quota, and removing a version gives its room back.
func TestVersionsCountInUsage(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	usage := func() catalog.Usage {
		t.Helper()
		var u admin.Usage
		if err := ten.admin.Do(ctx, "GET", "/tenants/acme/usage", nil, &u); err != nil {
			t.Fatal(err)
		}
		return u.Now
	}
	// acme-bob holds "k" (16 bytes).
	setVersioning(t, bob, "acme-bob", types.BucketVersioningStatusEnabled)
	v1 := putV(t, bob, "acme-bob", "v", make([]byte, 100))
	putV(t, bob, "acme-bob", "v", make([]byte, 200))
	if u := usage(); u != (catalog.Usage{Bytes: 316, Objects: 3}) {
		t.Fatalf("usage %+v, want 316 bytes in 3 versions", u)
	}
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("v")}); err != nil {
		t.Fatal(err)
	}
	if u := usage(); u != (catalog.Usage{Bytes: 316, Objects: 3}) {
		t.Fatalf("usage %+v after a delete marker, want it unchanged", u)
	}
	setQuota(t, ten, admin.Quota{Tenant: "acme", MaxObjects: 3})
	_, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("v"), Body: bytes.NewReader([]byte("x"))})
	wantCode(t, err, "QuotaExceeded")
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("k")}); err != nil {
		t.Fatalf("a delete marker over the quota: %v", err)
	}
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("v"), VersionId: &v1}); err != nil {
		t.Fatal(err)
	}
	if u := usage(); u != (catalog.Usage{Bytes: 216, Objects: 2}) {
		t.Fatalf("usage %+v after removing v1", u)
	}
	putV(t, bob, "acme-bob", "v", []byte("x"))
}

// Versions live on an S3 platform as on local disk: each version of a
// key is its own blob there, a delete marker writes none, and removing
// a version for good has its blob collected from the platform.
func TestVersionsOnS3Platform(t *testing.T) {
	ctx := context.Background()
	remote := nodetest.Start(t, nodetest.Options{})
	gw := nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.GCInterval = 100 * time.Millisecond
		c.Platforms = map[string]platform.Spec{
			"remote": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: remote.URL, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey,
				PathStyle: true, Layout: s3blob.LayoutShared, Bucket: "ostium", Retries: -1, Timeout: 5 * time.Second}},
		}
		c.DefaultPlatform = "remote"
	}})
	c := client(t, gw, gw.URL, false)
	direct := client(t, remote, remote.URL, false)
	if _, err := direct.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("ostium")}); err != nil {
		t.Fatal(err)
	}
	onRemote := func() int {
		t.Helper()
		out, err := direct.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("ostium")})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Contents)
	}
	versionedBucket(t, c, "vers")
	big := func(seed uint64) []byte { return randBytes(1<<20, seed) } // past the inline limit: a blob
	v1 := putV(t, c, "vers", "k", big(1))
	putV(t, c, "vers", "k", big(2))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("vers"), Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
	if n := onRemote(); n != 2 {
		t.Fatalf("%d blobs on the platform for two versions and a marker", n)
	}
	if got, _ := getV(t, c, "vers", "k", v1); !bytes.Equal(got, big(1)) {
		t.Fatal("v1 read back from the platform differs")
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("vers"), Key: aws.String("k"), VersionId: &v1}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for onRemote() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("v1's blob was not collected from the platform: %d blobs", onRemote())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
