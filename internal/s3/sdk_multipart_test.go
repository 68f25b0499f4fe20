package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

const mib = 1 << 20

func TestMultipart(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	key := "big/object"
	parts := [][]byte{randBytes(5*mib, 10), randBytes(5*mib+7, 11), randBytes(1234, 12)}
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key,
		ContentType: aws.String("video/x"), Metadata: map[string]string{"m": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	sum := md5.New()
	for i, p := range parts {
		n := int32(i + 1)
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: &n, Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatalf("part %d: %v", n, err)
		}
		raw := md5.Sum(p)
		sum.Write(raw[:])
		done = append(done, types.CompletedPart{PartNumber: &n, ETag: out.ETag})
	}
	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId})
	if err != nil || len(lp.Parts) != 3 || *lp.Parts[1].Size != int64(len(parts[1])) {
		t.Fatalf("list parts: %v %+v", err, lp)
	}
	lp, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, MaxParts: aws.Int32(2)})
	if err != nil || len(lp.Parts) != 2 || !*lp.IsTruncated || *lp.NextPartNumberMarker != "2" {
		t.Fatalf("list parts page: %v %+v", err, lp)
	}
	lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err != nil || len(lu.Uploads) != 1 || *lu.Uploads[0].UploadId != *cu.UploadId {
		t.Fatalf("list uploads: %v %+v", err, lu)
	}

	// Errors Complete reports, as S3.
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{done[1], done[0]}}})
	wantCode(t, err, "InvalidPartOrder")
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(`"00000000000000000000000000000000"`)}}}})
	wantCode(t, err, "InvalidPart")
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{done[2], {PartNumber: aws.Int32(4), ETag: done[0].ETag}}}})
	wantCode(t, err, "InvalidPart")
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: aws.String("nope"),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	wantCode(t, err, "NoSuchUpload")

	out, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"%s-3"`, hex.EncodeToString(sum.Sum(nil)))
	if *out.ETag != want {
		t.Fatalf("multipart ETag %s, want %s", *out.ETag, want)
	}
	got := get(t, c, bucket, key)
	if !bytes.Equal(got, bytes.Join(parts, nil)) {
		t.Fatal("assembled object differs")
	}
	// A range that spans a part boundary.
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, Range: aws.String(fmt.Sprintf("bytes=%d-%d", 5*mib-10, 5*mib+9))})
	if err != nil {
		t.Fatal(err)
	}
	b := new(bytes.Buffer)
	b.ReadFrom(g.Body)
	if !bytes.Equal(b.Bytes(), got[5*mib-10:5*mib+10]) {
		t.Fatal("range across parts differs")
	}
	h, _ := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if *h.ContentType != "video/x" || h.Metadata["m"] != "v" {
		t.Fatalf("metadata from create not kept: %+v", h)
	}
	// Reading by part number, as download managers do: each part alone,
	// with the part count.
	for i, p := range parts {
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, PartNumber: aws.Int32(int32(i + 1))})
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
		b := new(bytes.Buffer)
		b.ReadFrom(g.Body)
		if !bytes.Equal(b.Bytes(), p) || g.PartsCount == nil || *g.PartsCount != 3 || *g.ContentLength != int64(len(p)) {
			t.Fatalf("part %d: %d bytes, parts count %v", i+1, b.Len(), g.PartsCount)
		}
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, PartNumber: aws.Int32(4)})
	wantCode(t, err, "InvalidPartNumber")
	// An object put whole has one part: itself.
	put(t, c, bucket, "whole", []byte("one piece"))
	g, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("whole"), PartNumber: aws.Int32(1)})
	if err != nil || *g.ContentLength != 9 {
		t.Fatalf("part 1 of a whole object: %v", err)
	}
	g.Body.Close()
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("whole"), PartNumber: aws.Int32(2)})
	wantCode(t, err, "InvalidPartNumber")
	// The upload is gone.
	_, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId})
	wantCode(t, err, "NoSuchUpload")
}

func TestMultipartTooSmallAndAbort(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	key := "small"
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i := int32(1); i <= 2; i++ {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: aws.Int32(i), Body: bytes.NewReader([]byte("tiny"))})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(i), ETag: out.ETag})
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	wantCode(t, err, "EntityTooSmall")
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: aws.Int32(10001), Body: bytes.NewReader([]byte("x"))})
	wantCode(t, err, "InvalidArgument")
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: aws.Int32(3), Body: bytes.NewReader([]byte("x"))})
	wantCode(t, err, "NoSuchUpload")
	_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId})
	wantCode(t, err, "NoSuchUpload")
}

func TestUploadPartCopy(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	src := randBytes(6*mib, 20)
	put(t, c, bucket, "src", src)
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("dst")})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: &bucket, Key: aws.String("dst"), UploadId: cu.UploadId,
		PartNumber: aws.Int32(1), CopySource: aws.String(bucket + "/src")})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: &bucket, Key: aws.String("dst"), UploadId: cu.UploadId,
		PartNumber: aws.Int32(2), CopySource: aws.String(bucket + "/src"), CopySourceRange: aws.String("bytes=100-199")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: &bucket, Key: aws.String("dst"), UploadId: cu.UploadId,
		PartNumber: aws.Int32(3), CopySource: aws.String(bucket + "/src"), CopySourceRange: aws.String(fmt.Sprintf("bytes=0-%d", 6*mib))})
	wantCode(t, err, "InvalidArgument")
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("dst"), UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
			{PartNumber: aws.Int32(1), ETag: p1.CopyPartResult.ETag}, {PartNumber: aws.Int32(2), ETag: p2.CopyPartResult.ETag}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte{}, src...), src[100:200]...)
	if !bytes.Equal(get(t, c, bucket, "dst"), want) {
		t.Fatal("copied parts differ")
	}
}

// A FULL_OBJECT checksum is the CRC of the whole object, made from the
// parts' CRCs without reading them again; a wrong one declared at
// completion is BadDigest.
func TestMultipartFullObjectChecksum(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	parts := [][]byte{randBytes(5*mib, 20), randBytes(777, 21)}
	whole := bytes.Join(parts, nil)
	want := base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(whole)))
	for _, declared := range []string{"AAAAAA==", want} {
		key := "full-" + declared[:4]
		cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key,
			ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, ChecksumType: types.ChecksumTypeFullObject})
		if err != nil {
			t.Fatal(err)
		}
		var done []types.CompletedPart
		for i, p := range parts {
			n := int32(i + 1)
			out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId, PartNumber: &n,
				Body: bytes.NewReader(p), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
			if err != nil {
				t.Fatal(err)
			}
			done = append(done, types.CompletedPart{PartNumber: &n, ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32})
		}
		out, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
			ChecksumCRC32: aws.String(declared), ChecksumType: types.ChecksumTypeFullObject,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
		if declared != want {
			wantCode(t, err, "BadDigest")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if out.ChecksumCRC32 == nil || *out.ChecksumCRC32 != want {
			t.Fatalf("completed with CRC32 %v, want %s", out.ChecksumCRC32, want)
		}
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key, ChecksumMode: types.ChecksumModeEnabled})
		if err != nil || h.ChecksumCRC32 == nil || *h.ChecksumCRC32 != want || h.ChecksumType != types.ChecksumTypeFullObject {
			t.Fatalf("HEAD: %v %v %v", err, h.ChecksumCRC32, h.ChecksumType)
		}
	}
	_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("sha"),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256, ChecksumType: types.ChecksumTypeFullObject})
	wantCode(t, err, "InvalidRequest")
}
