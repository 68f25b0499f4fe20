package s3_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/sosapi"
)

// sosapiDoc reads a SOSAPI document with c and checks the headers an
// object answer carries: its type, its length, an ETag that is the MD5
// of what came, a date.
func sosapiDoc(t *testing.T, c *s3.Client, bucket, key string) []byte {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.ContentType) != "application/xml" || aws.ToInt64(out.ContentLength) != int64(len(body)) ||
		aws.ToString(out.ETag) != md5hex(body) || out.LastModified == nil || time.Since(*out.LastModified) > time.Minute {
		t.Fatalf("%s: type %q length %d etag %s date %v for %d bytes", key, aws.ToString(out.ContentType),
			aws.ToInt64(out.ContentLength), aws.ToString(out.ETag), out.LastModified, len(body))
	}
	return body
}

func systemInfo(t *testing.T, c *s3.Client, bucket string) sosapi.SystemInfo {
	t.Helper()
	var si sosapi.SystemInfo
	if err := xml.Unmarshal(sosapiDoc(t, c, bucket, sosapi.SystemKey), &si); err != nil {
		t.Fatal(err)
	}
	return si
}

func capacityInfo(t *testing.T, c *s3.Client, bucket string) sosapi.CapacityInfo {
	t.Helper()
	var ci sosapi.CapacityInfo
	if err := xml.Unmarshal(sosapiDoc(t, c, bucket, sosapi.CapacityKey), &ci); err != nil {
		t.Fatal(err)
	}
	return ci
}

// Veeam reads system.xml and capacity.xml from the bucket: capacity
// follows the tighter of the bucket's and the tenant's quotas and the
// usage the quota check reads, so a PUT or a new quota shows at once;
// with no quota capacity.xml is absent and system.xml says so.
func TestSOSAPICapacityFollowsQuotasAndWrites(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	const used = int64(len("data of acme-bob")) // acme-bob's "k"

	si := systemInfo(t, bob, "acme-bob")
	if si.ProtocolVersion != `"1.0"` || si.ProtocolCapabilities.CapacityInfo || si.ProtocolCapabilities.IAMSTS ||
		si.SystemRecommendations == nil || si.SystemRecommendations.KbBlockSize != 4096 ||
		si.SystemRecommendations.S3ConcurrentTaskLimit != node.DefaultMaxRequests*node.DefaultTenantShare/100/64 {
		t.Fatalf("system.xml with no quota: %+v %+v", si, si.SystemRecommendations)
	}
	_, err := bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String(sosapi.CapacityKey)})
	wantCode(t, err, "NoSuchKey")

	setQuota(t, ten, admin.Quota{Tenant: "acme", Bucket: "acme-bob", MaxBytes: 1000})
	if si := systemInfo(t, bob, "acme-bob"); !si.ProtocolCapabilities.CapacityInfo {
		t.Fatalf("system.xml under a quota: %+v", si)
	}
	if ci := capacityInfo(t, bob, "acme-bob"); ci != (sosapi.CapacityInfo{XMLName: ci.XMLName, Capacity: 1000, Available: 1000 - used, Used: used}) {
		t.Fatalf("capacity under a bucket quota of 1000: %+v", ci)
	}
	put(t, bob, "acme-bob", "backup/blk", make([]byte, 100))
	if ci := capacityInfo(t, bob, "acme-bob"); ci.Used != used+100 || ci.Available != 1000-used-100 {
		t.Fatalf("capacity right after a 100-byte PUT: %+v", ci)
	}
	// The tenant's quota leaves less room: it is the repository's now.
	setQuota(t, ten, admin.Quota{Tenant: "acme", MaxBytes: 200})
	if ci := capacityInfo(t, bob, "acme-bob"); ci.Capacity != 200 || ci.Used != used+100 || ci.Available != 200-used-100 {
		t.Fatalf("capacity under a tenant quota of 200: %+v", ci)
	}
	// What capacity.xml leaves is what the quota lets in.
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("backup/big"),
		Body: bytes.NewReader(make([]byte, 200-used-100+1))})
	wantCode(t, err, "QuotaExceeded")
	put(t, bob, "acme-bob", "backup/fits", make([]byte, 200-used-100))
	if ci := capacityInfo(t, bob, "acme-bob"); ci.Available != 0 || ci.Used != 200 {
		t.Fatalf("capacity of a full quota: %+v", ci)
	}
	// Another tenant's buckets are not this one's.
	put(t, ten.clients["carl"], "beta-carl", "x", make([]byte, 5000))
	if ci := capacityInfo(t, bob, "acme-bob"); ci.Used != 200 {
		t.Fatalf("another tenant's write moved acme's capacity: %+v", ci)
	}
}

// The documents answer HEAD, ranges and conditions as objects do.
func TestSOSAPIReadsAsAnObject(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	body := sosapiDoc(t, bob, "acme-bob", sosapi.SystemKey)
	in := func() *s3.GetObjectInput {
		return &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String(sosapi.SystemKey)}
	}
	head, err := bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String(sosapi.SystemKey)})
	if err != nil || aws.ToInt64(head.ContentLength) != int64(len(body)) || aws.ToString(head.ETag) != md5hex(body) ||
		aws.ToString(head.ContentType) != "application/xml" {
		t.Fatalf("HEAD: %+v, %v", head, err)
	}
	r := in()
	r.Range = aws.String("bytes=0-4")
	out, err := bob.GetObject(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(out.Body)
	if string(got) != string(body[:5]) || aws.ToString(out.ContentRange) != "bytes 0-4/"+strconv.Itoa(len(body)) {
		t.Fatalf("range: %q %s", got, aws.ToString(out.ContentRange))
	}
	r = in()
	r.IfNoneMatch = aws.String(md5hex(body))
	_, err = bob.GetObject(ctx, r)
	if code := apiCode(err); code != "NotModified" && !strings.Contains(err.Error(), "304") {
		t.Fatalf("If-None-Match of its ETag: %v", err)
	}
	r = in()
	r.IfMatch = aws.String(`"0123"`)
	_, err = bob.GetObject(ctx, r)
	wantCode(t, err, "PreconditionFailed")
	r = in()
	r.Range = aws.String("bytes=100000-")
	_, err = bob.GetObject(ctx, r)
	wantCode(t, err, "InvalidRange")
	r = in()
	r.VersionId = aws.String("3HL4kqtJlcpXroDTDmJ-rmSpXd3dIbrHY")
	_, err = bob.GetObject(ctx, r)
	wantCode(t, err, "NoSuchVersion")

	// A presigned URL reads it as it would an object.
	ps := s3.NewPresignClient(bob)
	req, err := ps.PresignGetObject(ctx, in())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ten.srv.Client().Get(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) {
		t.Fatalf("presigned GET: %d %q", resp.StatusCode, got)
	}
}

// Who may GET the bucket's objects may read the documents, no one else:
// another tenant and anonymous callers get AccessDenied until a bucket
// policy lets them read.
func TestSOSAPIReadersAreGetObjectsReaders(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, carl, anon := ten.clients["bob"], ten.clients["carl"], ten.clients["anonymous"]
	for _, key := range []string{sosapi.SystemKey, sosapi.CapacityKey} {
		for name, c := range map[string]*s3.Client{"carl": carl, "anonymous": anon} {
			_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String(key)})
			if apiCode(err) != "AccessDenied" {
				t.Fatalf("%s reads acme-bob/%s: %v", name, key, err)
			}
		}
	}
	// The read-only application credential of the bucket reads them.
	sosapiDoc(t, ten.clients["app-ro"], "acme-bob", sosapi.SystemKey)
	// A bucket missing is as for an object.
	_, err := bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-nope"), Key: aws.String(sosapi.SystemKey)})
	wantCode(t, err, "NoSuchBucket")

	if _, err := bob.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: aws.String("acme-bob")}); err != nil {
		t.Fatal(err)
	}
	if err := putPolicy(t, bob, "acme-bob", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",
		"Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-bob/*"}]}`); err != nil {
		t.Fatal(err)
	}
	sosapiDoc(t, anon, "acme-bob", sosapi.SystemKey)
	sosapiDoc(t, carl, "acme-bob", sosapi.SystemKey)
	// Reading is all the policy grants.
	_, err = anon.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String(sosapi.SystemKey), Body: strings.NewReader("x")})
	wantCode(t, err, "AccessDenied")
}

// No write reaches a key under the folder, whoever asks (the provider's
// root included) and by whichever verb; keys elsewhere are untouched.
func TestSOSAPIRefusesWrites(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bkt := aws.String("acme-bob")
	for _, who := range []string{"bob", "root"} {
		c := ten.clients[who]
		for _, key := range []string{sosapi.SystemKey, sosapi.CapacityKey, sosapi.Folder, sosapi.Folder + "other.xml"} {
			k := aws.String(key)
			writes := map[string]func() error{
				"PutObject": func() error {
					_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: bkt, Key: k, Body: strings.NewReader("<x/>")})
					return err
				},
				"CopyObject": func() error {
					_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: bkt, Key: k, CopySource: aws.String("acme-bob/k")})
					return err
				},
				"CreateMultipartUpload": func() error {
					_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: bkt, Key: k})
					return err
				},
				"UploadPart": func() error {
					_, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: bkt, Key: k, UploadId: aws.String("x"), PartNumber: aws.Int32(1), Body: strings.NewReader("x")})
					return err
				},
				"UploadPartCopy": func() error {
					_, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: bkt, Key: k, UploadId: aws.String("x"), PartNumber: aws.Int32(1), CopySource: aws.String("acme-bob/k")})
					return err
				},
				"CompleteMultipartUpload": func() error {
					_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: bkt, Key: k, UploadId: aws.String("x"),
						MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(`"00"`)}}}})
					return err
				},
				"DeleteObject": func() error {
					_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bkt, Key: k})
					return err
				},
				"PutObjectTagging": func() error {
					_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: bkt, Key: k, Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}})
					return err
				},
				"DeleteObjectTagging": func() error {
					_, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: bkt, Key: k})
					return err
				},
				"PutObjectAcl": func() error {
					_, err := c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bkt, Key: k, ACL: types.ObjectCannedACLPrivate})
					return err
				},
				"PutObjectLegalHold": func() error {
					_, err := c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: bkt, Key: k, LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOn}})
					return err
				},
				"PutObjectRetention": func() error {
					_, err := c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: bkt, Key: k, Retention: &types.ObjectLockRetention{
						Mode: types.ObjectLockRetentionModeGovernance, RetainUntilDate: aws.Time(time.Now().Add(time.Hour))}})
					return err
				},
			}
			for verb, do := range writes {
				if err := do(); apiCode(err) != "AccessDenied" {
					t.Errorf("%s %s %s: %v, want AccessDenied", who, verb, key, err)
				}
			}
			// A batch delete refuses those keys one by one and does the rest.
			put(t, c, "acme-bob", "gone", []byte("x"))
			out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: bkt, Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: k}, {Key: aws.String("gone")}}}})
			if err != nil || len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != key || aws.ToString(out.Errors[0].Code) != "AccessDenied" ||
				len(out.Deleted) != 1 || aws.ToString(out.Deleted[0].Key) != "gone" {
				t.Fatalf("%s DeleteObjects of %s and gone: %+v, %v", who, key, out, err)
			}
			out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: bkt, Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: k}}}})
			if err != nil || len(out.Errors) != 1 || aws.ToString(out.Errors[0].Code) != "AccessDenied" {
				t.Fatalf("%s DeleteObjects of %s alone: %+v, %v", who, key, out, err)
			}
		}
	}
	_, err := ten.clients["bob"].DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("acme-none"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(sosapi.SystemKey)}}}})
	wantCode(t, err, "NoSuchBucket")
	// The folder's name without its slash, and look-alikes, are keys as
	// any other.
	put(t, ten.clients["bob"], "acme-bob", strings.TrimSuffix(sosapi.Folder, "/"), []byte("x"))
	put(t, ten.clients["bob"], "acme-bob", "x/"+sosapi.SystemKey, []byte("x"))
	// Nothing was stored under the folder: it lists only the document
	// served there (no quota, so no capacity.xml).
	l, err := ten.clients["bob"].ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bkt, Prefix: aws.String(sosapi.Folder)})
	if err != nil || len(l.Contents) != 1 || aws.ToString(l.Contents[0].Key) != sosapi.SystemKey {
		t.Fatalf("objects under the folder: %+v, %v", l, err)
	}
}

// Objects stored under the documents' keys before SOSAPI was on (or on
// a node with it off) are neither served over the documents nor lost:
// turned off again, the node serves them as before.
func TestSOSAPIKeepsStoredObjects(t *testing.T) {
	ctx := context.Background()
	off := func(c *node.Config) { c.SOSAPI = aws.Bool(false) }
	bob, srv := nodeWithBucket(t, nodetest.Options{TLS: true, Config: off}, "veeam")
	stored := []byte("<SystemInfo>stored by hand</SystemInfo>")
	put(t, bob, "veeam", sosapi.SystemKey, stored)

	on := nodetest.StartPeer(t, srv, nodetest.Options{TLS: true})
	onc := client(t, on, on.URL, false)
	if got := sosapiDoc(t, onc, "veeam", sosapi.SystemKey); bytes.Equal(got, stored) || !bytes.Contains(got, []byte("<ProtocolVersion>")) {
		t.Fatalf("with SOSAPI on, system.xml is %q", got)
	}
	_, err := onc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("veeam"), Key: aws.String(sosapi.SystemKey)})
	wantCode(t, err, "AccessDenied")
	if got := get(t, bob, "veeam", sosapi.SystemKey); !bytes.Equal(got, stored) {
		t.Fatalf("with SOSAPI off, system.xml is %q", got)
	}

	// A listing of the folder shows the documents in place of what is
	// stored under their keys, with the folder's other objects, a page
	// at a time; one of the bucket shows what is stored.
	put(t, bob, "veeam", sosapi.Folder+"other", []byte("x"))
	list := func(c *s3.Client, prefix string, max int32, token *string) *s3.ListObjectsV2Output {
		t.Helper()
		out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("veeam"), Prefix: aws.String(prefix), MaxKeys: aws.Int32(max), ContinuationToken: token})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	keys := func(out *s3.ListObjectsV2Output) (ks []string) {
		for _, o := range out.Contents {
			ks = append(ks, strings.TrimPrefix(aws.ToString(o.Key), sosapi.Folder))
		}
		return ks
	}
	generated := int64(len(sosapiDoc(t, onc, "veeam", sosapi.SystemKey)))
	l := list(onc, sosapi.Folder, 1000, nil)
	if got := strings.Join(keys(l), ","); got != "other,system.xml" || aws.ToInt64(l.Contents[1].Size) != generated || aws.ToBool(l.IsTruncated) {
		t.Fatalf("listing of the folder with SOSAPI on: %s (%+v)", got, l.Contents)
	}
	l = list(onc, sosapi.Folder, 1, nil)
	if got := strings.Join(keys(l), ","); got != "other" || !aws.ToBool(l.IsTruncated) {
		t.Fatalf("first page of one key: %s, truncated %v", got, aws.ToBool(l.IsTruncated))
	}
	l = list(onc, sosapi.Folder, 1, l.NextContinuationToken)
	if got := strings.Join(keys(l), ","); got != "system.xml" || aws.ToBool(l.IsTruncated) {
		t.Fatalf("second page of one key: %s, truncated %v", got, aws.ToBool(l.IsTruncated))
	}
	if l := list(bob, sosapi.Folder, 1000, nil); strings.Join(keys(l), ",") != "other,system.xml" || aws.ToInt64(l.Contents[1].Size) != int64(len(stored)) {
		t.Fatalf("listing with SOSAPI off: %+v", l.Contents)
	}
}

// With a quota both documents are listed, capacity.xml first.
func TestSOSAPIListsBothUnderAQuota(t *testing.T) {
	ten := newTenancy(t)
	bob := ten.clients["bob"]
	setQuota(t, ten, admin.Quota{Tenant: "acme", MaxBytes: 1 << 30})
	out, err := bob.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("acme-bob"), Prefix: aws.String(sosapi.Folder)})
	if err != nil || len(out.Contents) != 2 || aws.ToString(out.Contents[0].Key) != sosapi.CapacityKey || aws.ToString(out.Contents[1].Key) != sosapi.SystemKey {
		t.Fatalf("listing of the folder: %+v, %v", out, err)
	}
	for _, o := range out.Contents {
		if body := sosapiDoc(t, bob, "acme-bob", aws.ToString(o.Key)); aws.ToInt64(o.Size) != int64(len(body)) {
			t.Fatalf("%s listed with size %d, read with %d bytes", aws.ToString(o.Key), aws.ToInt64(o.Size), len(body))
		}
	}
	// Not in a listing of the bucket: nothing is stored there.
	all, err := bob.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("acme-bob")})
	if err != nil || len(all.Contents) != 1 {
		t.Fatalf("listing of the bucket: %+v, %v", all, err)
	}
	// Another tenant lists nothing of it.
	_, err = ten.clients["carl"].ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("acme-bob"), Prefix: aws.String(sosapi.Folder)})
	wantCode(t, err, "AccessDenied")
}

// A browser form upload cannot name a key under the folder either, not
// even through ${filename}; the same form elsewhere stores its file.
func TestSOSAPIRefusesFormUploads(t *testing.T) {
	c, bucket, srv := setup(t)
	for _, tc := range []struct {
		key, filename string
		status        int
	}{
		{sosapi.Folder + "${filename}", "system.xml", 403},
		{sosapi.SystemKey, "x", 403},
		{"uploads/${filename}", "system.xml", 204},
	} {
		fields := append(signedV4([]any{"starts-with", "$key", ""}), field{"key", tc.key})
		resp, body := postForm(t, srv, srv.URL+"/"+bucket, fields, tc.filename, strings.NewReader("<SystemInfo/>"))
		if code, _ := errCode(body); resp.StatusCode != tc.status || tc.status == 403 && code != "AccessDenied" {
			t.Fatalf("POST key %s file %s: %d %s", tc.key, tc.filename, resp.StatusCode, body)
		}
	}
	if got := sosapiDoc(t, c, bucket, sosapi.SystemKey); bytes.Contains(got, []byte("<SystemInfo/>")) {
		t.Fatalf("a form replaced system.xml: %s", got)
	}
}
