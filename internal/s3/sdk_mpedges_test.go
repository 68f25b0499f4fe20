package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// rawStatus returns the HTTP status of an SDK call's output.
func rawStatus(md middleware.Metadata) int {
	if r, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		return r.StatusCode
	}
	return 0
}

// errStatus returns the HTTP status of a failed SDK call, or 0.
func errStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// uploadParts starts an upload of key, stores parts in it and returns
// the upload id and the list that completes it.
func uploadParts(t *testing.T, c *s3.Client, bucket, key string, parts [][]byte) (*string, []types.CompletedPart) {
	t.Helper()
	ctx := context.Background()
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i, p := range parts {
		n := int32(i + 1)
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: &n, Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatalf("part %d: %v", n, err)
		}
		done = append(done, types.CompletedPart{PartNumber: &n, ETag: out.ETag})
	}
	return cu.UploadId, done
}

// TestCompleteRetried: CompleteMultipartUpload sent again after it
// succeeded, as an SDK does when the first response was lost, answers
// 200 with the same ETag, location and version, as AWS does for a
// recently completed upload (its API reference asks applications to be
// prepared to retry CompleteMultipartUpload; AWS answers such a retry
// with the completed object rather than NoSuchUpload). A list that is not
// the one completed, or an upload whose object was replaced since, is
// NoSuchUpload: "the upload may have been aborted or completed".
func TestCompleteRetried(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	key := "retried"
	parts := [][]byte{randBytes(5*mib, 51), randBytes(321, 52)}
	id, done := uploadParts(t, c, bucket, key, parts)
	complete := func(list []types.CompletedPart, inm *string) (*s3.CompleteMultipartUploadOutput, error) {
		return c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: id,
			IfNoneMatch: inm, MultipartUpload: &types.CompletedMultipartUpload{Parts: list}})
	}
	first, err := complete(done, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, inm := range []*string{nil, nil, aws.String("*")} {
		// If-None-Match: * held when the upload completed; its retry
		// finds the object it made, which is no reason to refuse it.
		again, err := complete(done, inm)
		if err != nil {
			t.Fatalf("retry %d: %v", i, err)
		}
		if *again.ETag != *first.ETag || *again.Location != *first.Location || *again.Bucket != bucket || *again.Key != key ||
			again.VersionId == nil || *again.VersionId != *first.VersionId {
			t.Fatalf("retry %d answered %s %s %v, first %s %s %s", i, *again.ETag, *again.Location, again.VersionId,
				*first.ETag, *first.Location, *first.VersionId)
		}
	}
	// The retry changed nothing: one version, the parts' bytes.
	vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: &bucket, Prefix: &key})
	if err != nil || len(vs.Versions) != 1 {
		t.Fatalf("versions after retries: %v %d", err, len(vs.Versions))
	}
	if !bytes.Equal(get(t, c, bucket, key), bytes.Join(parts, nil)) {
		t.Fatal("object differs after retries")
	}

	// Another list is not a retry of this completion.
	_, err = complete(done[:1], nil)
	wantCode(t, err, "NoSuchUpload")
	swapped := []types.CompletedPart{done[0], {PartNumber: aws.Int32(3), ETag: done[1].ETag}}
	_, err = complete(swapped, nil)
	wantCode(t, err, "NoSuchUpload")

	// Once the key has a newer version, the upload's object is no longer
	// what a retry would answer with.
	put(t, c, bucket, key, []byte("newer"))
	_, err = complete(done, nil)
	wantCode(t, err, "NoSuchUpload")

	// A retry needs the right to write the key, as the completion did.
	id2, done2 := uploadParts(t, c, bucket, "other", [][]byte{[]byte("x")})
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("other"), UploadId: id2,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done2}}); err != nil {
		t.Fatal(err)
	}
	// Another key's upload id is no upload of this key.
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: id2,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done2}})
	wantCode(t, err, "NoSuchUpload")
}

// TestConditionalOverwrite: If-Match on PutObject and
// CompleteMultipartUpload writes only over the version whose ETag it
// names. As AWS documents conditional writes: a different ETag is 412
// PreconditionFailed, and no object of the key (none, or a delete marker
// current) is 404 NoSuchKey; a refused completion leaves the upload open.
func TestConditionalOverwrite(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	first := put(t, c, bucket, "k", []byte("first"))
	putIf := func(key, etag string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader("next"), IfMatch: &etag})
		return err
	}
	err := putIf("k", `"0123456789abcdef0123456789abcdef"`)
	wantCode(t, err, "PreconditionFailed")
	if errStatus(err) != http.StatusPreconditionFailed {
		t.Fatalf("wrong ETag: %v", err)
	}
	err = putIf("absent", *first.ETag)
	wantCode(t, err, "NoSuchKey")
	if errStatus(err) != http.StatusNotFound {
		t.Fatalf("no object: %v", err)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("absent")}); err == nil {
		t.Fatal("a refused write made the object")
	}
	// The ETag as the response gave it, or without its quotes.
	if err := putIf("k", *first.ETag); err != nil {
		t.Fatal(err)
	}
	second, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	if err := putIf("k", strings.Trim(*second.ETag, `"`)); err != nil {
		t.Fatalf("unquoted ETag: %v", err)
	}
	wantCode(t, putIf("k", *first.ETag), "PreconditionFailed") // stale now

	// A delete marker is no object to match.
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	put(t, c, bucket, "gone", []byte("x"))
	etag := md5hex([]byte("x"))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, putIf("gone", etag), "NoSuchKey")

	// CompleteMultipartUpload: the same answers, and the upload stays.
	cur, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	id, done := uploadParts(t, c, bucket, "k", [][]byte{[]byte("multipart")})
	completeIf := func(key string, id *string, etag string) error {
		_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: id,
			IfMatch: &etag, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
		return err
	}
	wantCode(t, completeIf("k", id, `"0123456789abcdef0123456789abcdef"`), "PreconditionFailed")
	if err := completeIf("k", id, *cur.ETag); err != nil {
		t.Fatalf("complete over the ETag named: %v", err)
	}
	if got := string(get(t, c, bucket, "k")); got != "multipart" {
		t.Fatalf("completed object %q", got)
	}
	id, done = uploadParts(t, c, bucket, "new", [][]byte{[]byte("multipart")})
	wantCode(t, completeIf("new", id, *cur.ETag), "NoSuchKey")
	// Still open: it completes without the condition.
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("new"), UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatalf("complete after a refused condition: %v", err)
	}
	// If-None-Match: * on a completion over an existing object.
	id, done = uploadParts(t, c, bucket, "new", [][]byte{[]byte("again")})
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("new"), UploadId: id,
		IfNoneMatch: aws.String("*"), MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	wantCode(t, err, "PreconditionFailed")
}

// TestGetPartNumber: GET and HEAD with partNumber read one part as a
// ranged request for it, as AWS documents ("effectively performs a
// 'ranged' GET request for the part specified"): 206, the part's length,
// its Content-Range within the object and x-amz-mp-parts-count. An
// object not uploaded in parts has one part, itself (206 with the whole
// range and no parts count, as AWS answers). A part past the last is 416
// InvalidPartNumber, partNumber with Range is 400 InvalidRequest, and a
// number outside 1..10000 is 400 InvalidArgument.
func TestGetPartNumber(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	parts := [][]byte{randBytes(5*mib, 61), randBytes(5*mib+3, 62), randBytes(999, 63)}
	id, done := uploadParts(t, c, bucket, "mp", parts)
	cm, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"), UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(len(bytes.Join(parts, nil)))
	var start int64
	for i, p := range parts {
		n := int32(i + 1)
		wantRange := fmt.Sprintf("bytes %d-%d/%d", start, start+int64(len(p))-1, total)
		start += int64(len(p))
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("mp"), PartNumber: &n})
		if err != nil {
			t.Fatalf("GET part %d: %v", n, err)
		}
		body, _ := io.ReadAll(g.Body)
		g.Body.Close()
		if st := rawStatus(g.ResultMetadata); st != http.StatusPartialContent || !bytes.Equal(body, p) || *g.ContentLength != int64(len(p)) ||
			g.ContentRange == nil || *g.ContentRange != wantRange || g.PartsCount == nil || *g.PartsCount != 3 || *g.ETag != *cm.ETag {
			t.Fatalf("GET part %d: %d, %d bytes, range %v (want %s), parts %v", n, st, len(body), aws.ToString(g.ContentRange), wantRange, g.PartsCount)
		}
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("mp"), PartNumber: &n})
		if err != nil {
			t.Fatalf("HEAD part %d: %v", n, err)
		}
		if st := rawStatus(h.ResultMetadata); st != http.StatusPartialContent || *h.ContentLength != int64(len(p)) ||
			h.ContentRange == nil || *h.ContentRange != wantRange || h.PartsCount == nil || *h.PartsCount != 3 {
			t.Fatalf("HEAD part %d: %d, length %d, range %v, parts %v", n, st, *h.ContentLength, aws.ToString(h.ContentRange), h.PartsCount)
		}
	}
	// The whole object's answers carry no parts count (AWS sends it only
	// to a request with partNumber).
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("mp")})
	if err != nil || h.PartsCount != nil || *h.ContentLength != total {
		t.Fatalf("HEAD whole: %v parts %v length %d", err, h.PartsCount, *h.ContentLength)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("mp"), PartNumber: aws.Int32(4)})
	wantCode(t, err, "InvalidPartNumber")
	if errStatus(err) != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("part 4 of 3: %v", err)
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("mp"), PartNumber: aws.Int32(4)})
	if errStatus(err) != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("HEAD part 4 of 3: %v", err)
	}

	// A whole object: part 1 is all of it, as a range.
	data := []byte("one piece!")
	put(t, c, bucket, "whole", data)
	for _, head := range []bool{false, true} {
		var st int
		var length int64
		var cr *string
		var count *int32
		if head {
			h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("whole"), PartNumber: aws.Int32(1)})
			if err != nil {
				t.Fatal(err)
			}
			st, length, cr, count = rawStatus(h.ResultMetadata), *h.ContentLength, h.ContentRange, h.PartsCount
		} else {
			g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("whole"), PartNumber: aws.Int32(1)})
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(g.Body)
			g.Body.Close()
			if !bytes.Equal(body, data) {
				t.Fatalf("part 1 of a whole object: %q", body)
			}
			st, length, cr, count = rawStatus(g.ResultMetadata), *g.ContentLength, g.ContentRange, g.PartsCount
		}
		if st != http.StatusPartialContent || length != 10 || aws.ToString(cr) != "bytes 0-9/10" || count != nil {
			t.Fatalf("part 1 of a whole object (head %v): %d length %d range %v parts %v", head, st, length, aws.ToString(cr), count)
		}
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("whole"), PartNumber: aws.Int32(2)})
	wantCode(t, err, "InvalidPartNumber")

	// partNumber with Range, and numbers out of S3's range.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("mp"), PartNumber: aws.Int32(1), Range: aws.String("bytes=0-9")})
	wantCode(t, err, "InvalidRequest")
	if errStatus(err) != http.StatusBadRequest {
		t.Fatalf("partNumber and Range: %v", err)
	}
	for _, n := range []string{"0", "10001", "-1", "x", ""} {
		status, code, _ := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"/mp?partNumber="+n, nil, nil))
		if status != http.StatusBadRequest || code != "InvalidArgument" {
			t.Fatalf("partNumber=%s: %d %s", n, status, code)
		}
	}
	status, _, _ := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"/mp?partNumber="+strconv.Itoa(10000), nil, nil))
	if status != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("partNumber=10000 of 3: %d", status)
	}
}
