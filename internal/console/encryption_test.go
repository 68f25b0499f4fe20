package console_test

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// s3Key makes an access key for tenant's user through the console (as
// its admin c) and returns an SDK client of srv with it.
func s3Key(t *testing.T, srv *nodetest.Server, c *consoletest.Client, tenant, user string) *s3.Client {
	t.Helper()
	var k struct {
		AccessKey string `json:"access_key"`
		SecretKey string `json:"secret_key"`
	}
	c.Must(201, "POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil).JSON(t, &k)
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(k.AccessKey, k.SecretKey, ""),
		HTTPClient:  srv.Client(), RetryMaxAttempts: 1,
	})
}

// encryptionOf reads the console's metadata call's encryption of key.
type objectEncryption struct {
	Kind      string `json:"kind"`
	KMSKeyID  string `json:"kms_key_id"`
	KMSKeyARN string `json:"kms_key_arn"`
	BucketKey bool   `json:"bucket_key_enabled"`
}

func encryptionOf(t *testing.T, c *consoletest.Client, bucket, key string) (enc *objectEncryption, keyRequired bool) {
	t.Helper()
	var o struct {
		Encryption          *objectEncryption `json:"encryption"`
		CustomerKeyRequired bool              `json:"customer_key_required"`
	}
	c.Must(200, "GET", "/buckets/"+bucket+"/metadata?key="+key, nil).JSON(t, &o)
	return o.Encryption, o.CustomerKeyRequired
}

type bucketEncryption struct {
	Algorithm string `json:"algorithm"`
	KMSKeyID  string `json:"kms_key_id"`
	BucketKey bool   `json:"bucket_key_enabled"`
	Source    string `json:"source"`
}

// TestBucketEncryption: a bucket's default encryption set, read back and
// removed through the console as through S3 (the same validation, the
// same errors, the same audit entries); objects uploaded through the
// console afterwards are encrypted as S3 reports them; a user who may not
// change it gets 403 from the console as from S3; a bucket created with
// an encryption has it from the start, and one whose encryption is
// refused is not created; an SSE-C object is described without its key
// only as such.
func TestBucketEncryption(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.SSE.COverHTTP = true }})
	ann, bob := onboard(t, srv, "acme")
	ann.Must(204, "POST", "/password", map[string]string{"current": "first-pass-1", "new": "ann-pass-2"})
	annS3, bobS3 := s3Key(t, srv, ann, "acme", "ann"), s3Key(t, srv, ann, "acme", "bob")
	bg := context.Background()
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "vault"})

	const path = "/buckets/vault/settings/encryption"
	if r := ann.Do("GET", path, nil); r.Status != 404 || r.Code() != "ServerSideEncryptionConfigurationNotFoundError" {
		t.Fatalf("a bucket with no default: %d %s", r.Status, r.Body)
	}
	var got bucketEncryption
	got = bucketEncryption{}
	ann.Must(200, "PUT", path, map[string]any{"algorithm": "AES256"}).JSON(t, &got)
	if got != (bucketEncryption{Algorithm: "AES256", Source: "bucket"}) {
		t.Fatalf("PUT AES256 answers %+v", got)
	}
	got = bucketEncryption{}
	ann.Must(200, "GET", path, nil).JSON(t, &got)
	if got.Algorithm != "AES256" || got.Source != "bucket" {
		t.Fatalf("read back: %+v", got)
	}
	// S3 reads what the console set.
	if out, err := annS3.GetBucketEncryption(bg, &s3.GetBucketEncryptionInput{Bucket: aws.String("vault")}); err != nil ||
		out.ServerSideEncryptionConfiguration.Rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAes256 {
		t.Fatalf("GetBucketEncryption after the console set AES256: %v %+v", err, out)
	}

	// An object uploaded through the console is encrypted, as S3's HEAD
	// and the console's own metadata report.
	ann.Must(200, "PUT", "/buckets/vault/object?key=a.txt", []byte("secret bytes"), "Content-Type", "text/plain")
	head, err := annS3.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String("vault"), Key: aws.String("a.txt")})
	if err != nil || head.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		t.Fatalf("HEAD of an object uploaded through the console: %v %q", err, head.ServerSideEncryption)
	}
	if enc, _ := encryptionOf(t, ann, "vault", "a.txt"); enc == nil || enc.Kind != "AES256" || enc.KMSKeyID != "" {
		t.Fatalf("the console's metadata of an SSE-S3 object: %+v", enc)
	}
	if r := ann.Must(200, "GET", "/buckets/vault/object?key=a.txt", nil); string(r.Body) != "secret bytes" {
		t.Fatalf("download of an SSE-S3 object: %q", r.Body)
	}

	// SSE-KMS with one of the tenant's keys, as the console lists them.
	var key struct {
		ID    string `json:"id"`
		Alias string `json:"alias"`
	}
	if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(bg, "POST", "/tenants/acme/kms-keys",
		map[string]string{"alias": "ledger"}, &key); err != nil {
		t.Fatal(err)
	}
	if r := ann.Must(200, "GET", "/tenants/acme/kms-keys", nil); !strings.Contains(string(r.Body), key.ID) || !strings.Contains(string(r.Body), `"ledger"`) {
		t.Fatalf("the tenant's keys: %s", r.Body)
	}
	if r := bob.Do("GET", "/tenants/acme/kms-keys", nil); r.Status != 403 {
		t.Errorf("a user lists the tenant's keys: %d %s", r.Status, r.Body)
	}
	got = bucketEncryption{}
	ann.Must(200, "PUT", path, map[string]any{"algorithm": "aws:kms", "kms_key_id": key.ID, "bucket_key_enabled": true}).JSON(t, &got)
	if got.Algorithm != "aws:kms" || got.KMSKeyID != key.ID || !got.BucketKey {
		t.Fatalf("PUT aws:kms: %+v", got)
	}
	ann.Must(200, "PUT", "/buckets/vault/object?key=b.txt", []byte("ledger bytes"))
	head, err = annS3.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String("vault"), Key: aws.String("b.txt")})
	if err != nil || head.ServerSideEncryption != types.ServerSideEncryptionAwsKms || !strings.HasSuffix(aws.ToString(head.SSEKMSKeyId), "key/"+key.ID) {
		t.Fatalf("HEAD of an SSE-KMS object: %v %q %q", err, head.ServerSideEncryption, aws.ToString(head.SSEKMSKeyId))
	}
	if enc, _ := encryptionOf(t, ann, "vault", "b.txt"); enc == nil || enc.Kind != "aws:kms" || enc.KMSKeyID != key.ID || enc.KMSKeyARN != aws.ToString(head.SSEKMSKeyId) {
		t.Fatalf("the console's metadata of an SSE-KMS object: %+v, S3 says %q", enc, aws.ToString(head.SSEKMSKeyId))
	}
	// S3's XML document is taken too.
	xml := `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`
	got = bucketEncryption{}
	ann.Must(200, "PUT", path, []byte(xml), "Content-Type", "application/xml").JSON(t, &got)
	if got.Algorithm != "AES256" || got.KMSKeyID != "" {
		t.Fatalf("PUT of S3's XML: %+v", got)
	}

	// The service's validation, and S3's errors.
	for _, bad := range []struct {
		body   map[string]any
		status int
		code   string
	}{
		{map[string]any{"algorithm": "rot13"}, 400, "InvalidArgument"},
		{map[string]any{}, 400, "InvalidArgument"},
		{map[string]any{"algorithm": "AES256", "kms_key_id": key.ID}, 400, "InvalidArgument"},
		{map[string]any{"algorithm": "aws:kms:dsse"}, 501, "NotImplemented"},
	} {
		if r := ann.Do("PUT", path, bad.body); r.Status != bad.status || r.Code() != bad.code {
			t.Errorf("PUT %v: %d %s, want %d %s", bad.body, r.Status, r.Body, bad.status, bad.code)
		}
	}

	// A user who may not change the bucket's settings (bob owns no
	// bucket and is no admin): 403 from the console, as from S3.
	for _, m := range []string{"PUT", "DELETE", "GET"} {
		if r := bob.Do(m, path, map[string]any{"algorithm": "aws:kms"}); r.Status != 403 || r.Code() != "AccessDenied" {
			t.Errorf("bob %s the encryption through the console: %d %s", m, r.Status, r.Body)
		}
	}
	// A bucket bob owns whose policy (set by the tenant admin) denies him
	// s3:ListBucket is listed to him without its settings.
	bob.Must(201, "POST", "/buckets", map[string]any{"name": "bobs", "versioning": true})
	ann.Must(200, "PUT", "/buckets/bobs/settings/policy", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny",
		"Principal":{"AWS":"arn:aws:iam::acme:user/bob"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::bobs"}]}`))
	var listed struct {
		Buckets []struct {
			Name       string `json:"name"`
			Versioning string `json:"versioning"`
			Hidden     bool   `json:"settings_hidden"`
		} `json:"buckets"`
	}
	bob.Must(200, "GET", "/buckets", nil).JSON(t, &listed)
	if len(listed.Buckets) != 1 || listed.Buckets[0].Name != "bobs" || !listed.Buckets[0].Hidden || listed.Buckets[0].Versioning != "" {
		t.Errorf("bob's bucket list: %+v", listed)
	}
	_, err = bobS3.PutBucketEncryption(bg, &s3.PutBucketEncryptionInput{Bucket: aws.String("vault"),
		ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{
			{ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAwsKms}}}}})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "AccessDenied" {
		t.Errorf("bob's PutBucketEncryption through S3: %v, want AccessDenied", err)
	}
	got = bucketEncryption{}
	ann.Must(200, "GET", path, nil).JSON(t, &got)
	if got.Algorithm != "AES256" {
		t.Fatalf("the rule after bob's refused changes: %+v", got)
	}

	// DELETE removes the bucket's own; the tenant's default then shows,
	// as its.
	ann.Must(204, "DELETE", path, nil)
	if r := ann.Do("GET", path, nil); r.Status != 404 {
		t.Fatalf("after DELETE: %d %s", r.Status, r.Body)
	}
	root(t, srv).Must(200, "PUT", "/tenants/acme/encryption", map[string]string{"default": "sse-kms", "kms_key": key.ID})
	got = bucketEncryption{}
	ann.Must(200, "GET", path, nil).JSON(t, &got)
	if got != (bucketEncryption{Algorithm: "aws:kms", KMSKeyID: key.ID, Source: "default"}) {
		t.Fatalf("a bucket under its tenant's default: %+v", got)
	}
	root(t, srv).Must(200, "PUT", "/tenants/acme/encryption", map[string]string{"default": "none"})

	// Changes through the console are in the audit log as through S3,
	// refused ones too.
	auditHas(t, srv, "S3 s3:PutBucketEncryption AccessDenied bob", "s3:PutBucketEncryption bucket/vault ok ann",
		"s3:PutBucketEncryption bucket/vault AccessDenied bob",
		"s3:DeleteBucketEncryption bucket/vault ok ann", "s3:DeleteBucketEncryption bucket/vault AccessDenied bob")

	// Created with an encryption: there from the first object on.
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "sealed", "versioning": true, "encryption": map[string]any{"algorithm": "AES256"}})
	got = bucketEncryption{}
	ann.Must(200, "GET", "/buckets/sealed/settings/encryption", nil).JSON(t, &got)
	if got.Algorithm != "AES256" || got.Source != "bucket" {
		t.Fatalf("a bucket created with AES256: %+v", got)
	}
	auditHas(t, srv, "s3:PutBucketEncryption bucket/sealed ok ann")
	ann.Must(200, "PUT", "/buckets/sealed/object?key=first", []byte("first"))
	if enc, _ := encryptionOf(t, ann, "sealed", "first"); enc == nil || enc.Kind != "AES256" {
		t.Fatalf("the first object of a bucket created with AES256: %+v", enc)
	}
	// An encryption refused: no bucket is left behind without it.
	for _, bad := range []struct {
		enc    map[string]any
		status int
	}{{map[string]any{"algorithm": "aws:kms:dsse"}, 501}, {map[string]any{"algorithm": "none"}, 400}} {
		if r := ann.Do("POST", "/buckets", map[string]any{"name": "half", "encryption": bad.enc}); r.Status != bad.status {
			t.Errorf("create with %v: %d %s, want %d", bad.enc, r.Status, r.Body, bad.status)
		}
		if r := ann.Do("GET", "/buckets/half", nil); r.Status != 404 {
			t.Fatalf("create with %v refused, and the bucket is there: %d %s", bad.enc, r.Status, r.Body)
		}
	}

	// SSE-C: no preview, no download, no metadata without the key; the
	// console says it is SSE-C rather than failing.
	ckey := make([]byte, 32)
	rand.Read(ckey)
	sum := md5.Sum(ckey)
	if _, err := annS3.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String("vault"), Key: aws.String("c.bin"), Body: strings.NewReader("customer's"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(base64.StdEncoding.EncodeToString(ckey)),
		SSECustomerKeyMD5: aws.String(base64.StdEncoding.EncodeToString(sum[:]))}); err != nil {
		t.Fatal(err)
	}
	if enc, needKey := encryptionOf(t, ann, "vault", "c.bin"); enc == nil || enc.Kind != "SSE-C" || !needKey {
		t.Fatalf("the console's metadata of an SSE-C object: %+v, key required %v", enc, needKey)
	}
	if r := ann.Do("GET", "/buckets/vault/object?key=c.bin", nil); r.Status != 400 || r.Code() != "InvalidRequest" {
		t.Fatalf("download of an SSE-C object without its key: %d %s", r.Status, r.Body)
	}
	// Who may not read the object learns nothing of it.
	if r := bob.Do("GET", "/buckets/vault/metadata?key=c.bin", nil); r.Status != 403 {
		t.Fatalf("bob reads an SSE-C object's metadata: %d %s", r.Status, r.Body)
	}
	// A plain object says none.
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "plain"})
	ann.Must(200, "PUT", "/buckets/plain/object?key=p", []byte("p"))
	if enc, needKey := encryptionOf(t, ann, "plain", "p"); enc != nil || needKey {
		t.Fatalf("the console's metadata of a plain object: %+v %v", enc, needKey)
	}
}

// TestTenantEncryption: the provider sets a tenant's default encryption
// through the console, which the tenant's detail shows and new objects of
// its buckets take; a tenant admin cannot set it (403, audited as such);
// "none" removes it.
func TestTenantEncryption(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ann := tenantAdmin(t, srv)
	annS3 := s3Key(t, srv, ann, "acme", "ann")
	rc := root(t, srv)
	type tenant struct {
		Encryption *struct {
			Default string `json:"default"`
			KMSKey  string `json:"kms_key"`
		} `json:"encryption"`
	}
	var tn tenant
	tn = tenant{}
	rc.Must(200, "GET", "/tenants/acme", nil).JSON(t, &tn)
	if tn.Encryption != nil {
		t.Fatalf("a new tenant's default: %+v", tn.Encryption)
	}
	tn = tenant{}
	rc.Must(200, "PUT", "/tenants/acme/encryption", map[string]string{"default": "sse-s3"}).JSON(t, &tn)
	if tn.Encryption == nil || tn.Encryption.Default != "sse-s3" {
		t.Fatalf("PUT sse-s3 answers %+v", tn.Encryption)
	}
	tn = tenant{}
	rc.Must(200, "GET", "/tenants/acme", nil).JSON(t, &tn)
	if tn.Encryption == nil || tn.Encryption.Default != "sse-s3" {
		t.Fatalf("the tenant's detail after PUT sse-s3: %+v", tn.Encryption)
	}
	// It applies: a bucket of no default of its own encrypts new objects.
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "docs"})
	if got := uploadedSSE(t, ann, annS3, "docs", "x"); got != types.ServerSideEncryptionAes256 {
		t.Fatalf("an object under the tenant's sse-s3 default: %q", got)
	}
	// A tenant admin may not set its own tenant's default.
	for _, body := range []map[string]string{{"default": "none"}, {"default": "sse-kms"}} {
		if r := ann.Do("PUT", "/tenants/acme/encryption", body); r.Status != 403 || r.Code() != "AccessDenied" {
			t.Errorf("the tenant admin sets %v: %d %s", body, r.Status, r.Body)
		}
	}
	tn = tenant{}
	rc.Must(200, "GET", "/tenants/acme", nil).JSON(t, &tn)
	if tn.Encryption == nil || tn.Encryption.Default != "sse-s3" {
		t.Fatalf("the default after the tenant admin's refused changes: %+v", tn.Encryption)
	}
	// The admin service's validation.
	for _, body := range []map[string]string{{"default": "rot13"}, {"default": "sse-s3", "kms_key": "k"}} {
		if r := rc.Do("PUT", "/tenants/acme/encryption", body); r.Status != 400 || r.Code() != "InvalidArgument" {
			t.Errorf("PUT %v: %d %s", body, r.Status, r.Body)
		}
	}
	if r := rc.Do("PUT", "/tenants/nobody/encryption", map[string]string{"default": "sse-s3"}); r.Status != 404 {
		t.Errorf("another tenant's: %d %s", r.Status, r.Body)
	}
	tn = tenant{}
	rc.Must(200, "PUT", "/tenants/acme/encryption", map[string]string{"default": "none"}).JSON(t, &tn)
	if tn.Encryption != nil {
		t.Fatalf("after none: %+v", tn.Encryption)
	}
	if got := uploadedSSE(t, ann, annS3, "docs", "y"); got != "" {
		t.Fatalf("an object after the default was removed: %q", got)
	}
	auditHas(t, srv, "admin:SetTenantEncryption tenants/acme/encryption ok root", "admin:SetTenantEncryption tenants/acme/encryption AccessDenied ann")
}

// TestProviderEncryption: the provider sets the provider-wide default
// through the console, and a new object in a bucket of a tenant with no
// default of its own is encrypted by it; a tenant's admin may neither read
// nor set it (403, as from the admin API); the calls are audited; none
// removes it.
func TestProviderEncryption(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ann := tenantAdmin(t, srv)
	annS3 := s3Key(t, srv, ann, "acme", "ann")
	rc := root(t, srv)
	// providerDefault calls /encryption as the provider and returns the
	// default it answers.
	providerDefault := func(method string, body any) string {
		t.Helper()
		var got admin.TenantEncryption
		rc.Must(200, method, "/encryption", body).JSON(t, &got)
		return got.Default
	}
	if d := providerDefault("GET", nil); d != "none" {
		t.Fatalf("a new provider's default: %q", d)
	}
	if d := providerDefault("PUT", map[string]string{"default": "sse-s3"}); d != "sse-s3" {
		t.Fatalf("PUT sse-s3 answers %q", d)
	}
	if d := providerDefault("GET", nil); d != "sse-s3" {
		t.Fatalf("read back after PUT sse-s3: %q", d)
	}
	// It applies to a tenant and a bucket with no default of their own.
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "docs"})
	if got := uploadedSSE(t, ann, annS3, "docs", "x"); got != types.ServerSideEncryptionAes256 {
		t.Fatalf("an object under the provider-wide sse-s3 default: %q", got)
	}
	// A tenant admin may neither read nor set it.
	if r := ann.Do("GET", "/encryption", nil); r.Status != 403 || r.Code() != "AccessDenied" {
		t.Errorf("the tenant admin reads the provider's default: %d %s", r.Status, r.Body)
	}
	if r := ann.Do("PUT", "/encryption", map[string]string{"default": "none"}); r.Status != 403 || r.Code() != "AccessDenied" {
		t.Errorf("the tenant admin sets the provider's default: %d %s", r.Status, r.Body)
	}
	// The admin service's validation: a provider-wide default names no key.
	for _, body := range []map[string]string{{"default": "rot13"}, {"default": "sse-kms", "kms_key": "k"}} {
		if r := rc.Do("PUT", "/encryption", body); r.Status != 400 || r.Code() != "InvalidArgument" {
			t.Errorf("PUT %v: %d %s", body, r.Status, r.Body)
		}
	}
	if d := providerDefault("GET", nil); d != "sse-s3" {
		t.Fatalf("the default after refused changes: %q", d)
	}
	if d := providerDefault("PUT", map[string]string{"default": "none"}); d != "none" {
		t.Fatalf("PUT none answers %q", d)
	}
	if got := uploadedSSE(t, ann, annS3, "docs", "y"); got != "" {
		t.Fatalf("an object after the default was removed: %q", got)
	}
	auditHas(t, srv, "admin:SetProviderEncryption encryption ok root", "admin:SetProviderEncryption encryption AccessDenied ann")
}

// uploadedSSE uploads key through the console session c and returns the
// encryption S3 reports for it.
func uploadedSSE(t *testing.T, c *consoletest.Client, s3c *s3.Client, bucket, key string) types.ServerSideEncryption {
	t.Helper()
	c.Must(200, "PUT", "/buckets/"+bucket+"/object?key="+key, []byte(key))
	head, err := s3c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("HEAD %s/%s: %v", bucket, key, err)
	}
	return head.ServerSideEncryption
}

// auditHas fails t unless the audit log holds each entry of want:
// "action target outcome user", or "S3 action outcome user" for one
// signed with an access key (through S3, not the console).
func auditHas(t *testing.T, srv *nodetest.Server, want ...string) {
	t.Helper()
	var page admin.AuditPage
	if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(context.Background(), "GET", "/audit?limit=1000", nil, &page); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Target+" "+e.Outcome+" "+e.User] = true
		if e.AccessKey != "" {
			seen["S3 "+e.Action+" "+e.Outcome+" "+e.User] = true
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("audit log lacks %q: %v", w, seen)
		}
	}
}
