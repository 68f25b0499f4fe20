package s3_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func putBucketSSE(c *s3.Client, bucket string, algo types.ServerSideEncryption, key string, bucketKey bool) error {
	d := &types.ServerSideEncryptionByDefault{SSEAlgorithm: algo}
	if key != "" {
		d.KMSMasterKeyID = aws.String(key)
	}
	_, err := c.PutBucketEncryption(context.Background(), &s3.PutBucketEncryptionInput{Bucket: &bucket,
		ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{
			{ApplyServerSideEncryptionByDefault: d, BucketKeyEnabled: aws.Bool(bucketKey)}}}})
	return err
}

func bucketSSE(t *testing.T, c *s3.Client, bucket string) (types.ServerSideEncryptionRule, error) {
	t.Helper()
	out, err := c.GetBucketEncryption(context.Background(), &s3.GetBucketEncryptionInput{Bucket: &bucket})
	if err != nil {
		return types.ServerSideEncryptionRule{}, err
	}
	if len(out.ServerSideEncryptionConfiguration.Rules) != 1 {
		t.Fatalf("rules: %+v", out.ServerSideEncryptionConfiguration.Rules)
	}
	return out.ServerSideEncryptionConfiguration.Rules[0], nil
}

// Put/Get/DeleteBucketEncryption with the SDK: the rule comes back as set
// (a KMS key as it was set, as AWS reports it), AWS's refusals are
// refused with AWS's codes, and a bucket without any default anywhere
// answers ServerSideEncryptionConfigurationNotFoundError (docs/encryption.md:
// Ostium reports the rule in force, and encrypts only where one is).
func TestBucketEncryptionConfig(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	_, err := bucketSSE(t, c, bucket)
	wantCode(t, err, "ServerSideEncryptionConfigurationNotFoundError")

	if err := putBucketSSE(c, bucket, types.ServerSideEncryptionAes256, "", false); err != nil {
		t.Fatal(err)
	}
	r, err := bucketSSE(t, c, bucket)
	if err != nil || r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAes256 ||
		r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID != nil || aws.ToBool(r.BucketKeyEnabled) {
		t.Fatalf("SSE-S3 rule: %+v %v", r, err)
	}

	if err := putBucketSSE(c, bucket, types.ServerSideEncryptionAwsKms, "key-1", true); err != nil {
		t.Fatal(err)
	}
	r, err = bucketSSE(t, c, bucket)
	if err != nil || r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAwsKms ||
		aws.ToString(r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID) != "key-1" || !aws.ToBool(r.BucketKeyEnabled) {
		t.Fatalf("SSE-KMS rule: %+v %v", r.ApplyServerSideEncryptionByDefault, err)
	}
	// A key as an ARN is kept as set, as AWS.
	if err := putBucketSSE(c, bucket, types.ServerSideEncryptionAwsKms, "arn:aws:kms:us-east-1:111122223333:key/key-2", false); err != nil {
		t.Fatal(err)
	}
	if r, _ = bucketSSE(t, c, bucket); aws.ToString(r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID) != "arn:aws:kms:us-east-1:111122223333:key/key-2" {
		t.Fatalf("key by ARN: %+v", r.ApplyServerSideEncryptionByDefault)
	}

	// AWS refuses a KMS key with SSE-S3, and an algorithm it does not know.
	wantCode(t, putBucketSSE(c, bucket, types.ServerSideEncryptionAes256, "key-1", false), "InvalidArgument")
	wantCode(t, putBucketSSE(c, bucket, "AES128", "", false), "MalformedXML")
	// Dual-layer SSE-KMS is not offered: refused, never downgraded.
	wantCode(t, putBucketSSE(c, bucket, types.ServerSideEncryptionAwsKmsDsse, "", false), "NotImplemented")
	// Documents the SDK would not send.
	for _, doc := range []string{
		`<ServerSideEncryptionConfiguration></ServerSideEncryptionConfiguration>`,
		`<ServerSideEncryptionConfiguration><Rule><BucketKeyEnabled>true</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>`,
		`<ServerSideEncryptionConfiguration><Rule>`,
	} {
		h := http.Header{"Content-Md5": {md5b64([]byte(doc))}}
		if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"?encryption", []byte(doc), h)); st != 400 || code != "MalformedXML" {
			t.Errorf("%s: %d %s %s", doc, st, code, body)
		}
	}
	// The operation requires a digest of its body, as AWS.
	doc := `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`
	if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"?encryption", []byte(doc), nil)); st != 400 || code != "InvalidRequest" {
		t.Errorf("without Content-MD5: %d %s %s", st, code, body)
	}

	if _, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = bucketSSE(t, c, bucket)
	wantCode(t, err, "ServerSideEncryptionConfigurationNotFoundError")
	// Deleting none is no error, as AWS.
	if _, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = bucketSSE(t, c, "no-such-bucket")
	wantCode(t, err, "NoSuchBucket")
}

// The defaults of new objects stack: a bucket's rule over its tenant's
// default (set by the provider with the admin API) over the provider's
// (sse_default); GetBucketEncryption reports the one in force, and only
// the provider sets a tenant's.
func TestEncryptionDefaultsStack(t *testing.T) {
	ten := newTenancy(t, func(c *node.Config) { c.SSE.Default = "sse-s3" })
	ctx := context.Background()
	bob := ten.clients["bob"]
	r, err := bucketSSE(t, bob, "acme-bob")
	if err != nil || r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAes256 {
		t.Fatalf("provider's default: %+v %v", r, err)
	}

	var got admin.Tenant
	if err := ten.admin.Do(ctx, "PUT", "/tenants/acme/encryption", admin.TenantEncryption{Default: "sse-kms", KMSKey: "acme-key"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Encryption == nil || got.Encryption.Default != "sse-kms" || got.Encryption.KMSKey != "acme-key" {
		t.Fatalf("tenant after set: %+v", got)
	}
	r, err = bucketSSE(t, bob, "acme-bob")
	if err != nil || r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAwsKms ||
		aws.ToString(r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID) != "acme-key" {
		t.Fatalf("tenant's default: %+v %v", r.ApplyServerSideEncryptionByDefault, err)
	}
	// Another tenant keeps the provider's.
	if r, err = bucketSSE(t, ten.clients["carl"], "beta-carl"); err != nil || r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAes256 {
		t.Fatalf("other tenant: %+v %v", r, err)
	}
	if err := putBucketSSE(bob, "acme-bob", types.ServerSideEncryptionAes256, "", false); err != nil {
		t.Fatal(err)
	}
	if r, err = bucketSSE(t, bob, "acme-bob"); err != nil || r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAes256 {
		t.Fatalf("bucket's rule over the tenant's: %+v %v", r, err)
	}

	// A tenant's admin may not set its own default; bad values are
	// refused.
	annAdmin := adminClientOf(t, ten, "acme", "ann")
	if err := annAdmin.Do(ctx, "PUT", "/tenants/acme/encryption", admin.TenantEncryption{Default: "none"}, nil); err == nil {
		t.Fatal("a tenant admin set the tenant's default")
	}
	for _, bad := range []admin.TenantEncryption{{Default: "sse-c"}, {Default: "sse-s3", KMSKey: "k"}} {
		if err := ten.admin.Do(ctx, "PUT", "/tenants/acme/encryption", bad, nil); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := ten.admin.Do(ctx, "PUT", "/tenants/nope/encryption", admin.TenantEncryption{Default: "sse-s3"}, nil); err == nil {
		t.Error("a tenant that does not exist")
	}
	got = admin.Tenant{}
	if err := ten.admin.Do(ctx, "PUT", "/tenants/acme/encryption", admin.TenantEncryption{Default: "none"}, &got); err != nil || got.Encryption != nil {
		t.Fatalf("none: %+v %v", got, err)
	}
}

// The provider-wide default set through the admin API: shared by the nodes
// of a catalog, below a tenant's and a bucket's own, over the nodes'
// sse_default; provider only; a key of one tenant cannot be everyone's.
func TestProviderEncryptionAPI(t *testing.T) {
	ten := newTenancy(t, func(c *node.Config) { c.SSE.Default = "sse-s3" })
	ctx := context.Background()
	carl := ten.clients["carl"]
	peer := nodetest.StartPeer(t, ten.srv, nodetest.Options{TLS: true})
	carlB := s3.New(carl.Options(), func(o *s3.Options) { o.BaseEndpoint, o.HTTPClient = aws.String(peer.URL), peer.Client() })
	algo := func(c *s3.Client) types.ServerSideEncryption {
		r, err := bucketSSE(t, c, "beta-carl")
		if err != nil {
			t.Fatal(err)
		}
		return r.ApplyServerSideEncryptionByDefault.SSEAlgorithm
	}
	var got admin.TenantEncryption
	if err := ten.admin.Do(ctx, "GET", "/encryption", nil, &got); err != nil || got.Default != "none" {
		t.Fatalf("before any is set: %+v %v", got, err)
	}
	if a := algo(carl); a != types.ServerSideEncryptionAes256 { // the node's sse_default
		t.Fatalf("node default: %s", a)
	}
	if err := ten.admin.Do(ctx, "PUT", "/encryption", admin.TenantEncryption{Default: "sse-kms"}, &got); err != nil || got.Default != "sse-kms" {
		t.Fatalf("set sse-kms: %+v %v", got, err)
	}
	if a := algo(carl); a != types.ServerSideEncryptionAwsKms {
		t.Fatalf("after the API's sse-kms: %s", a)
	}
	within(t, 1500*time.Millisecond, func() bool { return algo(carlB) == types.ServerSideEncryptionAwsKms })
	if _, err := carl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String("k"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	if h, err := carl.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String("k")}); err != nil || h.ServerSideEncryption != types.ServerSideEncryptionAwsKms {
		t.Fatalf("a new object under the provider's sse-kms: %+v %v", h, err)
	}
	// A tenant's own default wins.
	if err := ten.admin.Do(ctx, "PUT", "/tenants/beta/encryption", admin.TenantEncryption{Default: "sse-s3"}, nil); err != nil {
		t.Fatal(err)
	}
	if a := algo(carl); a != types.ServerSideEncryptionAes256 {
		t.Fatalf("tenant's over the provider's: %s", a)
	}
	if err := ten.admin.Do(ctx, "PUT", "/tenants/beta/encryption", admin.TenantEncryption{Default: "none"}, nil); err != nil {
		t.Fatal(err)
	}

	annAdmin := adminClientOf(t, ten, "acme", "ann")
	for _, m := range []string{"GET", "PUT"} {
		if err := annAdmin.Do(ctx, m, "/encryption", admin.TenantEncryption{Default: "none"}, nil); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Errorf("a tenant admin's %s /encryption: %v", m, err)
		}
	}
	for _, bad := range []admin.TenantEncryption{{Default: "sse-c"}, {Default: "sse-kms", KMSKey: "acme-key"}, {Default: "sse-s3", KMSKey: "k"}} {
		if err := ten.admin.Do(ctx, "PUT", "/encryption", bad, nil); err == nil || !strings.Contains(err.Error(), "InvalidArgument") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if err := ten.admin.Do(ctx, "GET", "/encryption", nil, &got); err != nil || got.Default != "sse-kms" {
		t.Fatalf("after refused changes: %+v %v", got, err)
	}
	// None: the node's sse_default again.
	if err := ten.admin.Do(ctx, "PUT", "/encryption", admin.TenantEncryption{Default: "none"}, &got); err != nil || got.Default != "none" {
		t.Fatalf("set none: %+v %v", got, err)
	}
	if a := algo(carl); a != types.ServerSideEncryptionAes256 {
		t.Fatalf("after none: %s", a)
	}
}

// adminClientOf returns an admin API client signed with a fresh key of a
// tenant's user.
func adminClientOf(t *testing.T, ten *tenancy, tenant, user string) *admin.Client {
	t.Helper()
	var k admin.Key
	if err := ten.admin.Do(context.Background(), "POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil, &k); err != nil {
		t.Fatal(err)
	}
	return admin.NewClient(ten.srv.URL, k.AccessKey, k.SecretKey, ten.srv.Client())
}

// sseKind is one encryption setting of a write, and the key a read of
// what it wrote must bring (SSE-C).
type sseKind struct {
	name      string
	algo      types.ServerSideEncryption // "" for none or SSE-C
	kmsKey    string                     // SSE-KMS: as sent
	context   string                     // SSE-KMS: base64 JSON
	bucketKey bool
	customer  []byte // SSE-C
}

func (k sseKind) cAlgo() *string {
	if k.customer == nil {
		return nil
	}
	return aws.String("AES256")
}

func (k sseKind) cKey() *string {
	if k.customer == nil {
		return nil
	}
	return aws.String(base64.StdEncoding.EncodeToString(k.customer))
}

func (k sseKind) cMD5() *string {
	if k.customer == nil {
		return nil
	}
	return aws.String(md5b64(k.customer))
}

func (k sseKind) put(in *s3.PutObjectInput) *s3.PutObjectInput {
	in.ServerSideEncryption = k.algo
	if k.kmsKey != "" {
		in.SSEKMSKeyId = aws.String(k.kmsKey)
	}
	if k.context != "" {
		in.SSEKMSEncryptionContext = aws.String(k.context)
	}
	if k.bucketKey {
		in.BucketKeyEnabled = aws.Bool(true)
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = k.cAlgo(), k.cKey(), k.cMD5()
	return in
}

// sseSeen is what a response said of an object's encryption.
type sseSeen struct {
	algo                   types.ServerSideEncryption
	kmsKey, context, cAlgo string
	cMD5                   string
	bucketKey              bool
}

func (k sseKind) check(t *testing.T, what string, got sseSeen, keyARN string, withContext bool) {
	t.Helper()
	want := sseSeen{algo: k.algo, bucketKey: k.bucketKey}
	if k.algo == types.ServerSideEncryptionAwsKms {
		want.kmsKey = keyARN
		if withContext {
			want.context = k.context
		}
	}
	if k.customer != nil {
		want.cAlgo, want.cMD5 = "AES256", md5b64(k.customer)
	}
	if got != want {
		t.Errorf("%s %s: response says %+v, want %+v", k.name, what, got, want)
	}
}

func customerKey(seed byte) []byte {
	return bytes.Repeat([]byte{seed}, 32)
}

// sseNode starts a TLS node with a bucket and a named KMS key of the
// provider's (the bucket's tenant), and returns the kinds to test.
func sseNode(t *testing.T) (*s3.Client, string, *nodetest.Server, []sseKind, string) {
	t.Helper()
	c, bucket, srv := setup(t)
	k, err := srv.Node.KMS.CreateKey(context.Background(), "", "app")
	if err != nil {
		t.Fatal(err)
	}
	cx := base64.StdEncoding.EncodeToString([]byte(`{"department":"finance"}`))
	kinds := []sseKind{
		{name: "plain"},
		{name: "SSE-S3", algo: types.ServerSideEncryptionAes256},
		{name: "SSE-KMS default key", algo: types.ServerSideEncryptionAwsKms},
		{name: "SSE-KMS by id", algo: types.ServerSideEncryptionAwsKms, kmsKey: k.ID, context: cx, bucketKey: true},
		{name: "SSE-KMS by alias", algo: types.ServerSideEncryptionAwsKms, kmsKey: "alias/app"},
		{name: "SSE-C", customer: customerKey(7)},
	}
	return c, bucket, srv, kinds, k.ID
}

// keyARN is the ARN a response names for kind k's key: its own, or the
// tenant's default key.
func keyARN(t *testing.T, srv *nodetest.Server, k sseKind, named string) string {
	t.Helper()
	if k.algo != types.ServerSideEncryptionAwsKms {
		return ""
	}
	id := named
	if k.kmsKey == "" {
		var err error
		if id, err = srv.Node.KMS.DefaultKey(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	}
	return "arn:aws:kms:us-east-1::key/" + id
}

// PUT, GET, HEAD and range GETs of every kind, small (kept in the
// catalog row) and large (several segments), with the SDK over TLS: the
// bytes come back whole, and the response headers are AWS's for the
// kind (the KMS key as its full ARN, the context echoed by PUT only,
// SSE-C's algorithm and key digest); SSE-S3's ETag is the MD5 of the
// plaintext and SSE-KMS's and SSE-C's is not, as on AWS.
func TestSSEKinds(t *testing.T) {
	c, bucket, srv, kinds, named := sseNode(t)
	ctx := context.Background()
	for _, k := range kinds {
		arn := keyARN(t, srv, k, named)
		for _, size := range []int{100, 200 << 10} {
			key := fmt.Sprintf("%s/%d", k.name, size)
			data := randBytes(size, uint64(size))
			out, err := c.PutObject(ctx, k.put(&s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data)}))
			if err != nil {
				t.Fatalf("%s: put: %v", key, err)
			}
			k.check(t, "PUT", sseSeen{out.ServerSideEncryption, aws.ToString(out.SSEKMSKeyId), aws.ToString(out.SSEKMSEncryptionContext),
				aws.ToString(out.SSECustomerAlgorithm), aws.ToString(out.SSECustomerKeyMD5), aws.ToBool(out.BucketKeyEnabled)}, arn, true)
			plainETag := md5hex(data)
			if (aws.ToString(out.ETag) == plainETag) != (k.algo != types.ServerSideEncryptionAwsKms && k.customer == nil) {
				t.Errorf("%s: ETag %s, MD5 of the plaintext %s", key, aws.ToString(out.ETag), plainETag)
			}

			g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key,
				SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()})
			if err != nil {
				t.Fatalf("%s: get: %v", key, err)
			}
			body, _ := io.ReadAll(g.Body)
			g.Body.Close()
			if !bytes.Equal(body, data) {
				t.Fatalf("%s: GET returned %d bytes, not what was put", key, len(body))
			}
			k.check(t, "GET", sseSeen{g.ServerSideEncryption, aws.ToString(g.SSEKMSKeyId), "",
				aws.ToString(g.SSECustomerAlgorithm), aws.ToString(g.SSECustomerKeyMD5), aws.ToBool(g.BucketKeyEnabled)}, arn, false)
			if aws.ToString(g.ETag) != aws.ToString(out.ETag) {
				t.Errorf("%s: GET's ETag %s, PUT's %s", key, aws.ToString(g.ETag), aws.ToString(out.ETag))
			}

			h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key,
				SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()})
			if err != nil {
				t.Fatalf("%s: head: %v", key, err)
			}
			k.check(t, "HEAD", sseSeen{h.ServerSideEncryption, aws.ToString(h.SSEKMSKeyId), "",
				aws.ToString(h.SSECustomerAlgorithm), aws.ToString(h.SSECustomerKeyMD5), aws.ToBool(h.BucketKeyEnabled)}, arn, false)

			for _, rng := range [][2]int{{0, 0}, {10, 50}, {size - 7, size - 1}, {65530, 65540}, {70000, 140000}} {
				if rng[1] >= size {
					continue
				}
				g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, Range: aws.String(fmt.Sprintf("bytes=%d-%d", rng[0], rng[1])),
					SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()})
				if err != nil {
					t.Fatalf("%s: range %v: %v", key, rng, err)
				}
				body, _ := io.ReadAll(g.Body)
				g.Body.Close()
				if !bytes.Equal(body, data[rng[0]:rng[1]+1]) {
					t.Errorf("%s: range %v: wrong bytes", key, rng)
				}
			}
		}
	}
}

// A multipart upload of every kind: CreateMultipartUpload, UploadPart and
// CompleteMultipartUpload answer with the kind's headers as AWS does
// (SSE-C's digest on all but Complete), parts of an SSE-C upload need
// the key, and the whole and a range across parts read back.
func TestSSEMultipart(t *testing.T) {
	c, bucket, srv, kinds, named := sseNode(t)
	ctx := context.Background()
	part1, part2 := randBytes(5<<20, 1), randBytes(70<<10, 2)
	whole := append(append([]byte{}, part1...), part2...)
	for _, k := range kinds {
		arn := keyARN(t, srv, k, named)
		key := "mp/" + k.name
		in := &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key, ServerSideEncryption: k.algo,
			SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()}
		if k.kmsKey != "" {
			in.SSEKMSKeyId = aws.String(k.kmsKey)
		}
		if k.context != "" {
			in.SSEKMSEncryptionContext = aws.String(k.context)
		}
		if k.bucketKey {
			in.BucketKeyEnabled = aws.Bool(true)
		}
		up, err := c.CreateMultipartUpload(ctx, in)
		if err != nil {
			t.Fatalf("%s: create: %v", k.name, err)
		}
		k.check(t, "CreateMultipartUpload", sseSeen{up.ServerSideEncryption, aws.ToString(up.SSEKMSKeyId), aws.ToString(up.SSEKMSEncryptionContext),
			aws.ToString(up.SSECustomerAlgorithm), aws.ToString(up.SSECustomerKeyMD5), aws.ToBool(up.BucketKeyEnabled)}, arn, true)
		if k.customer != nil {
			// A small body: the refusal comes before the body is read and
			// closes the connection, and the test's client (no
			// ExpectContinueTimeout) would still be writing 5 MiB into it.
			_, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader(part2)})
			wantCode(t, err, "InvalidRequest")
		}
		var parts []types.CompletedPart
		for i, data := range [][]byte{part1, part2} {
			p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)),
				Body: bytes.NewReader(data), SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()})
			if err != nil {
				t.Fatalf("%s: part %d: %v", k.name, i+1, err)
			}
			k.check(t, "UploadPart", sseSeen{p.ServerSideEncryption, aws.ToString(p.SSEKMSKeyId), "",
				aws.ToString(p.SSECustomerAlgorithm), aws.ToString(p.SSECustomerKeyMD5), aws.ToBool(p.BucketKeyEnabled)}, arn, false)
			parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: p.ETag})
		}
		done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
		if err != nil {
			t.Fatalf("%s: complete: %v", k.name, err)
		}
		noC := k
		noC.customer = nil
		if k.customer != nil {
			noC.algo = ""
		}
		noC.check(t, "CompleteMultipartUpload", sseSeen{done.ServerSideEncryption, aws.ToString(done.SSEKMSKeyId), "", "", "", aws.ToBool(done.BucketKeyEnabled)}, arn, false)
		for _, rng := range []string{"", fmt.Sprintf("bytes=%d-%d", len(part1)-100, len(part1)+100)} {
			gi := &s3.GetObjectInput{Bucket: &bucket, Key: &key, SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()}
			want := whole
			if rng != "" {
				gi.Range, want = aws.String(rng), whole[len(part1)-100:len(part1)+101]
			}
			g, err := c.GetObject(ctx, gi)
			if err != nil {
				t.Fatalf("%s: get %q: %v", k.name, rng, err)
			}
			body, _ := io.ReadAll(g.Body)
			g.Body.Close()
			if !bytes.Equal(body, want) {
				t.Errorf("%s: get %q: %d bytes, not what was uploaded", k.name, rng, len(body))
			}
		}
	}
}

// CopyObject and UploadPartCopy between every pair of settings: the
// copy is readable with the destination's key and says the destination's
// kind; the source's SSE-C key is asked for as AWS asks it.
func TestSSECopyMatrix(t *testing.T) {
	c, bucket, srv, all, named := sseNode(t)
	ctx := context.Background()
	// One of each kind; a second SSE-C key, so that source and
	// destination keys differ.
	kinds := []sseKind{all[0], all[1], all[3], all[5], {name: "SSE-C other key", customer: customerKey(9)}}
	data := randBytes(150<<10, 3)
	for _, k := range kinds {
		key := "src/" + k.name
		if _, err := c.PutObject(ctx, k.put(&s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data)})); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	for _, src := range kinds {
		for _, dst := range kinds {
			srcKey, dstKey := "src/"+src.name, "copy/"+src.name+"/"+dst.name
			in := &s3.CopyObjectInput{Bucket: &bucket, Key: &dstKey, CopySource: aws.String(bucket + "/" + srcKey),
				ServerSideEncryption: dst.algo, SSECustomerAlgorithm: dst.cAlgo(), SSECustomerKey: dst.cKey(), SSECustomerKeyMD5: dst.cMD5(),
				CopySourceSSECustomerAlgorithm: src.cAlgo(), CopySourceSSECustomerKey: src.cKey(), CopySourceSSECustomerKeyMD5: src.cMD5()}
			if dst.kmsKey != "" {
				in.SSEKMSKeyId = aws.String(dst.kmsKey)
			}
			if dst.context != "" {
				in.SSEKMSEncryptionContext = aws.String(dst.context)
			}
			if dst.bucketKey {
				in.BucketKeyEnabled = aws.Bool(true)
			}
			out, err := c.CopyObject(ctx, in)
			if err != nil {
				t.Fatalf("copy %s -> %s: %v", src.name, dst.name, err)
			}
			dst.check(t, "CopyObject from "+src.name, sseSeen{out.ServerSideEncryption, aws.ToString(out.SSEKMSKeyId), aws.ToString(out.SSEKMSEncryptionContext),
				aws.ToString(out.SSECustomerAlgorithm), aws.ToString(out.SSECustomerKeyMD5), aws.ToBool(out.BucketKeyEnabled)}, keyARN(t, srv, dst, named), true)
			g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &dstKey, SSECustomerAlgorithm: dst.cAlgo(), SSECustomerKey: dst.cKey(), SSECustomerKeyMD5: dst.cMD5()})
			if err != nil {
				t.Fatalf("get copy %s -> %s: %v", src.name, dst.name, err)
			}
			body, _ := io.ReadAll(g.Body)
			g.Body.Close()
			if !bytes.Equal(body, data) {
				t.Errorf("copy %s -> %s: wrong bytes", src.name, dst.name)
			}

			// The same as a part: a range of the source into an upload of
			// the destination's kind.
			mpKey := "mpcopy/" + src.name + "/" + dst.name
			cin := &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &mpKey, ServerSideEncryption: dst.algo,
				SSECustomerAlgorithm: dst.cAlgo(), SSECustomerKey: dst.cKey(), SSECustomerKeyMD5: dst.cMD5()}
			if dst.kmsKey != "" {
				cin.SSEKMSKeyId = aws.String(dst.kmsKey)
			}
			up, err := c.CreateMultipartUpload(ctx, cin)
			if err != nil {
				t.Fatal(err)
			}
			pc, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: &bucket, Key: &mpKey, UploadId: up.UploadId, PartNumber: aws.Int32(1),
				CopySource: aws.String(bucket + "/" + srcKey), CopySourceRange: aws.String("bytes=1000-99999"),
				SSECustomerAlgorithm: dst.cAlgo(), SSECustomerKey: dst.cKey(), SSECustomerKeyMD5: dst.cMD5(),
				CopySourceSSECustomerAlgorithm: src.cAlgo(), CopySourceSSECustomerKey: src.cKey(), CopySourceSSECustomerKeyMD5: src.cMD5()})
			if err != nil {
				t.Fatalf("part copy %s -> %s: %v", src.name, dst.name, err)
			}
			if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &mpKey, UploadId: up.UploadId,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: pc.CopyPartResult.ETag}}}}); err != nil {
				t.Fatalf("complete part copy %s -> %s: %v", src.name, dst.name, err)
			}
			g, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &mpKey, SSECustomerAlgorithm: dst.cAlgo(), SSECustomerKey: dst.cKey(), SSECustomerKeyMD5: dst.cMD5()})
			if err != nil {
				t.Fatalf("get part copy %s -> %s: %v", src.name, dst.name, err)
			}
			body, _ = io.ReadAll(g.Body)
			g.Body.Close()
			if !bytes.Equal(body, data[1000:100000]) {
				t.Errorf("part copy %s -> %s: wrong bytes", src.name, dst.name)
			}
		}
	}
	// An SSE-C source copied without its key, or with another key.
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("x"), CopySource: aws.String(bucket + "/src/SSE-C")})
	wantCode(t, err, "InvalidRequest")
	other := kinds[4]
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("x"), CopySource: aws.String(bucket + "/src/SSE-C"),
		CopySourceSSECustomerAlgorithm: other.cAlgo(), CopySourceSSECustomerKey: other.cKey(), CopySourceSSECustomerKeyMD5: other.cMD5()})
	wantCode(t, err, "AccessDenied")
}

// SSE-C's refusals, as AWS: an SSE-C object read without the key is 400
// InvalidRequest, with another key 403 AccessDenied; a plain object read
// with a key 400 InvalidRequest; a key that is not 256 bits, a digest
// that does not match, another algorithm each get AWS's code.
func TestSSECErrors(t *testing.T) {
	c, bucket, srv, kinds, _ := sseNode(t)
	ctx := context.Background()
	k := kinds[5]
	if _, err := c.PutObject(ctx, k.put(&s3.PutObjectInput{Bucket: &bucket, Key: aws.String("c"), Body: strings.NewReader("secret")})); err != nil {
		t.Fatal(err)
	}
	put(t, c, bucket, "plain", []byte("plain"))
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c")})
	wantCode(t, err, "InvalidRequest")
	wrong := sseKind{customer: customerKey(8)}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c"), SSECustomerAlgorithm: wrong.cAlgo(), SSECustomerKey: wrong.cKey(), SSECustomerKeyMD5: wrong.cMD5()})
	wantCode(t, err, "AccessDenied")
	if st, _, _ := send(t, srv, signedRequest(t, srv, "HEAD", "/"+bucket+"/c", nil, sseCHeaders(wrong.customer, ""))); st != 403 {
		t.Errorf("HEAD with another key: %d", st)
	}
	if st, _, _ := send(t, srv, signedRequest(t, srv, "HEAD", "/"+bucket+"/c", nil, nil)); st != 400 {
		t.Errorf("HEAD without the key: %d", st)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("plain"), SSECustomerAlgorithm: k.cAlgo(), SSECustomerKey: k.cKey(), SSECustomerKeyMD5: k.cMD5()})
	wantCode(t, err, "InvalidRequest")
	// GetObjectAttributes reads no bytes, and is held to the key alike.
	attrs := func(h http.Header) (int, string) {
		st, code, _ := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"/c?attributes", nil, withHeader(h, "X-Amz-Object-Attributes", "ETag")))
		return st, code
	}
	if st, code := attrs(http.Header{}); st != 400 || code != "InvalidRequest" {
		t.Errorf("attributes without the key: %d %s", st, code)
	}
	if st, code := attrs(sseCHeaders(wrong.customer, "")); st != 403 || code != "AccessDenied" {
		t.Errorf("attributes with another key: %d %s", st, code)
	}
	if st, code := attrs(sseCHeaders(k.customer, "")); st != 200 {
		t.Errorf("attributes with the key: %d %s", st, code)
	}

	for name, h := range map[string]http.Header{
		"short key":       sseCHeaders(make([]byte, 16), ""),
		"digest mismatch": sseCHeaders(k.customer, md5b64([]byte("other"))),
		"no digest":       {"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"}, "X-Amz-Server-Side-Encryption-Customer-Key": {*k.cKey()}},
		"no key":          {"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"}},
		"no algorithm":    {"X-Amz-Server-Side-Encryption-Customer-Key": {*k.cKey()}, "X-Amz-Server-Side-Encryption-Customer-Key-Md5": {*k.cMD5()}},
		"key not base64":  {"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"}, "X-Amz-Server-Side-Encryption-Customer-Key": {"!!"}, "X-Amz-Server-Side-Encryption-Customer-Key-Md5": {*k.cMD5()}},
		"with SSE-S3":     withHeader(sseCHeaders(k.customer, ""), "X-Amz-Server-Side-Encryption", "AES256"),
	} {
		if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"/bad", []byte("x"), h)); st != 400 || code != "InvalidArgument" {
			t.Errorf("%s: %d %s %s", name, st, code, body)
		}
	}
	h := sseCHeaders(k.customer, "")
	h.Set("X-Amz-Server-Side-Encryption-Customer-Algorithm", "AES128")
	if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"/bad", []byte("x"), h)); st != 400 || code != "InvalidEncryptionAlgorithmError" {
		t.Errorf("AES128: %d %s %s", st, code, body)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("bad")}); apiCode(err) != "NotFound" {
		t.Errorf("a refused PUT stored something: %v", err)
	}
}

func sseCHeaders(key []byte, sum string) http.Header {
	if sum == "" {
		sum = md5b64(key)
	}
	return http.Header{"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"},
		"X-Amz-Server-Side-Encryption-Customer-Key": {base64.StdEncoding.EncodeToString(key)}, "X-Amz-Server-Side-Encryption-Customer-Key-Md5": {sum}}
}

func withHeader(h http.Header, k, v string) http.Header {
	h.Set(k, v)
	return h
}

// SSE-S3's and SSE-KMS's header refusals, as AWS: an unknown algorithm,
// a KMS key or context without aws:kms, a context that is not base64
// JSON of strings, a key that does not exist (KMS.NotFoundException),
// dual-layer SSE-KMS (not offered: NotImplemented).
func TestSSEHeaderErrors(t *testing.T) {
	_, bucket, srv, _, named := sseNode(t)
	cx := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name   string
		h      http.Header
		status int
		code   string
	}{
		{"AES128", http.Header{"X-Amz-Server-Side-Encryption": {"AES128"}}, 400, "InvalidArgument"},
		{"key with AES256", http.Header{"X-Amz-Server-Side-Encryption": {"AES256"}, "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": {named}}, 400, "InvalidArgument"},
		{"key alone", http.Header{"X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": {named}}, 400, "InvalidArgument"},
		{"context alone", http.Header{"X-Amz-Server-Side-Encryption-Context": {cx(`{"a":"b"}`)}}, 400, "InvalidArgument"},
		{"context not base64", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Context": {"{not base64}"}}, 400, "InvalidArgument"},
		{"context not JSON", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Context": {cx("a=b")}}, 400, "InvalidArgument"},
		{"context not strings", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Context": {cx(`{"a":1}`)}}, 400, "InvalidArgument"},
		{"bucket key not a bool", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled": {"maybe"}}, 400, "InvalidArgument"},
		{"no such key", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": {"nope"}}, 400, "KMS.NotFoundException"},
		{"no such alias", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}, "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": {"alias/nope"}}, 400, "KMS.NotFoundException"},
		{"dsse", http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms:dsse"}}, 501, "NotImplemented"},
	} {
		if st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/"+bucket+"/bad", []byte("x"), tc.h)); st != tc.status || code != tc.code {
			t.Errorf("%s: %d %s %s", tc.name, st, code, body)
		}
	}
	if st, _, _ := send(t, srv, signedRequest(t, srv, "HEAD", "/"+bucket+"/bad", nil, nil)); st != 404 {
		t.Errorf("a refused PUT stored something: %d", st)
	}
}

// SSE-C over plain HTTP is refused as AWS refuses it, before a byte is
// stored, unless the provider allows it for testing (sse_c_over_http);
// SSE-S3 is not concerned.
func TestSSECOverHTTP(t *testing.T) {
	key := customerKey(5)
	for _, allow := range []bool{false, true} {
		c, srv := nodeWithBucket(t, nodetest.Options{Config: func(cfg *node.Config) { cfg.SSE.COverHTTP = allow }}, "plain-http")
		st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/plain-http/c", []byte("data"), sseCHeaders(key, "")))
		if !allow {
			if st != 400 || code != "InvalidRequest" || !bytes.Contains(body, []byte("must be made over a secure connection")) {
				t.Fatalf("over HTTP: %d %s %s", st, code, body)
			}
			if st, _, _ := send(t, srv, signedRequest(t, srv, "HEAD", "/plain-http/c", nil, nil)); st != 404 {
				t.Errorf("refused PUT stored something: %d", st)
			}
			// A GET with a key is refused alike.
			if st, _, _ := send(t, srv, signedRequest(t, srv, "GET", "/plain-http/c", nil, sseCHeaders(key, ""))); st != 400 {
				t.Errorf("GET over HTTP: %d", st)
			}
		} else if st != 200 {
			t.Fatalf("allowed over HTTP: %d %s %s", st, code, body)
		}
		if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("plain-http"), Key: aws.String("s3"),
			Body: strings.NewReader("x"), ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
			t.Errorf("SSE-S3 over HTTP: %v", err)
		}
	}
}

// New objects take the defaults in force when written: a bucket's rule,
// else the tenant's, else the provider's; a request's own headers
// override them; objects written before keep what they were written with.
func TestSSEDefaultsApplied(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	kind := func(key string) types.ServerSideEncryption {
		t.Helper()
		h, err := bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("head %s: %v", key, err)
		}
		return h.ServerSideEncryption
	}
	put(t, bob, "acme-bob", "before", []byte("x"))
	if err := ten.admin.Do(ctx, "PUT", "/tenants/acme/encryption", admin.TenantEncryption{Default: "sse-s3"}, nil); err != nil {
		t.Fatal(err)
	}
	put(t, bob, "acme-bob", "tenant-default", []byte("x"))
	if err := putBucketSSE(bob, "acme-bob", types.ServerSideEncryptionAwsKms, "", false); err != nil {
		t.Fatal(err)
	}
	put(t, bob, "acme-bob", "bucket-default", []byte("x"))
	if _, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("asked"), Body: strings.NewReader("x"),
		ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]types.ServerSideEncryption{"before": "", "tenant-default": "AES256", "bucket-default": "aws:kms", "asked": "AES256"} {
		if got := kind(key); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	// A copy without headers takes the destination's default too.
	if _, err := bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("copied"), CopySource: aws.String("acme-bob/before")}); err != nil {
		t.Fatal(err)
	}
	if got := kind("copied"); got != "aws:kms" {
		t.Errorf("copy: %q", got)
	}
	// Another tenant is untouched.
	put(t, ten.clients["carl"], "beta-carl", "k2", []byte("x"))
	h, err := ten.clients["carl"].HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String("k2")})
	if err != nil || h.ServerSideEncryption != "" {
		t.Errorf("other tenant: %v %v", h.ServerSideEncryption, err)
	}
}

// A bucket policy can require encryption with the condition key
// s3:x-amz-server-side-encryption, which holds the header as sent (a
// default applied later does not satisfy it, as on AWS); its Null form
// refuses writes that do not name any.
func TestSSEPolicyRequiresEncryption(t *testing.T) {
	ten := newTenancy(t)
	c, bucket := ten.clients["bob"], "acme-bob"
	ctx := context.Background()
	policy := `{"Version":"2012-10-17","Statement":[
	{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + bucket + `/*",
	 "Condition":{"StringNotEquals":{"s3:x-amz-server-side-encryption":"aws:kms"}}},
	{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + bucket + `/*",
	 "Condition":{"Null":{"s3:x-amz-server-side-encryption":"true"}}}]}`
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: &bucket, Policy: &policy}); err != nil {
		t.Fatal(err)
	}
	if err := putBucketSSE(c, bucket, types.ServerSideEncryptionAwsKms, "", false); err != nil {
		t.Fatal(err)
	}
	try := func(algo types.ServerSideEncryption) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("k"), Body: strings.NewReader("x"), ServerSideEncryption: algo})
		return err
	}
	wantCode(t, try(""), "AccessDenied")
	wantCode(t, try(types.ServerSideEncryptionAes256), "AccessDenied")
	if err := try(types.ServerSideEncryptionAwsKms); err != nil {
		t.Fatalf("aws:kms refused: %v", err)
	}
	_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp")})
	wantCode(t, err, "AccessDenied")
	if _, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"), ServerSideEncryption: types.ServerSideEncryptionAwsKms}); err != nil {
		t.Fatalf("aws:kms upload refused: %v", err)
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("k2"), CopySource: aws.String(bucket + "/k")})
	wantCode(t, err, "AccessDenied")
}

// A browser form's encryption fields are PutObject's headers: SSE-S3 and
// SSE-C (over TLS) are honoured, with the bucket's default for a form
// that names none, and what is refused on a PUT is refused alike.
func TestSSEFormUpload(t *testing.T) {
	c, bucket, srv, _, _ := sseNode(t)
	ctx := context.Background()
	u := srv.URL + "/" + bucket
	key := customerKey(3)
	for _, tc := range []struct {
		key    string
		fields []field
		status int
		want   string // the kind HEAD reports
	}{
		{"s3", []field{{"x-amz-server-side-encryption", "AES256"}}, 204, "AES256"},
		{"c", []field{{"x-amz-server-side-encryption-customer-algorithm", "AES256"},
			{"x-amz-server-side-encryption-customer-key", base64.StdEncoding.EncodeToString(key)},
			{"x-amz-server-side-encryption-customer-key-md5", md5b64(key)}}, 204, "SSE-C"},
		{"bad", []field{{"x-amz-server-side-encryption", "AES128"}}, 400, ""},
	} {
		fields := append([]field{{"key", tc.key}}, tc.fields...)
		conds := []any{}
		for _, f := range fields {
			conds = append(conds, []any{"starts-with", "$" + f.name, ""})
		}
		resp, body := postForm(t, srv, u, append(signedV4(conds...), fields...), "f", strings.NewReader("form data"))
		if resp.StatusCode != tc.status {
			t.Fatalf("%s: %d %s", tc.key, resp.StatusCode, body)
		}
		if tc.status != 204 {
			continue
		}
		in := &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String(tc.key)}
		if tc.want == "SSE-C" {
			k := sseKind{customer: key}
			in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = k.cAlgo(), k.cKey(), k.cMD5()
		}
		h, err := c.HeadObject(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		got := string(h.ServerSideEncryption)
		if h.SSECustomerAlgorithm != nil {
			got = "SSE-C"
		}
		if got != tc.want {
			t.Errorf("%s: stored as %q, want %q", tc.key, got, tc.want)
		}
	}
}
