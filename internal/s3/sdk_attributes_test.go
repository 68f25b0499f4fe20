package s3_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func crc32b64(b []byte) string {
	return base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)))
}

// TestGetObjectAttributes: GetObjectAttributes as AWS answers it, for an
// object written whole, a multipart one with checksums (its parts paged
// by x-amz-max-parts and x-amz-part-number-marker) and bad requests.
func TestGetObjectAttributes(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	all := []types.ObjectAttributes{types.ObjectAttributesEtag, types.ObjectAttributesChecksum,
		types.ObjectAttributesObjectParts, types.ObjectAttributesStorageClass, types.ObjectAttributesObjectSize}

	// A single PUT: the SDK's CRC32 trailer is its checksum; no parts.
	data := randBytes(1000, 41)
	before := time.Now().Add(-time.Second)
	p := put(t, c, bucket, "whole", data)
	out, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("whole"), ObjectAttributes: all})
	if err != nil {
		t.Fatal(err)
	}
	if *out.ETag != strings.Trim(*p.ETag, `"`) || *out.ObjectSize != 1000 || out.StorageClass != types.StorageClassStandard {
		t.Fatalf("single PUT: etag %q size %d class %q", *out.ETag, *out.ObjectSize, out.StorageClass)
	}
	if out.Checksum == nil || out.Checksum.ChecksumCRC32 == nil || *out.Checksum.ChecksumCRC32 != crc32b64(data) ||
		out.Checksum.ChecksumType != types.ChecksumTypeFullObject {
		t.Fatalf("single PUT checksum: %+v", out.Checksum)
	}
	if out.ObjectParts != nil {
		t.Fatalf("single PUT has parts: %+v", out.ObjectParts)
	}
	if out.LastModified == nil || out.LastModified.Before(before) || out.VersionId != nil {
		t.Fatalf("Last-Modified %v, version %v", out.LastModified, out.VersionId)
	}
	// Only what was asked for comes back.
	out, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("whole"),
		ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectSize}})
	if err != nil || out.ETag != nil || out.Checksum != nil || out.StorageClass != "" || *out.ObjectSize != 1000 {
		t.Fatalf("ObjectSize alone: %+v %v", out, err)
	}
	// The wire form: the ETag without quotes, the attributes in AWS's order.
	status, _, body := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"/whole?attributes", nil,
		http.Header{"X-Amz-Object-Attributes": {"StorageClass,ETag,ObjectSize"}}))
	want := `<GetObjectAttributesResponse xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ETag>` + strings.Trim(*p.ETag, `"`) +
		`</ETag><StorageClass>STANDARD</StorageClass><ObjectSize>1000</ObjectSize></GetObjectAttributesResponse>`
	if status != 200 || !strings.HasSuffix(string(body), want) {
		t.Fatalf("raw response %d %s\nwant %s", status, body, want)
	}

	// Multipart with CRC32: parts paged, each with its own checksum.
	const partSize = 5 << 20
	whole := randBytes(3*partSize+100, 42)
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, StorageClass: types.StorageClassStandardIa})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	var chunks [][]byte
	for i := 0; i*partSize < len(whole); i++ {
		chunk := whole[i*partSize : min((i+1)*partSize, len(whole))]
		chunks = append(chunks, chunk)
		up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("mp"), UploadId: cu.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(chunk), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: up.ETag, ChecksumCRC32: up.ChecksumCRC32})
	}
	cm, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"), UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if err != nil {
		t.Fatal(err)
	}
	out, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("mp"), ObjectAttributes: all, MaxParts: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if *out.ETag != strings.Trim(*cm.ETag, `"`) || *out.ObjectSize != int64(len(whole)) || out.StorageClass != types.StorageClassStandardIa {
		t.Fatalf("multipart: %q %d %q", *out.ETag, *out.ObjectSize, out.StorageClass)
	}
	if out.Checksum == nil || out.Checksum.ChecksumCRC32 == nil || *out.Checksum.ChecksumCRC32 != *cm.ChecksumCRC32 ||
		out.Checksum.ChecksumType != types.ChecksumTypeComposite {
		t.Fatalf("multipart checksum %+v, completion said %v", out.Checksum, *cm.ChecksumCRC32)
	}
	op := out.ObjectParts
	if op == nil || *op.TotalPartsCount != 4 || !*op.IsTruncated || *op.MaxParts != 2 || *op.NextPartNumberMarker != "2" || len(op.Parts) != 2 {
		t.Fatalf("first page of parts: %+v", op)
	}
	var got []int32
	for {
		for _, pt := range op.Parts {
			n := *pt.PartNumber
			if *pt.Size != int64(len(chunks[n-1])) || *pt.ChecksumCRC32 != crc32b64(chunks[n-1]) {
				t.Fatalf("part %d: size %d crc %s", n, *pt.Size, *pt.ChecksumCRC32)
			}
			got = append(got, n)
		}
		if !*op.IsTruncated {
			break
		}
		out, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("mp"),
			ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectParts}, MaxParts: aws.Int32(2),
			PartNumberMarker: op.NextPartNumberMarker})
		if err != nil {
			t.Fatal(err)
		}
		op = out.ObjectParts
		if *op.PartNumberMarker != strconv.Itoa(int(got[len(got)-1])) {
			t.Fatalf("PartNumberMarker %s after part %d", *op.PartNumberMarker, got[len(got)-1])
		}
	}
	if len(got) != 4 || got[0] != 1 || got[3] != 4 {
		t.Fatalf("parts paged %v", got)
	}

	// A multipart object without additional checksums has a count and no
	// Part elements, as AWS.
	cu, err = c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("plain")})
	if err != nil {
		t.Fatal(err)
	}
	status, _, body = send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"/plain?partNumber=1&uploadId="+*cu.UploadId, []byte("abc"), nil))
	if status != 200 {
		t.Fatalf("raw UploadPart: %d %s", status, body)
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("plain"), UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(md5hex([]byte("abc")))}}}}); err != nil {
		t.Fatal(err)
	}
	status, _, body = send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"/plain?attributes", nil,
		http.Header{"X-Amz-Object-Attributes": {"ObjectParts", "Checksum"}}))
	if status != 200 || !regexp.MustCompile(`<ObjectParts><IsTruncated>false</IsTruncated><MaxParts>1000</MaxParts><NextPartNumberMarker>0</NextPartNumberMarker><PartNumberMarker>0</PartNumberMarker><PartsCount>1</PartsCount></ObjectParts></GetObjectAttributesResponse>$`).Match(body) ||
		strings.Contains(string(body), "<Checksum>") {
		t.Fatalf("multipart without checksums: %d %s", status, body)
	}

	// Errors, as AWS.
	raw := func(path string, h http.Header) (int, string) {
		st, code, _ := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+path, nil, h))
		return st, code
	}
	for _, tc := range []struct {
		path   string
		header http.Header
		status int
		code   string
	}{
		{"/whole?attributes", nil, 400, "InvalidArgument"}, // no x-amz-object-attributes
		{"/whole?attributes", http.Header{"X-Amz-Object-Attributes": {"ETag,Owner"}}, 400, "InvalidArgument"},
		{"/whole?attributes", http.Header{"X-Amz-Object-Attributes": {"ETag"}, "X-Amz-Max-Parts": {"many"}}, 400, "InvalidArgument"},
		{"/whole?attributes", http.Header{"X-Amz-Object-Attributes": {"ETag"}, "X-Amz-Part-Number-Marker": {"-1"}}, 400, "InvalidArgument"},
		{"/whole?attributes&versionId=bad%2Fid", http.Header{"X-Amz-Object-Attributes": {"ETag"}}, 400, "InvalidArgument"},
		{"/missing?attributes", http.Header{"X-Amz-Object-Attributes": {"ETag"}}, 404, "NoSuchKey"},
		// SSE-C's key on an object that is not SSE-C, as AWS.
		{"/whole?attributes", withHeader(sseCHeaders(customerKey(1), ""), "X-Amz-Object-Attributes", "ETag"), 400, "InvalidRequest"},
	} {
		if st, code := raw(tc.path, tc.header); st != tc.status || code != tc.code {
			t.Errorf("%s %v: %d %s, want %d %s", tc.path, tc.header, st, code, tc.status, tc.code)
		}
	}
	_, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("whole"),
		ObjectAttributes: all, VersionId: aws.String("null")})
	if err != nil {
		t.Fatalf("versionId=null: %v", err)
	}
	_, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String("no-such-bucket"), Key: aws.String("whole"), ObjectAttributes: all})
	wantCode(t, err, "NoSuchBucket")
	// Versions: each answers for itself; a delete marker as GetObject.
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	v1 := put(t, c, bucket, "ver", []byte("one"))
	put(t, c, bucket, "ver", []byte("second"))
	out, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("ver"), VersionId: v1.VersionId, ObjectAttributes: all})
	if err != nil || *out.ObjectSize != 3 || *out.ETag != strings.Trim(*v1.ETag, `"`) || out.VersionId == nil || *out.VersionId != *v1.VersionId {
		t.Fatalf("by version id: %+v %v", out, err)
	}
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("ver")})
	if err != nil {
		t.Fatal(err)
	}
	req := signedRequest(t, srv, "GET", "/"+bucket+"/ver?attributes", nil, http.Header{"X-Amz-Object-Attributes": {"ETag"}})
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("x-amz-delete-marker") != "true" || resp.Header.Get("x-amz-version-id") != *del.VersionId {
		t.Fatalf("under a delete marker: %d %v", resp.StatusCode, resp.Header)
	}
	_, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("ver"), VersionId: del.VersionId, ObjectAttributes: all})
	wantCode(t, err, "MethodNotAllowed")

	// A read of the object: anyone who may not read it may not ask.
	anon := s3.New(c.Options(), func(o *s3.Options) { o.Credentials = aws.AnonymousCredentials{} })
	_, err = anon.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("whole"), ObjectAttributes: all})
	wantCode(t, err, "AccessDenied")
}

// As on AWS, GetObjectAttributes needs s3:GetObjectAttributes besides
// s3:GetObject: a policy granting only the read does not reveal the
// attributes, and one granting both does.
func TestGetObjectAttributesPermission(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	carl := ten.clients["carl"]
	in := &s3.GetObjectAttributesInput{Bucket: aws.String("acme-bob"), Key: aws.String("k"),
		ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesEtag, types.ObjectAttributesObjectSize}}
	grant := func(actions string) {
		t.Helper()
		if err := putPolicy(t, ten.clients["bob"], "acme-bob", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"beta"},
			"Action":[`+actions+`],"Resource":"arn:aws:s3:::acme-bob/*"}]}`); err != nil {
			t.Fatal(err)
		}
	}
	grant(`"s3:GetObject"`)
	if _, err := carl.GetObject(ctx, &s3.GetObjectInput{Bucket: in.Bucket, Key: in.Key}); err != nil {
		t.Fatalf("the read the policy grants: %v", err)
	}
	_, err := carl.GetObjectAttributes(ctx, in)
	wantCode(t, err, "AccessDenied")
	grant(`"s3:GetObject","s3:GetObjectAttributes"`)
	if out, err := carl.GetObjectAttributes(ctx, in); err != nil || out.ObjectSize == nil {
		t.Fatalf("with both actions granted: %+v %v", out, err)
	}
	grant(`"s3:GetObjectAttributes"`)
	_, err = carl.GetObjectAttributes(ctx, in)
	wantCode(t, err, "AccessDenied")
}
