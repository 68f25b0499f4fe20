package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// ssec is the SSE-C parameters of one key, as the SDK sends them.
type ssec struct{ algo, key, md5 *string }

func newSSEC(key []byte) ssec {
	sum := md5.Sum(key)
	return ssec{aws.String("AES256"), aws.String(base64.StdEncoding.EncodeToString(key)), aws.String(base64.StdEncoding.EncodeToString(sum[:]))}
}

// clearDigests are the strings that would betray an SSE-C object's
// plaintext or key in the catalog: the data's MD5 (hex and base64), its
// checksums as S3 returns them, and the customer key's unsalted MD5.
type clearDigests map[string]string

func (d clearDigests) data(what string, b []byte) {
	sum := md5.Sum(b)
	d[what+" MD5 (hex)"] = hex.EncodeToString(sum[:])
	d[what+" MD5 (base64)"] = base64.StdEncoding.EncodeToString(sum[:])
}

func (d clearDigests) sums(what string, vals ...*string) {
	for i, v := range vals {
		if aws.ToString(v) != "" {
			d[what+" checksum "+string(rune('a'+i))] = aws.ToString(v)
		}
	}
}

// none fails the test if any digest appears in what the catalog keeps.
func (d clearDigests) none(t *testing.T, what string, row any) {
	t.Helper()
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range d {
		if strings.Contains(string(b), v) {
			t.Errorf("%s: the catalog keeps %s in the clear (%s)", what, name, v)
		}
	}
}

// An SSE-C object's catalog row (and its upload's parts) hold no digest of
// its plaintext and no unsalted digest of its key: not the data's MD5
// (the ETag of an SSE-C object is not its MD5, as AWS), not its CRC32,
// CRC32C, CRC64NVME, SHA1 or SHA256 checksums, whole or per part, which
// are sealed under the object's data key. A request that brings the key
// gets what AWS returns: the checksums with checksum mode (GET, HEAD,
// GetObjectAttributes, ListParts), the key's MD5 echoed from the key sent;
// listings name the algorithm. An upload created with a checksum
// algorithm needs the key to complete, as AWS asks.
func TestSSECCatalogKeepsNoPlaintextDigest(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	cat := srv.Node.Catalog
	key := customerKey(9)
	k := newSSEC(key)
	digests := clearDigests{"customer key MD5": aws.ToString(k.md5)}
	keyMD5hex := md5.Sum(key)
	digests["customer key MD5 (hex)"] = hex.EncodeToString(keyMD5hex[:])

	// Single PUTs, inline and in a blob, one per algorithm.
	algos := []types.ChecksumAlgorithm{types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c, types.ChecksumAlgorithmCrc64nvme,
		types.ChecksumAlgorithmSha1, types.ChecksumAlgorithmSha256}
	for i, algo := range algos {
		name := "single-" + string(algo)
		data := randBytes([]int{300, 200 << 10}[i%2], uint64(40+i))
		put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &name, Body: bytes.NewReader(data), ChecksumAlgorithm: algo,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := clearDigests{}
		d.data(name, data)
		d.sums(name, put.ChecksumCRC32, put.ChecksumCRC32C, put.ChecksumCRC64NVME, put.ChecksumSHA1, put.ChecksumSHA256)
		if len(d) < 3 {
			t.Fatalf("%s: the PUT returned no checksum: %+v", name, put)
		}
		if strings.Trim(aws.ToString(put.ETag), `"`) == d[name+" MD5 (hex)"] {
			t.Errorf("%s: the ETag is the plaintext's MD5", name)
		}
		if aws.ToString(put.SSECustomerKeyMD5) != aws.ToString(k.md5) {
			t.Errorf("%s: PUT echoed key MD5 %q", name, aws.ToString(put.SSECustomerKeyMD5))
		}
		raw, err := cat.GetObject(ctx, bucket, name, "")
		if err != nil {
			t.Fatal(err)
		}
		d.none(t, name, raw)
		digests.none(t, name, raw)
		if raw.ETag != aws.ToString(put.ETag) {
			t.Errorf("%s: stored ETag %s, PUT said %s", name, raw.ETag, aws.ToString(put.ETag))
		}

		// With the key: the checksums as AWS returns them.
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &name, ChecksumMode: types.ChecksumModeEnabled,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil {
			t.Fatalf("%s: head: %v", name, err)
		}
		sameSums(t, name+" HEAD", put, head.ChecksumCRC32, head.ChecksumCRC32C, head.ChecksumCRC64NVME, head.ChecksumSHA1, head.ChecksumSHA256)
		if aws.ToString(head.SSECustomerKeyMD5) != aws.ToString(k.md5) || aws.ToString(head.ETag) != aws.ToString(put.ETag) {
			t.Errorf("%s: HEAD key MD5 %q, ETag %q", name, aws.ToString(head.SSECustomerKeyMD5), aws.ToString(head.ETag))
		}
		get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &name, ChecksumMode: types.ChecksumModeEnabled,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil {
			t.Fatalf("%s: get: %v", name, err)
		}
		body, _ := io.ReadAll(get.Body) // the SDK validates the checksum as it reads
		get.Body.Close()
		if !bytes.Equal(body, data) {
			t.Fatalf("%s: GET returned other bytes", name)
		}
		sameSums(t, name+" GET", put, get.ChecksumCRC32, get.ChecksumCRC32C, get.ChecksumCRC64NVME, get.ChecksumSHA1, get.ChecksumSHA256)
		attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: &name,
			ObjectAttributes:     []types.ObjectAttributes{types.ObjectAttributesChecksum, types.ObjectAttributesEtag},
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil || attrs.Checksum == nil {
			t.Fatalf("%s: attributes: %+v %v", name, attrs, err)
		}
		sameSums(t, name+" GetObjectAttributes", put, attrs.Checksum.ChecksumCRC32, attrs.Checksum.ChecksumCRC32C, attrs.Checksum.ChecksumCRC64NVME,
			attrs.Checksum.ChecksumSHA1, attrs.Checksum.ChecksumSHA256)
		// Another key opens nothing; none is refused, as AWS.
		other := newSSEC(customerKey(10))
		_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &name, SSECustomerAlgorithm: other.algo, SSECustomerKey: other.key, SSECustomerKeyMD5: other.md5})
		if err == nil {
			t.Fatalf("%s: HEAD with another key", name)
		}
		_, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: &name, ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesChecksum},
			SSECustomerAlgorithm: other.algo, SSECustomerKey: other.key, SSECustomerKeyMD5: other.md5})
		wantCode(t, err, "AccessDenied")
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("single-")})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list.Contents {
		if len(o.ChecksumAlgorithm) != 1 || !strings.HasSuffix(aws.ToString(o.Key), string(o.ChecksumAlgorithm[0])) {
			t.Errorf("listing: %s names %v", aws.ToString(o.Key), o.ChecksumAlgorithm)
		}
	}

	// Multipart: a COMPOSITE CRC32 upload and a FULL_OBJECT CRC64NVME one.
	for _, mp := range []struct {
		algo types.ChecksumAlgorithm
		typ  types.ChecksumType
	}{{types.ChecksumAlgorithmCrc32, types.ChecksumTypeComposite}, {types.ChecksumAlgorithmCrc64nvme, types.ChecksumTypeFullObject}} {
		name := "mp-" + string(mp.algo)
		up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &name, ChecksumAlgorithm: mp.algo, ChecksumType: mp.typ,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil {
			t.Fatal(err)
		}
		d := clearDigests{}
		var parts []types.CompletedPart
		var whole []byte
		for i, data := range [][]byte{randBytes(5<<20, 50), randBytes(70<<10, 51)} {
			whole = append(whole, data...)
			p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &name, UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)),
				Body: bytes.NewReader(data), ChecksumAlgorithm: mp.algo, SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
			if err != nil {
				t.Fatalf("%s part %d: %v", name, i+1, err)
			}
			d.data(name+" part", data)
			d.sums(name+" part", p.ChecksumCRC32, p.ChecksumCRC32C, p.ChecksumCRC64NVME, p.ChecksumSHA1, p.ChecksumSHA256)
			if strings.Trim(aws.ToString(p.ETag), `"`) == d[name+" part MD5 (hex)"] {
				t.Errorf("%s: part %d's ETag is its plaintext's MD5", name, i+1)
			}
			parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: p.ETag,
				ChecksumCRC32: p.ChecksumCRC32, ChecksumCRC64NVME: p.ChecksumCRC64NVME})
		}
		d.data(name, whole)
		stored, err := cat.ListParts(ctx, bucket, name, aws.ToString(up.UploadId), 0, 100)
		if err != nil || len(stored) != 2 {
			t.Fatalf("%s: parts in the catalog: %v %v", name, stored, err)
		}
		d.none(t, name+" upload parts", stored)
		digests.none(t, name+" upload parts", stored)

		lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: &name, UploadId: up.UploadId,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil || len(lp.Parts) != 2 || (aws.ToString(lp.Parts[0].ChecksumCRC32) == "" && aws.ToString(lp.Parts[0].ChecksumCRC64NVME) == "") {
			t.Fatalf("%s: ListParts with the key: %+v %v", name, lp, err)
		}
		if lp, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: &name, UploadId: up.UploadId}); err != nil ||
			aws.ToString(lp.Parts[0].ChecksumCRC32) != "" || aws.ToString(lp.Parts[0].ChecksumCRC64NVME) != "" {
			t.Fatalf("%s: ListParts without the key shows checksums: %+v %v", name, lp.Parts, err)
		}

		// The upload was created with a checksum algorithm: completing
		// it needs the key, which opens the parts' checksums.
		cin := &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &name, UploadId: up.UploadId, ChecksumType: mp.typ,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}
		_, err = c.CompleteMultipartUpload(ctx, cin)
		wantCode(t, err, "InvalidRequest")
		cin.SSECustomerAlgorithm, cin.SSECustomerKey, cin.SSECustomerKeyMD5 = k.algo, k.key, k.md5
		done, err := c.CompleteMultipartUpload(ctx, cin)
		if err != nil {
			t.Fatalf("%s: complete with the key: %v", name, err)
		}
		d.sums(name, done.ChecksumCRC32, done.ChecksumCRC64NVME)
		if aws.ToString(done.ChecksumCRC32) == "" && aws.ToString(done.ChecksumCRC64NVME) == "" {
			t.Fatalf("%s: no object checksum: %+v", name, done)
		}
		raw, err := cat.GetObject(ctx, bucket, name, "")
		if err != nil {
			t.Fatal(err)
		}
		d.none(t, name, raw)
		digests.none(t, name, raw)

		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &name, ChecksumMode: types.ChecksumModeEnabled,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(head.ChecksumCRC32) != aws.ToString(done.ChecksumCRC32) || aws.ToString(head.ChecksumCRC64NVME) != aws.ToString(done.ChecksumCRC64NVME) ||
			head.ChecksumType != mp.typ || aws.ToString(head.SSECustomerKeyMD5) != aws.ToString(k.md5) {
			t.Errorf("%s: HEAD %q/%q %s, completion said %q/%q", name, aws.ToString(head.ChecksumCRC32), aws.ToString(head.ChecksumCRC64NVME), head.ChecksumType,
				aws.ToString(done.ChecksumCRC32), aws.ToString(done.ChecksumCRC64NVME))
		}
		get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &name, ChecksumMode: types.ChecksumModeEnabled,
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(get.Body)
		get.Body.Close()
		if !bytes.Equal(body, whole) {
			t.Fatalf("%s: GET returned other bytes", name)
		}
		attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: &name,
			ObjectAttributes:     []types.ObjectAttributes{types.ObjectAttributesChecksum, types.ObjectAttributesObjectParts},
			SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
		if err != nil || attrs.ObjectParts == nil || len(attrs.ObjectParts.Parts) != 2 || attrs.Checksum == nil {
			t.Fatalf("%s: attributes: %+v %v", name, attrs, err)
		}
		if got, want := aws.ToString(attrs.ObjectParts.Parts[1].ChecksumCRC32)+aws.ToString(attrs.ObjectParts.Parts[1].ChecksumCRC64NVME),
			aws.ToString(parts[1].ChecksumCRC32)+aws.ToString(parts[1].ChecksumCRC64NVME); got != want {
			t.Errorf("%s: part 2's checksum %q, UploadPart said %q", name, got, want)
		}
	}
}

func sameSums(t *testing.T, what string, put *s3.PutObjectOutput, crc32, crc32c, crc64, sha1, sha256 *string) {
	t.Helper()
	got := []string{aws.ToString(crc32), aws.ToString(crc32c), aws.ToString(crc64), aws.ToString(sha1), aws.ToString(sha256)}
	want := []string{aws.ToString(put.ChecksumCRC32), aws.ToString(put.ChecksumCRC32C), aws.ToString(put.ChecksumCRC64NVME), aws.ToString(put.ChecksumSHA1), aws.ToString(put.ChecksumSHA256)}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: checksums %q, PUT said %q", what, got, want)
			return
		}
	}
}

// An SSE-C version written before the catalog stopped keeping the key's
// MD5 and the checksums in the clear reads as it did: the key is checked
// against the stored digest too, the clear checksums are returned.
func TestSSECOlderRowsStillRead(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	key := customerKey(11)
	k := newSSEC(key)
	data := randBytes(500, 60) // inline: its row is the whole object
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("old"), Body: bytes.NewReader(data),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256, SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
	if err != nil {
		t.Fatal(err)
	}
	rewriteAsOlderRow(t, srv, bucket, "old", aws.ToString(k.md5), map[string]string{"SHA256": aws.ToString(put.ChecksumSHA256)})

	get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("old"), ChecksumMode: types.ChecksumModeEnabled,
		SSECustomerAlgorithm: k.algo, SSECustomerKey: k.key, SSECustomerKeyMD5: k.md5})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if !bytes.Equal(body, data) || aws.ToString(get.ChecksumSHA256) != aws.ToString(put.ChecksumSHA256) || aws.ToString(get.SSECustomerKeyMD5) != aws.ToString(k.md5) {
		t.Fatalf("older row: %d bytes, SHA256 %q, key MD5 %q", len(body), aws.ToString(get.ChecksumSHA256), aws.ToString(get.SSECustomerKeyMD5))
	}
	other := newSSEC(customerKey(12))
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("old"), SSECustomerAlgorithm: other.algo, SSECustomerKey: other.key, SSECustomerKeyMD5: other.md5})
	wantCode(t, err, "AccessDenied")
}

// rewriteAsOlderRow puts an inline SSE-C object's row back in the form
// earlier versions wrote: the key's MD5 kept, the checksums in the clear.
func rewriteAsOlderRow(t *testing.T, srv *nodetest.Server, bucket, key, keyMD5 string, sums map[string]string) {
	t.Helper()
	ctx := context.Background()
	cat := srv.Node.Catalog
	raw, err := cat.GetObject(ctx, bucket, key, "")
	if err != nil || len(raw.Inline) == 0 || raw.Meta.Encryption == nil {
		t.Fatalf("row: %+v %v", raw, err)
	}
	enc := *raw.Meta.Encryption
	enc.CustomerKeyMD5, enc.SealedChecksums, enc.ChecksumAlgorithms = keyMD5, nil, nil
	raw.Meta.Encryption, raw.Meta.Checksums = &enc, sums
	if err := cat.PutObject(ctx, raw, catalog.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}
