package iamapi_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// errCode is an SDK error's code; "" for none.
func errCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// Privilege escalation through IAM: a member given one IAM permission
// gets that and nothing more. Allowed iam:CreatePolicyVersion on one
// policy, bob rewrites that policy (attached to nobody) but not the
// one attached to him, nor sets a default version, nor attaches either
// to himself. Allowed iam:AttachUserPolicy on himself under a condition
// on iam:PolicyARN (AWS's key, the policy attached), he attaches that
// policy to himself and no other, to nobody else. He does not add
// himself to a group not named, nor change the group he may join.
func TestEscalationPaths(t *testing.T) {
	e := setup(t)
	policy := func(name, doc string) *string {
		t.Helper()
		p, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String(name), PolicyDocument: aws.String(doc)})
		must(t, err)
		return p.Policy.Arn
	}
	loose := policy("loose", readDoc) // attached to nobody
	mine := policy("mine", readDoc)   // attached to bob
	admins := policy("admins", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	_, err := e.ann.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: mine})
	must(t, err)
	for _, g := range []string{"admins", "devs"} {
		_, err = e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String(g)})
		must(t, err)
	}
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("admins"), PolicyArn: admins})
	must(t, err)
	grant := func(doc string) {
		t.Helper()
		_, err := e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("grant"), PolicyDocument: aws.String(doc)})
		must(t, err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if errCode(err) != "AccessDenied" {
			t.Errorf("%s: %v, want AccessDenied", what, err)
		}
	}
	wide := aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)

	grant(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:CreatePolicyVersion","Resource":"` + *loose + `"}]}`)
	_, err = e.bob.CreatePolicyVersion(ctx, &awsiam.CreatePolicyVersionInput{PolicyArn: loose, PolicyDocument: wide, SetAsDefault: true})
	must(t, err)
	_, err = e.bob.CreatePolicyVersion(ctx, &awsiam.CreatePolicyVersionInput{PolicyArn: mine, PolicyDocument: wide, SetAsDefault: true})
	refused("CreatePolicyVersion of the policy attached to him", err)
	_, err = e.bob.SetDefaultPolicyVersion(ctx, &awsiam.SetDefaultPolicyVersionInput{PolicyArn: loose, VersionId: aws.String("v1")})
	refused("SetDefaultPolicyVersion without its permission", err)
	_, err = e.bob.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: loose})
	refused("AttachUserPolicy without its permission", err)
	_, err = e.bob.ListUsers(ctx, &awsiam.ListUsersInput{})
	refused("ListUsers after rewriting a policy attached to nobody", err)

	grant(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:AttachUserPolicy","Resource":"arn:aws:iam::acme:user/${aws:username}",
		"Condition":{"ArnEquals":{"iam:PolicyARN":"` + *loose + `"}}}]}`)
	_, err = e.bob.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: admins})
	refused("AttachUserPolicy of a policy iam:PolicyARN does not name", err)
	_, err = e.bob.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("ann"), PolicyArn: loose})
	refused("AttachUserPolicy to another user", err)
	_, err = e.bob.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: loose})
	refused("AttachGroupPolicy, not granted", err)
	_, err = e.bob.DetachUserPolicy(ctx, &awsiam.DetachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: mine})
	refused("DetachUserPolicy, not granted", err)
	_, err = e.bob.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: loose})
	must(t, err)
	// loose's default is his "*" now: he attached it himself, having
	// been let rewrite it; that is what the two permissions together
	// grant, on AWS as here.
	if _, err := e.bob.ListUsers(ctx, &awsiam.ListUsersInput{}); err != nil {
		t.Errorf("ListUsers by the policy he rewrote and attached: %v", err)
	}
	_, err = e.ann.DetachUserPolicy(ctx, &awsiam.DetachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: loose})
	must(t, err)

	grant(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:AddUserToGroup","iam:RemoveUserFromGroup"],"Resource":"arn:aws:iam::acme:group/devs"}]}`)
	_, err = e.bob.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("admins"), UserName: aws.String("bob")})
	refused("AddUserToGroup to a group not named", err)
	_, err = e.bob.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("bob")})
	must(t, err)
	_, err = e.bob.PutGroupPolicy(ctx, &awsiam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("x"), PolicyDocument: wide})
	refused("PutGroupPolicy on his group", err)
	_, err = e.bob.ListUsers(ctx, &awsiam.ListUsersInput{})
	refused("ListUsers as a member of devs", err)
}

// A change made through one node reaches another sharing the catalog
// at once (at the next poll of the identity generation, or as it
// commits with PostgreSQL's notifications): a Deny put on a user, a
// user removed from the group that granted it, a managed policy
// detached from the group, the user disabled and its key deleted. S3
// and IAM on the other node refuse within a few seconds (asserted
// generously: the machine is shared; the test logs how long each took).
func TestRevocationReachesPeer(t *testing.T) {
	e := setup(t)
	peer := nodetest.StartPeer(t, e.srv, nodetest.Options{})
	annS3 := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.srv.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(e.annKey.AccessKey, e.annKey.SecretKey, "")})
	_, err := annS3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("data")})
	must(t, err)
	_, err = annS3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("k"), Body: bytes.NewReader([]byte("v"))})
	must(t, err)
	p, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("readers"), PolicyDocument: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","iam:ListUsers"],"Resource":["arn:aws:s3:::data/*","arn:aws:iam::acme:user/*"]}]}`)})
	must(t, err)
	_, err = e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("readers")})
	must(t, err)
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("readers"), PolicyArn: p.Policy.Arn})
	must(t, err)
	join := func() {
		t.Helper()
		_, err := e.ann.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("readers"), UserName: aws.String("bob")})
		must(t, err)
	}
	join()

	bobS3 := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(peer.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(e.bobKey.AccessKey, e.bobKey.SecretKey, "")})
	bobIAM := iamClient(peer, e.bobKey.AccessKey, e.bobKey.SecretKey)
	s3Code := func() string {
		out, err := bobS3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("k")})
		if err == nil {
			out.Body.Close()
		}
		return errCode(err)
	}
	iamCode := func() string { _, err := bobIAM.ListUsers(ctx, &awsiam.ListUsersInput{}); return errCode(err) }
	// until waits for the peer to answer want to both, and logs how long
	// that took after the change.
	until := func(what, wantS3, wantIAM string) {
		t.Helper()
		start := time.Now()
		for s, i := s3Code(), iamCode(); s != wantS3 || i != wantIAM; s, i = s3Code(), iamCode() {
			if time.Since(start) > 15*time.Second {
				t.Fatalf("%s: the peer answers S3 %q and IAM %q 15 s later, want %q and %q", what, s, i, wantS3, wantIAM)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("%s: the peer follows in %v", what, time.Since(start).Round(time.Millisecond))
	}
	until("bob joins readers", "", "")

	deny := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":["s3:GetObject","iam:ListUsers"],"Resource":"*"}]}`
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("deny"), PolicyDocument: aws.String(deny)})
	must(t, err)
	until("a Deny put on bob", "AccessDenied", "AccessDenied")
	_, err = e.ann.DeleteUserPolicy(ctx, &awsiam.DeleteUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("deny")})
	must(t, err)
	until("the Deny deleted", "", "")

	_, err = e.ann.RemoveUserFromGroup(ctx, &awsiam.RemoveUserFromGroupInput{GroupName: aws.String("readers"), UserName: aws.String("bob")})
	must(t, err)
	until("bob removed from readers", "AccessDenied", "AccessDenied")
	join()
	until("bob back in readers", "", "")

	_, err = e.ann.DetachGroupPolicy(ctx, &awsiam.DetachGroupPolicyInput{GroupName: aws.String("readers"), PolicyArn: p.Policy.Arn})
	must(t, err)
	until("the group's policy detached", "AccessDenied", "AccessDenied")
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("readers"), PolicyArn: p.Policy.Arn})
	must(t, err)
	until("the group's policy attached again", "", "")

	// A new default version of the policy that no longer grants.
	_, err = e.ann.CreatePolicyVersion(ctx, &awsiam.CreatePolicyVersionInput{PolicyArn: p.Policy.Arn, SetAsDefault: true, PolicyDocument: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::data"}]}`)})
	must(t, err)
	until("a new default version of the group's policy", "AccessDenied", "AccessDenied")
	_, err = e.ann.SetDefaultPolicyVersion(ctx, &awsiam.SetDefaultPolicyVersionInput{PolicyArn: p.Policy.Arn, VersionId: aws.String("v1")})
	must(t, err)
	until("the first version the default again", "", "")

	dirs, ok := e.srv.Node.Catalog.(interface {
		SetUserDisabled(ctx context.Context, tenant, name string, disabled bool) error
	})
	if !ok {
		t.Fatalf("catalog %T cannot disable users", e.srv.Node.Catalog)
	}
	must(t, dirs.SetUserDisabled(ctx, "acme", "bob", true))
	until("bob disabled", "InvalidAccessKeyId", "InvalidClientTokenId")
	must(t, dirs.SetUserDisabled(ctx, "acme", "bob", false))
	until("bob enabled again", "", "")

	_, err = e.ann.DeleteAccessKey(ctx, &awsiam.DeleteAccessKeyInput{UserName: aws.String("bob"), AccessKeyId: aws.String(e.bobKey.AccessKey)})
	must(t, err)
	until("bob's key deleted", "InvalidAccessKeyId", "InvalidClientTokenId")
}
