package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/catalog"
)

// homePolicy holds a user to its own prefix of a shared bucket, as
// AWS's example of a home folder per user does: list only under it,
// read, write and delete only in it, and only over TLS.
const homePolicy = `{"Version":"2012-10-17","Statement":[
  {"Sid":"ListHome","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::acme-shared",
   "Condition":{"StringLike":{"s3:prefix":["${aws:username}/","${aws:username}/*"]}}},
  {"Sid":"Home","Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],
   "Resource":"arn:aws:s3:::acme-shared/${aws:username}/*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}]}`

// An identity-based policy attached to a member (through the test
// stand-in for the catalog's IAM tables) gives it a prefix of a bucket
// it does not own, and nothing else there, over real HTTP with the SDK;
// a Deny takes from what its role gives it; another tenant's user with
// the same policy gets nothing without the bucket's own grant; and the
// policy's removal is seen without a restart.
func TestIdentityPolicyNarrowsMemberToPrefix(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	src := inlinePolicies{ten.srv.Node.Catalog.(catalog.IAM)}
	ann, bob, cy, carl := ten.clients["ann"], ten.clients["bob"], ten.clients["cy"], ten.clients["carl"]
	const bucket = "acme-shared"
	if _, err := ann.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"bob/a", "cy/a", "top"} {
		put(t, ann, bucket, k, []byte("data of "+k))
	}
	getErr := func(c *s3.Client, key string) error {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err == nil {
			out.Body.Close()
		}
		return err
	}
	putErr := func(c *s3.Client, key string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte("x"))})
		return err
	}
	listErr := func(c *s3.Client, prefix string) error {
		in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket)}
		if prefix != "" {
			in.Prefix = aws.String(prefix)
		}
		_, err := c.ListObjectsV2(ctx, in)
		return err
	}
	wantCode(t, getErr(bob, "bob/a"), "AccessDenied") // before any policy

	if err := src.SetUserPolicies(ctx, "acme", "bob", homePolicy); err != nil {
		t.Fatal(err)
	}
	if err := src.SetUserPolicies(ctx, "beta", "carl", strings.ReplaceAll(homePolicy, "${aws:username}", "carl")); err != nil {
		t.Fatal(err)
	}
	// Through the catalog alone, as another node would change it: the
	// identity generation carries it to this node's cached key.
	eventually(t, "bob's policy reaches the node", func() bool { return getErr(bob, "bob/a") == nil })

	if got := string(get(t, bob, bucket, "bob/a")); got != "data of bob/a" {
		t.Fatalf("bob reads bob/a: %q", got)
	}
	if err := putErr(bob, "bob/new"); err != nil {
		t.Fatalf("bob writes in his prefix: %v", err)
	}
	if err := listErr(bob, "bob/"); err != nil {
		t.Fatalf("bob lists his prefix: %v", err)
	}
	wantCode(t, getErr(bob, "cy/a"), "AccessDenied")
	wantCode(t, getErr(bob, "top"), "AccessDenied")
	wantCode(t, putErr(bob, "cy/b"), "AccessDenied")
	wantCode(t, listErr(bob, ""), "AccessDenied")
	wantCode(t, listErr(bob, "cy/"), "AccessDenied")
	_, err := bob.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::acme-shared/*"}]}`)})
	wantCode(t, err, "AccessDenied")

	// A multipart upload is PutObject on its key.
	mp, err := bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("bob/big")})
	if err != nil {
		t.Fatalf("bob starts an upload in his prefix: %v", err)
	}
	part, err := bob.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("bob/big"), UploadId: mp.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("part"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("bob/big"), UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag, ChecksumCRC32: part.ChecksumCRC32}}}}); err != nil {
		t.Fatalf("bob completes his upload: %v", err)
	}
	_, err = bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("cy/big")})
	wantCode(t, err, "AccessDenied")

	// A batch delete is decided key by key.
	del, err := bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("bob/new")}, {Key: aws.String("cy/a")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(del.Deleted) != 1 || *del.Deleted[0].Key != "bob/new" || len(del.Errors) != 1 || *del.Errors[0].Key != "cy/a" || *del.Errors[0].Code != "AccessDenied" {
		t.Fatalf("bob's batch delete: deleted %+v, errors %+v", del.Deleted, del.Errors)
	}
	if got := string(get(t, ann, bucket, "cy/a")); got != "data of cy/a" {
		t.Fatalf("cy/a after bob's batch: %q", got)
	}

	// The policy is bob's alone; and across tenants the bucket must
	// grant too, which acme's does not.
	wantCode(t, getErr(cy, "cy/a"), "AccessDenied")
	wantCode(t, getErr(carl, "carl/x"), "AccessDenied")
	wantCode(t, putErr(carl, "carl/x"), "AccessDenied")

	// A Deny narrows what bob's role gives him: his own bucket.
	if err := opGroups[3].do(bob, "acme-bob", "bob"); err != nil { // DeleteObject
		t.Fatalf("bob deletes in his own bucket: %v", err)
	}
	if err := src.SetUserPolicies(ctx, "acme", "bob", homePolicy,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::acme-bob/*"},
		  {"Effect":"Deny","Action":"s3:CreateBucket","NotResource":"arn:aws:s3:::${aws:username}-*"}]}`); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Deny reaches the node", func() bool { return apiCode(opGroups[3].do(bob, "acme-bob", "bob")) == "AccessDenied" })
	if err := opGroups[1].do(bob, "acme-bob", "bob"); err != nil { // GetObject
		t.Fatalf("bob reads his own bucket under a Deny of deletes: %v", err)
	}
	// CreateBucket's resource is the new bucket: bob may create only
	// buckets named after him.
	if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bob-logs")}); err != nil {
		t.Fatalf("bob creates bob-logs: %v", err)
	}
	_, err = bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("payroll")})
	wantCode(t, err, "AccessDenied")

	// Detached: bob is back to his role's rights, on every node at once.
	if err := src.SetUserPolicies(ctx, "acme", "bob"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the detachment reaches the node", func() bool { return apiCode(getErr(bob, "bob/a")) == "AccessDenied" })
	if err := opGroups[3].do(bob, "acme-bob", "bob"); err != nil {
		t.Fatalf("bob deletes in his own bucket once the Deny is gone: %v", err)
	}
}

// inlinePolicies sets users' inline policies in the catalog, as an IAM
// call through another node would.
type inlinePolicies struct{ c catalog.IAM }

// SetUserPolicies makes docs the user's inline policies, and only them.
func (p inlinePolicies) SetUserPolicies(ctx context.Context, tenant, user string, docs ...string) error {
	names, err := p.c.ListInlinePolicies(ctx, tenant, catalog.PrincipalUser, user)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := p.c.DeleteInlinePolicy(ctx, tenant, catalog.PrincipalUser, user, n); err != nil {
			return err
		}
	}
	for i, d := range docs {
		if err := p.c.PutInlinePolicy(ctx, tenant, catalog.PrincipalUser, user, fmt.Sprintf("p%d", i), d); err != nil {
			return err
		}
	}
	return nil
}
