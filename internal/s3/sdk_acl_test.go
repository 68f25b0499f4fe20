package s3_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
)

// A new bucket is as AWS makes one since 2023: ACLs disabled
// (BucketOwnerEnforced), all public access blocked, the owner's ACL only;
// setting any other ACL fails with AccessControlListNotSupported.
func TestNewBucketDisablesACLs(t *testing.T) {
	ten := newTenancy(t)
	ctx, bob, b := context.Background(), ten.clients["bob"], aws.String("acme-bob")

	oc, err := bob.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: b})
	if err != nil || len(oc.OwnershipControls.Rules) != 1 || oc.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipBucketOwnerEnforced {
		t.Fatalf("ownership controls: %+v, %v", oc, err)
	}
	pab, err := bob.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	if c := pab.PublicAccessBlockConfiguration; !*c.BlockPublicAcls || !*c.IgnorePublicAcls || !*c.BlockPublicPolicy || !*c.RestrictPublicBuckets {
		t.Fatalf("public access block: %+v", c)
	}
	acl, err := bob.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	bobID := ten.canonicalID(t, "acme", "bob")
	if len(acl.Grants) != 1 || *acl.Grants[0].Grantee.ID != bobID || acl.Grants[0].Permission != types.PermissionFullControl ||
		*acl.Owner.ID != bobID {
		t.Fatalf("bucket ACL: %+v", acl)
	}
	_, err = bob.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead})
	wantCode(t, err, "AccessControlListNotSupported")
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("p"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, err, "AccessControlListNotSupported")
	// bucket-owner-full-control (and its equivalents) is still accepted.
	if _, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("p"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLBucketOwnerFullControl}); err != nil {
		t.Fatal(err)
	}
	_, err = bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-public"), ACL: types.BucketCannedACLPublicRead})
	wantCode(t, err, "InvalidBucketAclWithObjectOwnership")
	_, err = bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-public"), ACL: types.BucketCannedACLPublicRead, ObjectOwnership: types.ObjectOwnershipObjectWriter})
	wantCode(t, err, "InvalidBucketAclWithBlockPublicAccessError")
	// ACLs do not grant while disabled, even to a named grantee.
	_, err = ten.clients["carl"].GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("p")})
	wantCode(t, err, "AccessDenied")
	// Nor can they be disabled while the bucket's ACL grants others.
	if _, err := bob.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: b, OwnershipControls: &types.OwnershipControls{
		Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}}); err != nil {
		t.Fatal(err)
	}
	carlID := ten.canonicalID(t, "beta", "carl")
	if _, err := bob.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, GrantRead: aws.String(`id="` + carlID + `"`)}); err != nil {
		t.Fatal(err)
	}
	_, err = bob.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: b, OwnershipControls: &types.OwnershipControls{
		Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced}}}})
	wantCode(t, err, "InvalidBucketAclWithObjectOwnership")
}

// With ACLs enabled, bucket and object ACLs grant exactly what they say to
// canonical ids and groups, the writer owns what it writes, and the
// public access block decides whether public grants count.
func TestACLGrants(t *testing.T) {
	ten := newTenancy(t)
	ctx, bob, carl, anon := context.Background(), ten.clients["bob"], ten.clients["carl"], ten.clients["anonymous"]
	b := aws.String("acme-bob")
	carlID, bobID := ten.canonicalID(t, "beta", "carl"), ten.canonicalID(t, "acme", "bob")
	if _, err := bob.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: b, OwnershipControls: &types.OwnershipControls{
		Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}}); err != nil {
		t.Fatal(err)
	}
	// READ on the bucket lists, but reads no object.
	if _, err := bob.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, GrantRead: aws.String(`id="` + carlID + `"`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := carl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b}); err != nil {
		t.Fatalf("carl lists with READ: %v", err)
	}
	wantCode(t, opGroups[1].do(carl, "acme-bob", "carl"), "AccessDenied")
	wantCode(t, opGroups[2].do(carl, "acme-bob", "carl"), "AccessDenied")
	// READ on one object reads that object only.
	put(t, bob, "acme-bob", "k2", []byte("two"))
	if _, err := bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k"), GrantRead: aws.String(`id="` + carlID + `"`)}); err != nil {
		t.Fatal(err)
	}
	if string(get(t, carl, "acme-bob", "k")) != "data of acme-bob" {
		t.Fatal("carl cannot read k")
	}
	_, err := carl.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("k2")})
	wantCode(t, err, "AccessDenied")
	oacl, err := bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("k")})
	if err != nil || len(oacl.Grants) != 1 || *oacl.Grants[0].Grantee.ID != carlID || oacl.Grants[0].Permission != types.PermissionRead {
		t.Fatalf("object ACL: %+v, %v", oacl, err)
	}
	// WRITE on the bucket writes; the writer owns its object.
	if _, err := bob.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, AccessControlPolicy: &types.AccessControlPolicy{
		Owner: &types.Owner{ID: &bobID},
		Grants: []types.Grant{
			{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: &bobID}, Permission: types.PermissionFullControl},
			{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: &carlID}, Permission: types.PermissionWrite},
		}}}); err != nil {
		t.Fatal(err)
	}
	put(t, carl, "acme-bob", "from-carl", []byte("c"))
	cacl, err := carl.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("from-carl")})
	if err != nil || *cacl.Owner.ID != carlID {
		t.Fatalf("carl's object ACL: %+v, %v", cacl, err)
	}
	// Public grants need the block lifted: refused under BlockPublicAcls,
	// ignored under IgnorePublicAcls.
	_, err = bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k2"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, err, "AccessDenied")
	block := func(ignore bool) {
		t.Helper()
		if _, err := bob.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: b, PublicAccessBlockConfiguration: &types.PublicAccessBlockConfiguration{
			IgnorePublicAcls: aws.Bool(ignore)}}); err != nil {
			t.Fatal(err)
		}
	}
	block(false)
	if _, err := bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k2"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if string(get(t, anon, "acme-bob", "k2")) != "two" {
		t.Fatal("anonymous cannot read a public-read object")
	}
	_, err = anon.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("k")})
	wantCode(t, err, "AccessDenied")
	block(true)
	_, err = anon.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("k2")})
	wantCode(t, err, "AccessDenied")

	// A grant by e-mail names the user with that address (any case), and
	// is stored as a grant to its canonical id, as S3 does.
	var dee admin.User
	if err := ten.admin.Do(ctx, "POST", "/tenants/beta/users", map[string]string{"name": "dee", "email": "dee@beta.test"}, &dee); err != nil {
		t.Fatal(err)
	}
	var deeKey admin.Key
	if err := ten.admin.Do(ctx, "POST", "/tenants/beta/users/dee/keys", nil, &deeKey); err != nil {
		t.Fatal(err)
	}
	deeC := client(t, ten.srv, ten.srv.URL, false, deeKey.AccessKey, deeKey.SecretKey)
	wantCode(t, opGroups[1].do(deeC, "acme-bob", "dee"), "AccessDenied")
	if _, err := bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k"), GrantRead: aws.String(`emailAddress="Dee@Beta.test"`)}); err != nil {
		t.Fatal(err)
	}
	if err := opGroups[1].do(deeC, "acme-bob", "dee"); err != nil {
		t.Fatalf("dee reads what was granted to her address: %v", err)
	}
	oacl, err = bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("k")})
	if err != nil || len(oacl.Grants) != 1 || oacl.Grants[0].Grantee.Type != types.TypeCanonicalUser || *oacl.Grants[0].Grantee.ID != dee.CanonicalID {
		t.Fatalf("object ACL after an e-mail grant: %+v, %v", oacl, err)
	}

	// Requests S3 refuses.
	_, err = bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k"), GrantRead: aws.String(`emailAddress="x@example.com"`)})
	wantCode(t, err, "UnresolvableGrantByEmailAddress")
	_, err = bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k"), ACL: types.ObjectCannedACLPrivate, GrantRead: aws.String(`id="` + carlID + `"`)})
	wantCode(t, err, "InvalidRequest")
	_, err = bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k"), GrantRead: aws.String(`uri="http://example.com/group"`)})
	wantCode(t, err, "InvalidArgument")
	_, err = bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("nope"), ACL: types.ObjectCannedACLPrivate})
	wantCode(t, err, "NoSuchKey")
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("x"), Body: strings.NewReader("x"), ACL: "no-such-acl"})
	wantCode(t, err, "InvalidArgument")
}

// The policy condition keys an operation defines: s3:x-amz-acl on writes,
// s3:prefix on listings.
func TestPolicyConditionKeys(t *testing.T) {
	ten := newTenancy(t)
	ctx, bob, carl := context.Background(), ten.clients["bob"], ten.clients["carl"]
	b := aws.String("acme-bob")
	if err := putPolicy(t, bob, "acme-bob", `{"Statement":[
		{"Effect":"Allow","Principal":{"AWS":"beta"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::acme-bob/*",
		 "Condition":{"StringEquals":{"s3:x-amz-acl":"bucket-owner-full-control"}}},
		{"Effect":"Allow","Principal":{"AWS":"beta"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::acme-bob",
		 "Condition":{"StringLike":{"s3:prefix":"shared/*"}}}]}`); err != nil {
		t.Fatal(err)
	}
	_, err := carl.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("c"), Body: strings.NewReader("x")})
	wantCode(t, err, "AccessDenied")
	if _, err := carl.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("c"), Body: strings.NewReader("x"),
		ACL: types.ObjectCannedACLBucketOwnerFullControl}); err != nil {
		t.Fatalf("PUT with the required ACL: %v", err)
	}
	_, err = carl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b})
	wantCode(t, err, "AccessDenied")
	if _, err := carl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b, Prefix: aws.String("shared/x")}); err != nil {
		t.Fatalf("listing the granted prefix: %v", err)
	}
}

// The provider's switch blocks public access to every bucket, whatever
// the bucket's owner lifts.
func TestProviderBlocksPublicAccess(t *testing.T) {
	ten := newTenancy(t, func(c *node.Config) { c.BlockPublicAccess = true })
	ctx, bob, b := context.Background(), ten.clients["bob"], aws.String("acme-bob")
	if _, err := bob.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: b, OwnershipControls: &types.OwnershipControls{
		Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b}); err != nil {
		t.Fatal(err)
	}
	_, err := bob.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
	wantCode(t, err, "NoSuchPublicAccessBlockConfiguration")
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("p"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, err, "AccessDenied")
	wantCode(t, putPolicy(t, bob, "acme-bob", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-bob/*"}]}`), "AccessDenied")
	// Grants to named tenants are not public and still work.
	if err := putPolicy(t, bob, "acme-bob", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"beta"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-bob/*"}]}`); err != nil {
		t.Fatal(err)
	}
	if string(get(t, ten.clients["carl"], "acme-bob", "k")) != "data of acme-bob" {
		t.Fatal("a named grant stopped working under the provider's block")
	}
}
