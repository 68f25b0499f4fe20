package s3_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
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
	"github.com/minio/crc64nvme"
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
	// Its one part's checksum is the object's (the SDK put a CRC32 and
	// checks it against what it reads); an object of parts without
	// additional checksums has none.
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("whole"), PartNumber: aws.Int32(1),
		ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(g.Body)
	g.Body.Close()
	if err != nil || !bytes.Equal(body, data) || aws.ToString(g.ChecksumCRC32) != checksumOf(types.ChecksumAlgorithmCrc32, data) {
		t.Fatalf("part 1 of a whole object, with its checksum: %v %q %v", err, body, aws.ToString(g.ChecksumCRC32))
	}
	h, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("mp"), PartNumber: aws.Int32(1),
		ChecksumMode: types.ChecksumModeEnabled})
	if err != nil || h.ChecksumCRC32 != nil || h.ChecksumType != "" {
		t.Fatalf("part of an object without checksums: %v %v %s", err, aws.ToString(h.ChecksumCRC32), h.ChecksumType)
	}

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

// checksumOf is algo's checksum of b, base64 as S3 shows it, computed
// here apart from the server: the standard library's CRC32, CRC32C,
// SHA-1 and SHA-256 (what the SDK uses too), and minio's CRC-64/NVME.
func checksumOf(algo types.ChecksumAlgorithm, b []byte) string {
	var h hash.Hash
	switch algo {
	case types.ChecksumAlgorithmCrc32:
		h = crc32.NewIEEE()
	case types.ChecksumAlgorithmCrc32c:
		h = crc32.New(crc32.MakeTable(crc32.Castagnoli))
	case types.ChecksumAlgorithmCrc64nvme:
		h = crc64nvme.New()
	case types.ChecksumAlgorithmSha1:
		h = sha1.New()
	case types.ChecksumAlgorithmSha256:
		h = sha256.New()
	}
	h.Write(b)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// composite is S3's COMPOSITE checksum of parts: algo's checksum of the
// parts' binary checksums in order, with "-" and the part count.
func composite(algo types.ChecksumAlgorithm, parts [][]byte) string {
	var sums []byte
	for _, p := range parts {
		raw, _ := base64.StdEncoding.DecodeString(checksumOf(algo, p))
		sums = append(sums, raw...)
	}
	return checksumOf(algo, sums) + "-" + strconv.Itoa(len(parts))
}

// sumField picks algo's field among an answer's checksums.
func sumField(algo types.ChecksumAlgorithm, crc32, crc32c, crc64, sha1, sha256 *string) string {
	return aws.ToString(map[types.ChecksumAlgorithm]*string{types.ChecksumAlgorithmCrc32: crc32, types.ChecksumAlgorithmCrc32c: crc32c,
		types.ChecksumAlgorithmCrc64nvme: crc64, types.ChecksumAlgorithmSha1: sha1, types.ChecksumAlgorithmSha256: sha256}[algo])
}

// TestMultipartChecksumAlgorithms: every checksum algorithm of
// multipart uploads, as AWS documents them ("Checking object integrity"):
// COMPOSITE for CRC32, CRC32C, SHA-1 and SHA-256 (the checksum of the
// parts' checksums, "-N"), FULL_OBJECT for CRC32, CRC32C and CRC64NVME
// (the CRC of the whole object, combined from the parts' CRCs), CRC64NVME
// FULL_OBJECT by default. The completion, HEAD and GET with
// x-amz-checksum-mode ENABLED (the SDK checks a full-object value
// against the bytes it reads) and GetObjectAttributes (Checksum, and
// ObjectParts with each part's size and checksum) all give the values
// computed here from the bytes; a retried completion gives them again.
func TestMultipartChecksumAlgorithms(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	parts := [][]byte{randBytes(5*mib, 71), randBytes(5*mib+1, 72), randBytes(4097, 73)}
	whole := bytes.Join(parts, nil)
	for _, tc := range []struct {
		algo types.ChecksumAlgorithm
		typ  types.ChecksumType // "" is the algorithm's default
		want types.ChecksumType
	}{
		{types.ChecksumAlgorithmCrc32, types.ChecksumTypeComposite, types.ChecksumTypeComposite},
		{types.ChecksumAlgorithmCrc32c, "", types.ChecksumTypeComposite},
		{types.ChecksumAlgorithmSha1, "", types.ChecksumTypeComposite},
		{types.ChecksumAlgorithmSha256, types.ChecksumTypeComposite, types.ChecksumTypeComposite},
		{types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, types.ChecksumTypeFullObject},
		{types.ChecksumAlgorithmCrc32c, types.ChecksumTypeFullObject, types.ChecksumTypeFullObject},
		{types.ChecksumAlgorithmCrc64nvme, "", types.ChecksumTypeFullObject},
		{types.ChecksumAlgorithmCrc64nvme, types.ChecksumTypeFullObject, types.ChecksumTypeFullObject},
	} {
		name := string(tc.algo) + "-" + string(tc.want)
		if tc.typ == "" {
			name += "-default"
		}
		t.Run(name, func(t *testing.T) {
			key := "sums/" + name
			want := checksumOf(tc.algo, whole)
			if tc.want == types.ChecksumTypeComposite {
				want = composite(tc.algo, parts)
			}
			cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key,
				ChecksumAlgorithm: tc.algo, ChecksumType: tc.typ})
			if err != nil {
				t.Fatal(err)
			}
			if cu.ChecksumAlgorithm != tc.algo || cu.ChecksumType != tc.want {
				t.Fatalf("created with %s %s", cu.ChecksumAlgorithm, cu.ChecksumType)
			}
			var done []types.CompletedPart
			for i, p := range parts {
				n := int32(i + 1)
				up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: &n,
					Body: bytes.NewReader(p), ChecksumAlgorithm: tc.algo})
				if err != nil {
					t.Fatalf("part %d: %v", n, err)
				}
				got := sumField(tc.algo, up.ChecksumCRC32, up.ChecksumCRC32C, up.ChecksumCRC64NVME, up.ChecksumSHA1, up.ChecksumSHA256)
				if got != checksumOf(tc.algo, p) {
					t.Fatalf("part %d checksum %q, want %q", n, got, checksumOf(tc.algo, p))
				}
				done = append(done, types.CompletedPart{PartNumber: &n, ETag: up.ETag, ChecksumCRC32: up.ChecksumCRC32,
					ChecksumCRC32C: up.ChecksumCRC32C, ChecksumCRC64NVME: up.ChecksumCRC64NVME, ChecksumSHA1: up.ChecksumSHA1,
					ChecksumSHA256: up.ChecksumSHA256})
			}
			in := &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, ChecksumType: tc.typ,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}
			if tc.want == types.ChecksumTypeFullObject {
				// The whole object's value, declared, is checked.
				switch tc.algo {
				case types.ChecksumAlgorithmCrc32:
					in.ChecksumCRC32 = &want
				case types.ChecksumAlgorithmCrc32c:
					in.ChecksumCRC32C = &want
				case types.ChecksumAlgorithmCrc64nvme:
					in.ChecksumCRC64NVME = &want
				}
			}
			for try := 0; try < 2; try++ { // the second is a retry
				cm, err := c.CompleteMultipartUpload(ctx, in)
				if err != nil {
					t.Fatalf("complete (try %d): %v", try, err)
				}
				got := sumField(tc.algo, cm.ChecksumCRC32, cm.ChecksumCRC32C, cm.ChecksumCRC64NVME, cm.ChecksumSHA1, cm.ChecksumSHA256)
				if got != want || cm.ChecksumType != tc.want {
					t.Fatalf("completed (try %d) with %q %s, want %q %s", try, got, cm.ChecksumType, want, tc.want)
				}
			}
			h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key, ChecksumMode: types.ChecksumModeEnabled})
			if err != nil {
				t.Fatal(err)
			}
			if got := sumField(tc.algo, h.ChecksumCRC32, h.ChecksumCRC32C, h.ChecksumCRC64NVME, h.ChecksumSHA1, h.ChecksumSHA256); got != want || h.ChecksumType != tc.want {
				t.Fatalf("HEAD: %q %s, want %q %s", got, h.ChecksumType, want, tc.want)
			}
			g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, ChecksumMode: types.ChecksumModeEnabled})
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(g.Body) // the SDK validates a full-object checksum here
			g.Body.Close()
			if err != nil || !bytes.Equal(body, whole) {
				t.Fatalf("GET: %v, %d bytes", err, len(body))
			}
			if got := sumField(tc.algo, g.ChecksumCRC32, g.ChecksumCRC32C, g.ChecksumCRC64NVME, g.ChecksumSHA1, g.ChecksumSHA256); got != want {
				t.Fatalf("GET checksum %q, want %q", got, want)
			}
			// A part read by number: a COMPOSITE object's part has its own
			// checksum (which the SDK checks against the part's bytes), a
			// FULL_OBJECT one's none, as AWS answers.
			wantPart := ""
			if tc.want == types.ChecksumTypeComposite {
				wantPart = checksumOf(tc.algo, parts[1])
			}
			hp, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key, PartNumber: aws.Int32(2), ChecksumMode: types.ChecksumModeEnabled})
			if err != nil {
				t.Fatal(err)
			}
			if got := sumField(tc.algo, hp.ChecksumCRC32, hp.ChecksumCRC32C, hp.ChecksumCRC64NVME, hp.ChecksumSHA1, hp.ChecksumSHA256); got != wantPart {
				t.Fatalf("HEAD part 2: checksum %q, want %q", got, wantPart)
			}
			gp, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, PartNumber: aws.Int32(2), ChecksumMode: types.ChecksumModeEnabled})
			if err != nil {
				t.Fatal(err)
			}
			body, err = io.ReadAll(gp.Body)
			gp.Body.Close()
			got := sumField(tc.algo, gp.ChecksumCRC32, gp.ChecksumCRC32C, gp.ChecksumCRC64NVME, gp.ChecksumSHA1, gp.ChecksumSHA256)
			if err != nil || !bytes.Equal(body, parts[1]) || got != wantPart {
				t.Fatalf("GET part 2: %v, %d bytes, checksum %q, want %q", err, len(body), got, wantPart)
			}
			a, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: &key,
				ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesChecksum, types.ObjectAttributesObjectParts}})
			if err != nil {
				t.Fatal(err)
			}
			ck := a.Checksum
			if ck == nil || sumField(tc.algo, ck.ChecksumCRC32, ck.ChecksumCRC32C, ck.ChecksumCRC64NVME, ck.ChecksumSHA1, ck.ChecksumSHA256) != want ||
				ck.ChecksumType != tc.want {
				t.Fatalf("attributes' checksum %+v, want %q %s", ck, want, tc.want)
			}
			op := a.ObjectParts
			if op == nil || aws.ToInt32(op.TotalPartsCount) != 3 || len(op.Parts) != 3 {
				t.Fatalf("attributes' parts %+v", op)
			}
			for i, p := range op.Parts {
				got := sumField(tc.algo, p.ChecksumCRC32, p.ChecksumCRC32C, p.ChecksumCRC64NVME, p.ChecksumSHA1, p.ChecksumSHA256)
				if aws.ToInt32(p.PartNumber) != int32(i+1) || aws.ToInt64(p.Size) != int64(len(parts[i])) || got != checksumOf(tc.algo, parts[i]) {
					t.Fatalf("attributes' part %d: number %d size %d checksum %q", i+1, aws.ToInt32(p.PartNumber), aws.ToInt64(p.Size), got)
				}
			}
		})
	}
}

// TestCompletePartChecksums: the parts' checksums listed in
// CompleteMultipartUpload are checked against the parts', as AWS: an
// upload created with a COMPOSITE checksum must list each part's ("The
// upload was created using a crc32c checksum. The complete request must
// include the checksum for each part. It was missing for part 1 in the
// request.", 400 InvalidRequest), a FULL_OBJECT one may leave them out,
// and a listed checksum that is not the part's is InvalidPart. A refused
// completion leaves the upload open.
func TestCompletePartChecksums(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	parts := [][]byte{randBytes(5*mib, 81), randBytes(100, 82)}
	for _, typ := range []types.ChecksumType{types.ChecksumTypeComposite, types.ChecksumTypeFullObject} {
		key := "parts-" + string(typ)
		cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key,
			ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c, ChecksumType: typ})
		if err != nil {
			t.Fatal(err)
		}
		var done, bare []types.CompletedPart
		for i, p := range parts {
			n := int32(i + 1)
			up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: &n,
				Body: bytes.NewReader(p), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c})
			if err != nil {
				t.Fatal(err)
			}
			done = append(done, types.CompletedPart{PartNumber: &n, ETag: up.ETag, ChecksumCRC32C: up.ChecksumCRC32C})
			bare = append(bare, types.CompletedPart{PartNumber: &n, ETag: up.ETag})
		}
		complete := func(list []types.CompletedPart) error {
			_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: list}})
			return err
		}
		// Part 2's checksum listed for part 1.
		swapped := []types.CompletedPart{{PartNumber: done[0].PartNumber, ETag: done[0].ETag, ChecksumCRC32C: done[1].ChecksumCRC32C}, done[1]}
		wantCode(t, complete(swapped), "InvalidPart")
		if typ == types.ChecksumTypeComposite {
			err := complete(bare)
			wantCode(t, err, "InvalidRequest")
			var ae interface{ ErrorMessage() string }
			if !errors.As(err, &ae) || ae.ErrorMessage() != "The upload was created using a crc32c checksum. The complete request must include the checksum for each part. It was missing for part 1 in the request." {
				t.Fatalf("missing part checksums: %v", err)
			}
			// One missing among others present: named by its number.
			err = complete([]types.CompletedPart{done[0], bare[1]})
			if !errors.As(err, &ae) || !strings.HasSuffix(ae.ErrorMessage(), "It was missing for part 2 in the request.") {
				t.Fatalf("part 2's checksum missing: %v", err)
			}
			if err := complete(done); err != nil {
				t.Fatalf("complete after refusals: %v", err)
			}
		} else if err := complete(bare); err != nil {
			t.Fatalf("FULL_OBJECT completed without the parts' checksums: %v", err)
		}
		if !bytes.Equal(get(t, c, bucket, key), bytes.Join(parts, nil)) {
			t.Fatal("completed object differs")
		}
	}
}
