package iamapi_test

import (
	"bytes"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Policies made through IAM decide the requests of the principals they
// are attached to, S3 and IAM calls alike, by the one evaluation: a
// group's managed policy gives a new user a prefix of the admin's bucket,
// an inline Deny takes part of it back, and iam:ListUsers granted by
// policy lets a member list the tenant's users, which its role alone
// does not.
func TestPoliciesThroughIAMDecideRequests(t *testing.T) {
	e := setup(t)
	annS3 := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.srv.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(e.annKey.AccessKey, e.annKey.SecretKey, "")})
	_, err := annS3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("data")})
	must(t, err)
	for _, k := range []string{"cy/a", "cy/secret/b", "other/c"} {
		_, err := annS3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String(k), Body: bytes.NewReader([]byte(k))})
		must(t, err)
	}

	_, err = e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("cy")})
	must(t, err)
	k, err := e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cy")})
	must(t, err)
	cyS3 := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.srv.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(*k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey, "")})
	cyIAM := iamClient(e.srv, *k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey)
	get := func(key string) error {
		out, err := cyS3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String(key)})
		if err == nil {
			out.Body.Close()
		}
		return err
	}
	wantErr(t, get("cy/a"), "AccessDenied", 403)

	// A managed policy on a group cy joins.
	_, err = e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("readers")})
	must(t, err)
	home := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/${aws:username}/*"}]}`
	p, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("home"), PolicyDocument: aws.String(home)})
	must(t, err)
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("readers"), PolicyArn: p.Policy.Arn})
	must(t, err)
	_, err = e.ann.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("readers"), UserName: aws.String("cy")})
	must(t, err)
	must(t, get("cy/a"))
	must(t, get("cy/secret/b"))
	wantErr(t, get("other/c"), "AccessDenied", 403)

	// An inline Deny wins over the group's Allow.
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("cy"), PolicyName: aws.String("no-secrets"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::data/*/secret/*"}]}`)})
	must(t, err)
	wantErr(t, get("cy/secret/b"), "AccessDenied", 403)
	must(t, get("cy/a"))

	// IAM calls are decided the same way.
	_, err = cyIAM.ListUsers(ctx, &awsiam.ListUsersInput{})
	wantErr(t, err, "AccessDenied", 403)
	if _, err := cyIAM.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("cy")}); err != nil {
		t.Fatalf("a member reads itself: %v", err)
	}
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("cy"), PolicyName: aws.String("list"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`)})
	must(t, err)
	users, err := cyIAM.ListUsers(ctx, &awsiam.ListUsersInput{})
	must(t, err)
	if len(users.Users) < 3 {
		t.Fatalf("users listed by cy: %d", len(users.Users))
	}
	_, err = cyIAM.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("eve")})
	wantErr(t, err, "AccessDenied", 403)

	// Out of the group: the prefix is gone, at once.
	_, err = e.ann.RemoveUserFromGroup(ctx, &awsiam.RemoveUserFromGroupInput{GroupName: aws.String("readers"), UserName: aws.String("cy")})
	must(t, err)
	wantErr(t, get("cy/a"), "AccessDenied", 403)
}
