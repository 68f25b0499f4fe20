package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node/nodetest"
	s3srv "github.com/ostiumio/ostium/internal/s3"
)

// opRequest is a valid request of one operation against the fixture of
// tableNode: bucket "tbl" holding "src", and an upload open on "mp".
type opRequest struct {
	method, path string
	body         []byte
	header       http.Header
}

func requestFor(op, uploadID string) (opRequest, bool) {
	const b = "/tbl"
	copySrc := http.Header{"X-Amz-Copy-Source": {"/tbl/src"}}
	acl := http.Header{"X-Amz-Acl": {"private"}}
	del := []byte("<Delete><Object><Key>src</Key></Object></Delete>")
	sum := md5.Sum(del)
	up := "uploadId=" + uploadID
	switch op {
	case "PutObject":
		return opRequest{"PUT", b + "/k", []byte("data"), nil}, true
	case "GetObjectAttributes":
		return opRequest{"GET", b + "/src?attributes", nil, http.Header{"X-Amz-Object-Attributes": {"ETag"}}}, true
	case "CopyObject":
		return opRequest{"PUT", b + "/k", nil, copySrc}, true
	case "CreateMultipartUpload":
		return opRequest{"POST", b + "/k?uploads", nil, nil}, true
	case "UploadPart":
		return opRequest{"PUT", b + "/mp?partNumber=1&" + up, []byte("data"), nil}, true
	case "UploadPartCopy":
		return opRequest{"PUT", b + "/mp?partNumber=1&" + up, nil, copySrc}, true
	case "CompleteMultipartUpload":
		doc := `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>`
		return opRequest{"POST", b + "/mp?" + up, []byte(doc), nil}, true
	case "AbortMultipartUpload":
		return opRequest{"DELETE", b + "/mp?" + up, nil, nil}, true
	case "ListParts":
		return opRequest{"GET", b + "/mp?" + up, nil, nil}, true
	case "GetObject":
		return opRequest{"GET", b + "/src", nil, nil}, true
	case "HeadObject":
		return opRequest{"HEAD", b + "/src", nil, nil}, true
	case "DeleteObject":
		return opRequest{"DELETE", b + "/src", nil, nil}, true
	case "DeleteObjects":
		return opRequest{"POST", b + "?delete", del, http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])}}}, true
	case "CreateBucket":
		return opRequest{"PUT", "/tbl-new", nil, nil}, true
	case "PutBucketAcl":
		return opRequest{"PUT", b + "?acl", nil, acl}, true
	case "PutObjectAcl":
		return opRequest{"PUT", b + "/src?acl", nil, acl}, true
	case "PutBucketPolicy":
		doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::tbl/*"}]}`
		return opRequest{"PUT", b + "?policy", []byte(doc), nil}, true
	case "PutBucketOwnershipControls":
		doc := `<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>`
		return opRequest{"PUT", b + "?ownershipControls", []byte(doc), nil}, true
	case "PutPublicAccessBlock":
		doc := `<PublicAccessBlockConfiguration><BlockPublicAcls>false</BlockPublicAcls></PublicAccessBlockConfiguration>`
		return opRequest{"PUT", b + "?publicAccessBlock", []byte(doc), nil}, true
	case "PutBucketLogging":
		doc := `<BucketLoggingStatus><LoggingEnabled><TargetBucket>tbl</TargetBucket><TargetPrefix>log/</TargetPrefix></LoggingEnabled></BucketLoggingStatus>`
		return opRequest{"PUT", b + "?logging", []byte(doc), nil}, true
	case "PutObjectLockConfiguration":
		doc := `<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`
		return opRequest{"PUT", b + "?object-lock", []byte(doc), nil}, true
	case "PutObjectRetention":
		doc := `<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2099-01-01T00:00:00Z</RetainUntilDate></Retention>`
		return opRequest{"PUT", b + "/src?retention", []byte(doc), nil}, true
	case "PutObjectLegalHold":
		return opRequest{"PUT", b + "/src?legal-hold", []byte(`<LegalHold><Status>ON</Status></LegalHold>`), nil}, true
	case "PutBucketVersioning":
		doc := `<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>`
		return opRequest{"PUT", b + "?versioning", []byte(doc), nil}, true
	case "PutObjectTagging":
		doc := `<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`
		return opRequest{"PUT", b + "/src?tagging", []byte(doc), nil}, true
	case "PutBucketTagging":
		doc := `<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`
		return opRequest{"PUT", b + "?tagging", []byte(doc), nil}, true
	case "PutBucketCors":
		doc := []byte(`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`)
		sum := md5.Sum(doc)
		return opRequest{"PUT", b + "?cors", doc, http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])}}}, true
	case "PutBucketEncryption":
		doc := []byte(`<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`)
		sum := md5.Sum(doc)
		return opRequest{"PUT", b + "?encryption", doc, http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])}}}, true
	case "PutBucketLifecycleConfiguration":
		doc := []byte(`<LifecycleConfiguration><Rule><ID>r</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`)
		sum := md5.Sum(doc)
		return opRequest{"PUT", b + "?lifecycle", doc, http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])}}}, true
	case "PutBucketNotificationConfiguration":
		return opRequest{"PUT", b + "?notification", []byte(`<NotificationConfiguration/>`), nil}, true
	case "PutBucketReplication":
		doc := `<ReplicationConfiguration><Role>r</Role><Rule><Prefix></Prefix><Status>Enabled</Status><Destination><Bucket>arn:aws:s3:::dst</Bucket></Destination></Rule></ReplicationConfiguration>`
		return opRequest{"PUT", b + "?replication", []byte(doc), nil}, true
	}
	return opRequest{}, false
}

// signedRequest signs (SigV4, root) a request to srv; every header is
// set before signing, so it is among the signed ones.
func signedRequest(t testing.TB, srv *nodetest.Server, method, path string, body []byte, h http.Header) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range h {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	creds := aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hash, "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	return req
}

func send(t *testing.T, srv *nodetest.Server, req *http.Request) (int, string, []byte) {
	t.Helper()
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e struct{ Code string }
	_ = xml.Unmarshal(body, &e)
	return resp.StatusCode, e.Code, body
}

// tableNode starts a node with the fixture requestFor expects.
func tableNode(t *testing.T) (*s3.Client, *nodetest.Server, string) {
	t.Helper()
	c, srv := nodeWithBucket(t, nodetest.Options{}, "tbl")
	put(t, c, "tbl", "src", []byte("source"))
	ctx := context.Background()
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("tbl"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, *cu.UploadId
}

// state is everything a request could have stored in the fixture.
func state(t *testing.T, c *s3.Client, uploadID string) string {
	t.Helper()
	ctx := context.Background()
	var out []string
	bs, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs.Buckets {
		out = append(out, "bucket "+*b.Name)
	}
	objs, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs.Contents {
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("tbl"), Key: o.Key})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("object %s %s %v %s", *o.Key, *o.ETag, h.Metadata, h.StorageClass))
	}
	ups, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range ups.Uploads {
		out = append(out, "upload "+*u.Key+" "+*u.UploadId)
	}
	parts, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("tbl"), Key: aws.String("mp"), UploadId: &uploadID})
	if err == nil {
		for _, p := range parts.Parts {
			out = append(out, fmt.Sprintf("part %d %s", *p.PartNumber, *p.ETag))
		}
	}
	if _, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("tbl")}); err == nil {
		out = append(out, "policy")
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// valueFor is a value a client would send for a refused row.
func valueFor(r s3srv.Row) (name, value string) {
	name = r.Name
	if p, ok := strings.CutSuffix(name, "*"); ok {
		name = p + "Future-Field"
	}
	switch {
	case r.Values != nil:
		return name, r.Values[0]
	case strings.Contains(strings.ToLower(name), "encryption"):
		return name, "AES256"
	case strings.Contains(strings.ToLower(name), "date"), strings.HasSuffix(strings.ToLower(name), "time"):
		return name, time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	}
	return name, "1"
}

// Every refused row of the table, sent on every operation it covers,
// gets its error and stores nothing: no object, upload, part, bucket or
// policy appears or changes.
func TestHonouredTableRefusals(t *testing.T) {
	c, srv, uploadID := tableNode(t)
	before := state(t, c, uploadID)
	n := 0
	for _, row := range s3srv.Table() {
		if row.How != "refused" {
			continue
		}
		for _, op := range row.Ops {
			spec, ok := requestFor(op, uploadID)
			if !ok {
				t.Fatalf("row %s: no test request for %s", row.Name, op)
			}
			h := http.Header{}
			for k, v := range spec.header {
				h[k] = v
			}
			name, value := valueFor(row)
			path := spec.path
			if row.Query {
				sep := "?"
				if strings.Contains(path, "?") {
					sep = "&"
				}
				path += sep + name + "=" + value
			} else {
				h.Set(name, value)
			}
			st, code, body := send(t, srv, signedRequest(t, srv, spec.method, path, spec.body, h))
			wantCode := row.Code
			if spec.method == "HEAD" {
				wantCode = "" // no body
			}
			if st != row.Status || code != wantCode {
				t.Errorf("%s: %s: %s got %d %s (%s), want %d %s", op, name, value, st, code, body, row.Status, row.Code)
			}
			if after := state(t, c, uploadID); after != before {
				t.Fatalf("%s with %s stored something:\n%s\nwas\n%s", op, name, after, before)
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d refusals walked", n)
	}
}

// Every honoured row names the tests that pin it, and they exist; every
// refused one is in the compatibility document.
func TestHonouredTableNotes(t *testing.T) {
	names := map[string]bool{}
	for _, dir := range []string{".", "sigv4", "../../test/security"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)`).FindAllSubmatch(b, -1) {
				names[string(m[1])] = true
			}
		}
	}
	doc, err := os.ReadFile("../../docs/s3-compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	docText := strings.ToLower(string(doc))
	// honour takes a name's value rows, then the row for the rest: they
	// must sit together in that order.
	table := s3srv.Table()
	for i, row := range table {
		for j := i + 2; j < len(table); j++ {
			if table[j].Name == row.Name && table[j].Query == row.Query && table[j-1].Name != row.Name && overlap(row.Ops, table[j].Ops) {
				t.Errorf("rows of %s are not together", row.Name)
			}
		}
		if i > 0 && table[i-1].Name == row.Name && table[i-1].Values == nil && row.Values != nil {
			t.Errorf("a value row of %s follows its general row", row.Name)
		}
	}
	for _, row := range s3srv.Table() {
		if len(row.Ops) == 0 {
			t.Errorf("row %s covers no operation", row.Name)
		}
		if row.How == "refused" {
			// docs/s3-compatibility.md's "Not yet" table follows the code.
			for _, name := range append([]string{strings.TrimSuffix(row.Name, "*")}, row.Values...) {
				if row.Values != nil && name == row.Name {
					continue // the values are what is refused
				}
				if !strings.Contains(docText, strings.ToLower(name)) {
					t.Errorf("refused %s %s is not in docs/s3-compatibility.md", row.Name, name)
				}
			}
		}
		if row.How != "honoured" {
			continue
		}
		tests := regexp.MustCompile(`\bTest\w+`).FindAllString(row.Note, -1)
		if len(tests) == 0 {
			t.Errorf("honoured row %s names no test: %q", row.Name, row.Note)
		}
		for _, name := range tests {
			if !names[name] {
				t.Errorf("honoured row %s names %s, which does not exist", row.Name, name)
			}
		}
	}
}

// Storage classes whose objects read at once are recorded and returned;
// the archive classes are refused (TestHonouredTableRefusals).
func TestStorageClassesHonoured(t *testing.T) {
	c, _, _ := tableNode(t)
	ctx := context.Background()
	for _, sc := range []types.StorageClass{types.StorageClassStandardIa, types.StorageClassGlacierIr, types.StorageClassIntelligentTiering} {
		key := "sc-" + string(sc)
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("tbl"), Key: &key, Body: strings.NewReader("x"), StorageClass: sc}); err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("tbl"), Key: &key})
		if err != nil || h.StorageClass != sc {
			t.Fatalf("%s: head %v %v", sc, h, err)
		}
	}
}

// Rows AWS ignores are ignored, and a value row's other values are
// honoured: the request succeeds as without them.
func TestIgnoredAndValueRows(t *testing.T) {
	_, srv, _ := tableNode(t)
	for _, tc := range []struct {
		method, path string
		h            http.Header
		want         int
	}{
		{"PUT", "/tbl/payer", http.Header{"X-Amz-Request-Payer": {"requester"}}, 200},
		{"DELETE", "/tbl/payer", http.Header{"X-Amz-Mfa": {"123 456"}, "X-Amz-Bypass-Governance-Retention": {"true"}}, 204},
		{"GET", "/tbl?list-type=2&x-id=ListObjectsV2", http.Header{"X-Amz-Optional-Object-Attributes": {"RestoreStatus"}}, 200},
		{"PUT", "/tbl-unlocked", http.Header{"X-Amz-Bucket-Object-Lock-Enabled": {"false"}}, 200},
	} {
		st, code, body := send(t, srv, signedRequest(t, srv, tc.method, tc.path, nil, tc.h))
		if st != tc.want {
			t.Errorf("%s %s %v: %d %s %s", tc.method, tc.path, tc.h, st, code, body)
		}
	}
}

// x-amz-expected-bucket-owner is held to the bucket's account (its
// tenant; for the provider's buckets, the owner's canonical id), as
// AWS: 403 AccessDenied when it differs, for reads, writes and a copy's
// source alike, and nothing is stored.
func TestExpectedBucketOwner(t *testing.T) {
	c, srv, uploadID := tableNode(t)
	before := state(t, c, uploadID)
	for _, tc := range []struct {
		method, path string
		body         []byte
		h            http.Header
	}{
		{"GET", "/tbl/src", nil, http.Header{"X-Amz-Expected-Bucket-Owner": {"111122223333"}}},
		{"PUT", "/tbl/k", []byte("x"), http.Header{"X-Amz-Expected-Bucket-Owner": {"111122223333"}}},
		{"PUT", "/tbl?policy", []byte(`{"Version":"2012-10-17","Statement":[]}`), http.Header{"X-Amz-Expected-Bucket-Owner": {"111122223333"}}},
		{"PUT", "/tbl/k", nil, http.Header{"X-Amz-Copy-Source": {"/tbl/src"}, "X-Amz-Source-Expected-Bucket-Owner": {"111122223333"}}},
	} {
		st, code, body := send(t, srv, signedRequest(t, srv, tc.method, tc.path, tc.body, tc.h))
		if st != 403 || tc.method != "HEAD" && code != "AccessDenied" {
			t.Errorf("%s %s %v: %d %s %s", tc.method, tc.path, tc.h, st, code, body)
		}
	}
	if after := state(t, c, uploadID); after != before {
		t.Fatalf("stored:\n%s", after)
	}
	// The right owner passes.
	acl, err := c.GetBucketAcl(context.Background(), &s3.GetBucketAclInput{Bucket: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"X-Amz-Expected-Bucket-Owner": {*acl.Owner.ID}}
	if st, code, body := send(t, srv, signedRequest(t, srv, "GET", "/tbl/src", nil, h)); st != 200 {
		t.Fatalf("right owner: %d %s %s", st, code, body)
	}
}

// ListBuckets filters by prefix and region and pages by max-buckets and
// continuation-token, as AWS (the aws cli's --bucket-name-prefix and
// --page-size).
func TestListBucketsPaging(t *testing.T) {
	c, _, _ := tableNode(t)
	ctx := context.Background()
	for _, b := range []string{"pg-a", "pg-b", "pg-c"} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	in := &s3.ListBucketsInput{Prefix: aws.String("pg-"), MaxBuckets: aws.Int32(2)}
	for pages := 0; ; pages++ {
		out, err := c.ListBuckets(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range out.Buckets {
			got = append(got, *b.Name)
		}
		if out.ContinuationToken == nil || pages > 3 {
			break
		}
		in.ContinuationToken = out.ContinuationToken
	}
	if strings.Join(got, ",") != "pg-a,pg-b,pg-c" {
		t.Fatalf("paged listing: %v", got)
	}
	out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{BucketRegion: aws.String("eu-west-3")})
	if err != nil || len(out.Buckets) != 0 {
		t.Fatalf("other region: %v %v", out, err)
	}
	_, err = c.ListBuckets(ctx, &s3.ListBucketsInput{MaxBuckets: aws.Int32(0)})
	wantCode(t, err, "InvalidArgument")
}

// A document's Content-MD5 and x-amz-checksum-* are checked, as AWS:
// a mismatch is BadDigest and changes nothing.
func TestXMLBodyDigests(t *testing.T) {
	c, srv, uploadID := tableNode(t)
	before := state(t, c, uploadID)
	doc := []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteBucket","Resource":"arn:aws:s3:::tbl"}]}`)
	wrong := md5.Sum([]byte("other"))
	for _, h := range []http.Header{
		{"Content-Md5": {base64.StdEncoding.EncodeToString(wrong[:])}},
		{"X-Amz-Checksum-Crc32": {"AAAAAA=="}, "X-Amz-Sdk-Checksum-Algorithm": {"CRC32"}},
		{"X-Amz-Checksum-Sha256": {base64.StdEncoding.EncodeToString(make([]byte, 32))}},
	} {
		st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/tbl?policy", doc, h))
		if st != 400 || code != "BadDigest" {
			t.Errorf("%v: %d %s %s", h, st, code, body)
		}
	}
	if after := state(t, c, uploadID); after != before {
		t.Fatalf("stored:\n%s", after)
	}
	// The SDK's own (CRC32 by default) passes.
	if _, err := c.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String("tbl"), Policy: aws.String(string(doc))}); err != nil {
		t.Fatal(err)
	}
}

// A completion that states a checksum type other than its upload's is
// refused, as AWS.
func TestCompleteChecksumType(t *testing.T) {
	c, _, _ := tableNode(t)
	ctx := context.Background()
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("tbl"), Key: aws.String("ct"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, ChecksumType: types.ChecksumTypeComposite})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("tbl"), Key: aws.String("ct"), UploadId: cu.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("part"), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
	if err != nil {
		t.Fatal(err)
	}
	parts := &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: p.ETag, ChecksumCRC32: p.ChecksumCRC32}}}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("tbl"), Key: aws.String("ct"),
		UploadId: cu.UploadId, MultipartUpload: parts, ChecksumType: types.ChecksumTypeFullObject})
	wantCode(t, err, "InvalidRequest")
	if _, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("tbl"), Key: aws.String("ct"),
		UploadId: cu.UploadId, MultipartUpload: parts, ChecksumType: types.ChecksumTypeComposite}); err != nil {
		t.Fatal(err)
	}
}

// x-amz-mp-object-size is honoured as AWS does (the AWS SDK for Java
// v2's TransferManager and CRT client send it on every multipart
// upload): the listed parts must add up to it. A mismatch is 400
// InvalidRequest "The provided 'x-amz-mp-object-size' header value N
// does not match what was computed: M", a value that is not a number
// "Value for x-amz-mp-object-size header is invalid: 'v'", a negative one
// "... is less than zero: 'v'" (AWS's answers as recorded by versitygw's
// s3err and moto against S3, versity/versitygw#1398). Nothing is
// completed by a refused request: the upload and its parts stay, and the
// right size then completes it.
func TestCompleteObjectSize(t *testing.T) {
	c, srv, uploadID := tableNode(t)
	ctx := context.Background()
	bucket, key := aws.String("tbl"), aws.String("mp")
	first, last := randBytes(5<<20, 1), []byte("the last part")
	var parts []types.CompletedPart
	for i, b := range [][]byte{first, last} {
		p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: bucket, Key: key, UploadId: &uploadID,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(b)})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: p.ETag})
	}
	size := int64(len(first) + len(last))
	before := state(t, c, uploadID)
	doc := fmt.Sprintf(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part>`+
		`<Part><PartNumber>2</PartNumber><ETag>%s</ETag></Part></CompleteMultipartUpload>`, *parts[0].ETag, *parts[1].ETag)
	for _, tc := range []struct{ value, message string }{
		{fmt.Sprint(size + 1), fmt.Sprintf("The provided 'x-amz-mp-object-size' header value %d does not match what was computed: %d", size+1, size)},
		{fmt.Sprint(size - 1), fmt.Sprintf("The provided 'x-amz-mp-object-size' header value %d does not match what was computed: %d", size-1, size)},
		{"0", fmt.Sprintf("The provided 'x-amz-mp-object-size' header value 0 does not match what was computed: %d", size)},
		{"size", "Value for x-amz-mp-object-size header is invalid: 'size'"},
		{"1.5e6", "Value for x-amz-mp-object-size header is invalid: '1.5e6'"},
		{"99999999999999999999", "Value for x-amz-mp-object-size header is invalid: '99999999999999999999'"},
		{"-1", "Value for x-amz-mp-object-size header is less than zero: '-1'"},
	} {
		h := http.Header{"X-Amz-Mp-Object-Size": {tc.value}}
		st, code, body := send(t, srv, signedRequest(t, srv, "POST", "/tbl/mp?uploadId="+uploadID, []byte(doc), h))
		var e struct{ Message string }
		_ = xml.Unmarshal(body, &e)
		if st != 400 || code != "InvalidRequest" || e.Message != tc.message {
			t.Errorf("x-amz-mp-object-size %s: %d %s %q, want 400 InvalidRequest %q", tc.value, st, code, e.Message, tc.message)
		}
		if after := state(t, c, uploadID); after != before {
			t.Fatalf("x-amz-mp-object-size %s changed the upload:\n%s\nwas\n%s", tc.value, after, before)
		}
	}
	// The SDK's field, with the right size, completes the same upload.
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: bucket, Key: key, UploadId: &uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}, MpuObjectSize: aws.Int64(size)}); err != nil {
		t.Fatal(err)
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: bucket, Key: key})
	if err != nil || *h.ContentLength != size {
		t.Fatalf("completed object: %v %v, want %d bytes", h, err, size)
	}
}

func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
