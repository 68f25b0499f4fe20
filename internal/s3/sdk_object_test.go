package s3_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func TestPutGetMetadata(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	data := randBytes(100_000, 1)
	key := "dir/ünïcode key+with spaces&?#.bin"
	expires := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	out, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &bucket, Key: &key, Body: bytes.NewReader(data),
		ContentType: aws.String("application/x-test"), ContentEncoding: aws.String("identity"),
		ContentDisposition: aws.String(`attachment; filename="a.bin"`), ContentLanguage: aws.String("fr"),
		CacheControl: aws.String("max-age=60"), Expires: &expires,
		Metadata: map[string]string{"Color": "blue", "n": "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if *out.ETag != md5hex(data) {
		t.Fatalf("ETag %s, want MD5 %s", *out.ETag, md5hex(data))
	}
	// The SDK sent a trailing CRC32 and we store and return it.
	if out.ChecksumCRC32 == nil || *out.ChecksumCRC32 == "" {
		t.Fatalf("PUT returned no CRC32 checksum")
	}
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(g.Body)
	g.Body.Close()
	if !bytes.Equal(body, data) {
		t.Fatal("body differs")
	}
	if *g.ContentType != "application/x-test" || *g.ContentEncoding != "identity" || *g.ContentLanguage != "fr" ||
		*g.CacheControl != "max-age=60" || *g.ContentDisposition != `attachment; filename="a.bin"` ||
		*g.ExpiresString != expires.Format("Mon, 02 Jan 2006 15:04:05 GMT") {
		t.Fatalf("headers not returned: %+v", g)
	}
	if g.Metadata["color"] != "blue" || g.Metadata["n"] != "1" || *g.ContentLength != int64(len(data)) {
		t.Fatalf("metadata %v length %d", g.Metadata, *g.ContentLength)
	}
	if g.ChecksumCRC32 == nil || *g.ChecksumCRC32 != *out.ChecksumCRC32 {
		t.Fatalf("GET checksum %v, PUT %v", g.ChecksumCRC32, *out.ChecksumCRC32)
	}

	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil || *h.ContentLength != int64(len(data)) || *h.ETag != md5hex(data) {
		t.Fatalf("head: %v %+v", err, h)
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("missing")})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("head of missing key: %v", err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("missing")})
	wantCode(t, err, "NoSuchKey")

	// Overwrite replaces.
	put(t, c, bucket, key, []byte("short"))
	if got := get(t, c, bucket, key); string(got) != "short" {
		t.Fatalf("after overwrite: %q", got)
	}
	// Empty object.
	put(t, c, bucket, "empty", nil)
	if got := get(t, c, bucket, "empty"); len(got) != 0 {
		t.Fatalf("empty object read %d bytes", len(got))
	}
}

func TestChecksumAlgorithms(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	data := []byte("123456789")
	for _, algo := range []types.ChecksumAlgorithm{types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c,
		types.ChecksumAlgorithmSha1, types.ChecksumAlgorithmSha256, types.ChecksumAlgorithmCrc64nvme} {
		key := "ck-" + string(algo)
		out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data), ChecksumAlgorithm: algo})
		if err != nil {
			t.Fatalf("%s: %v", algo, err)
		}
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatalf("%s: get: %v", algo, err)
		}
		io.ReadAll(g.Body) // the SDK validates the checksum as it reads
		g.Body.Close()
		if algo == types.ChecksumAlgorithmCrc64nvme && (out.ChecksumCRC64NVME == nil || *out.ChecksumCRC64NVME != "rosUhgp5mIg=") {
			t.Fatalf("CRC64NVME of 123456789 = %v, want rosUhgp5mIg= (0xAE8B14860A799888)", out.ChecksumCRC64NVME)
		}
	}
	// A wrong declared checksum is refused and stores nothing.
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("bad"), Body: bytes.NewReader(data),
		ChecksumSHA256: aws.String("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")})
	wantCode(t, err, "BadDigest")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("bad")})
	if err == nil {
		t.Fatal("object with a bad checksum was stored")
	}
}

func TestRangeAndConditions(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	data := randBytes(1000, 2)
	out := put(t, c, bucket, "r", data)
	for rng, want := range map[string][]byte{
		"bytes=0-9": data[:10], "bytes=990-": data[990:], "bytes=-5": data[995:],
		"bytes=500-5000": data[500:], "bytes=0-0": data[:1],
	} {
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), Range: aws.String(rng)})
		if err != nil {
			t.Fatalf("%s: %v", rng, err)
		}
		b, _ := io.ReadAll(g.Body)
		g.Body.Close()
		if !bytes.Equal(b, want) || g.ContentRange == nil {
			t.Fatalf("%s: got %d bytes, range %v", rng, len(b), g.ContentRange)
		}
	}
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), Range: aws.String("bytes=1000-")})
	wantCode(t, err, "InvalidRange")

	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), IfMatch: aws.String(`"nope"`)})
	wantCode(t, err, "PreconditionFailed")
	if _, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), IfMatch: out.ETag}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), IfNoneMatch: out.ETag})
	if err == nil || !strings.Contains(err.Error(), "304") {
		t.Fatalf("If-None-Match with the current ETag: want 304, got %v", err)
	}
	future := time.Now().Add(time.Hour)
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), IfModifiedSince: &future})
	if err == nil || !strings.Contains(err.Error(), "304") {
		t.Fatalf("If-Modified-Since in the future: want 304, got %v", err)
	}
	past := time.Now().Add(-time.Hour)
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), IfUnmodifiedSince: &past})
	wantCode(t, err, "PreconditionFailed")
	// As S3: If-Match that holds overrides a failing If-Unmodified-Since.
	if _, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("r"), IfMatch: out.ETag, IfUnmodifiedSince: &past}); err != nil {
		t.Fatalf("If-Match true + If-Unmodified-Since false: %v", err)
	}

	// Conditional writes.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("r"), Body: strings.NewReader("x"), IfNoneMatch: aws.String("*")})
	wantCode(t, err, "PreconditionFailed")
	if _, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("new"), Body: strings.NewReader("x"), IfNoneMatch: aws.String("*")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("r"), Body: strings.NewReader("x"), IfMatch: aws.String(`"0123"`)})
	wantCode(t, err, "PreconditionFailed")
	if _, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("r"), Body: strings.NewReader("x"), IfMatch: out.ETag}); err != nil {
		t.Fatal(err)
	}
}

func TestCopyObject(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	data := randBytes(70_000, 3)
	src, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("src key"), Body: bytes.NewReader(data),
		ContentType: aws.String("text/a"), Metadata: map[string]string{"a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("dst"), CopySource: aws.String(bucket + "/src%20key")})
	if err != nil {
		t.Fatal(err)
	}
	if *cp.CopyObjectResult.ETag != *src.ETag {
		t.Fatalf("copy ETag %s, source %s", *cp.CopyObjectResult.ETag, *src.ETag)
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("dst")})
	if err != nil || *h.ContentType != "text/a" || h.Metadata["a"] != "1" {
		t.Fatalf("COPY directive kept no metadata: %v %+v", err, h)
	}
	if !bytes.Equal(get(t, c, bucket, "dst"), data) {
		t.Fatal("copy differs")
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("dst2"), CopySource: aws.String(bucket + "/src%20key"),
		MetadataDirective: types.MetadataDirectiveReplace, ContentType: aws.String("text/b"), Metadata: map[string]string{"b": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("dst2")})
	if *h.ContentType != "text/b" || h.Metadata["b"] != "2" || h.Metadata["a"] != "" {
		t.Fatalf("REPLACE directive: %+v", h.Metadata)
	}
	// As AWS: copying onto itself without changing anything is refused.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("dst"), CopySource: aws.String(bucket + "/dst")})
	wantCode(t, err, "InvalidRequest")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("x"), CopySource: aws.String(bucket + "/src%20key"),
		CopySourceIfMatch: aws.String(`"abc"`)})
	wantCode(t, err, "PreconditionFailed")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("x"), CopySource: aws.String(bucket + "/src%20key"),
		CopySourceIfNoneMatch: src.ETag})
	wantCode(t, err, "PreconditionFailed")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("x"), CopySource: aws.String(bucket + "/missing")})
	wantCode(t, err, "NoSuchKey")
}

func TestDeleteObjects(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	var ids []types.ObjectIdentifier
	for _, k := range []string{"a", "b/c", "d e"} {
		put(t, c, bucket, k, []byte(k))
		ids = append(ids, types.ObjectIdentifier{Key: aws.String(k)})
	}
	ids = append(ids, types.ObjectIdentifier{Key: aws.String("never-existed")})
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &bucket, Delete: &types.Delete{Objects: ids}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 4 || len(out.Errors) != 0 {
		t.Fatalf("deleted %d errors %d, want 4 and 0 (a missing key counts as deleted, as S3)", len(out.Deleted), len(out.Errors))
	}
	l, _ := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket})
	if len(l.Contents) != 0 {
		t.Fatalf("%d objects left", len(l.Contents))
	}
	// Deleting a missing key succeeds.
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("zzz")}); err != nil {
		t.Fatal(err)
	}
}
