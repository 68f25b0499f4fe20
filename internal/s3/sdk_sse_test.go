package s3_test

import (
	"context"
	"net/http"
	"testing"

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
// (a KMS key as its full ARN, as AWS reports it), AWS's refusals are
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
		aws.ToString(r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID) != "arn:aws:kms:us-east-1::key/key-1" || !aws.ToBool(r.BucketKeyEnabled) {
		t.Fatalf("SSE-KMS rule: %+v %v", r.ApplyServerSideEncryptionByDefault, err)
	}
	// An ARN names the same key.
	if err := putBucketSSE(c, bucket, types.ServerSideEncryptionAwsKms, "arn:aws:kms:us-east-1:111122223333:key/key-2", false); err != nil {
		t.Fatal(err)
	}
	if r, _ = bucketSSE(t, c, bucket); aws.ToString(r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID) != "arn:aws:kms:us-east-1::key/key-2" {
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
		aws.ToString(r.ApplyServerSideEncryptionByDefault.KMSMasterKeyID) != "arn:aws:kms:us-east-1:acme:key/acme-key" {
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

var _ = nodetest.AccessKey
