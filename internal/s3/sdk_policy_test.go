package s3_test

import (
	"context"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func putPolicy(t *testing.T, c *s3.Client, bucket, doc string) error {
	t.Helper()
	_, err := c.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: &bucket, Policy: &doc})
	return err
}

// A bucket policy grants another tenant and anonymous callers what it
// says, its explicit deny beats even the owner, and only those who manage
// the bucket may read or change it.
func TestBucketPolicyGrantsAndDenies(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, carl, anon := ten.clients["bob"], ten.clients["carl"], ten.clients["anonymous"]

	_, err := bob.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("acme-bob")})
	wantCode(t, err, "NoSuchBucketPolicy")
	wantCode(t, putPolicy(t, bob, "acme-bob", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::other/*"}]}`), "MalformedPolicy")
	wantCode(t, putPolicy(t, bob, "acme-bob", `not json`), "MalformedPolicy")
	wantCode(t, putPolicy(t, carl, "acme-bob", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`), "AccessDenied")

	// beta may read acme-bob's objects; everyone may read under public/.
	doc := `{"Version":"2012-10-17","Statement":[
		{"Sid":"beta-reads","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":["s3:GetObject","s3:ListBucket"],
		 "Resource":["arn:aws:s3:::acme-bob","arn:aws:s3:::acme-bob/*"]},
		{"Sid":"public","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-bob/public/*"},
		{"Sid":"keep","Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::acme-bob/k"}]}`
	// New buckets block public policies, as on AWS, until the owner lifts
	// the block.
	wantCode(t, putPolicy(t, bob, "acme-bob", doc), "AccessDenied")
	if _, err := bob.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: aws.String("acme-bob")}); err != nil {
		t.Fatal(err)
	}
	if err := putPolicy(t, bob, "acme-bob", doc); err != nil {
		t.Fatal(err)
	}
	got, err := bob.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("acme-bob")})
	if err != nil || *got.Policy != doc {
		t.Fatalf("GetBucketPolicy = %v, %v", got, err)
	}
	st, err := bob.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: aws.String("acme-bob")})
	if err != nil || !*st.PolicyStatus.IsPublic {
		t.Fatalf("policy status: %+v, %v", st, err)
	}
	_, err = carl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("acme-bob")})
	wantCode(t, err, "AccessDenied")

	put(t, bob, "acme-bob", "public/hello", []byte("hello"))
	if string(get(t, carl, "acme-bob", "k")) != "data of acme-bob" {
		t.Fatal("beta cannot read what the policy grants it")
	}
	if _, err := carl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("acme-bob")}); err != nil {
		t.Fatalf("beta lists: %v", err)
	}
	wantCode(t, opGroups[2].do(carl, "acme-bob", "carl"), "AccessDenied") // no write granted
	out, err := anon.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("public/hello")})
	if err != nil {
		t.Fatalf("anonymous read of public/: %v", err)
	}
	b, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(b) != "hello" {
		t.Fatalf("anonymous read %q", b)
	}
	wantCode(t, opGroups[1].do(anon, "acme-bob", "anonymous"), "AccessDenied") // "k" is not under public/
	// Explicit deny wins over ownership, and over the tenant admin.
	for _, who := range []string{"bob", "ann"} {
		_, err = ten.clients[who].DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("k")})
		wantCode(t, err, "AccessDenied")
	}
	// A condition on the transport: these clients use TLS.
	if err := putPolicy(t, bob, "acme-bob", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-bob/*",
		"Condition":{"Bool":{"aws:SecureTransport":"true"}}}]}`); err != nil {
		t.Fatal(err)
	}
	wantCode(t, opGroups[1].do(bob, "acme-bob", "bob"), "AccessDenied")
	if _, err := bob.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String("acme-bob")}); err != nil {
		t.Fatal(err)
	}
	if err := opGroups[1].do(bob, "acme-bob", "bob"); err != nil {
		t.Fatalf("after DeleteBucketPolicy: %v", err)
	}
	wantCode(t, opGroups[1].do(carl, "acme-bob", "carl"), "AccessDenied")
}
