package iamapi_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// env is a node with two tenants, each with an admin (ann, zed) and
// acme with a member (bob).
type env struct {
	srv                *nodetest.Server
	ann, bob, zed      *awsiam.Client
	annKey, bobKey     admin.Key
	root               *awsiam.Client
	rootID             *iam.Identity
	annCreds, bobCreds aws.Credentials
}

func iamClient(srv *nodetest.Server, ak, sk string) *awsiam.Client {
	return awsiam.New(awsiam.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(ak, sk, ""),
		Retryer:      aws.NopRetryer{},
	})
}

func setup(t *testing.T) *env {
	t.Helper()
	srv := nodetest.Start(t, nodetest.Options{})
	e := &env{srv: srv, rootID: &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}}
	svc := srv.Node.Admin
	user := func(tenant, name, role string) admin.Key {
		_, err := svc.CreateUser(ctx, e.rootID, tenant, name, role, "")
		must(t, err)
		k, err := svc.CreateKey(ctx, e.rootID, tenant, name)
		must(t, err)
		return k
	}
	for _, tn := range []string{"acme", "beta"} {
		_, err := svc.CreateTenant(ctx, e.rootID, tn, tn, "")
		must(t, err)
	}
	e.annKey, e.bobKey = user("acme", "ann", "admin"), user("acme", "bob", "user")
	zedKey := user("beta", "zed", "admin")
	e.ann = iamClient(srv, e.annKey.AccessKey, e.annKey.SecretKey)
	e.bob = iamClient(srv, e.bobKey.AccessKey, e.bobKey.SecretKey)
	e.zed = iamClient(srv, zedKey.AccessKey, zedKey.SecretKey)
	e.root = iamClient(srv, nodetest.AccessKey, nodetest.SecretKey)
	return e
}

// wantErr checks an SDK error's code and HTTP status.
func wantErr(t *testing.T, err error, code string, status int) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) && re.HTTPStatusCode() != status {
		t.Fatalf("%s: status %d, want %d", code, re.HTTPStatusCode(), status)
	}
}

const (
	readDoc  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"}]}`
	writeDoc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject"],"Resource":"*"}]}`
	trustDoc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/bob"},"Action":"sts:AssumeRole"}]}`
)

// Users: created as the tenant's users (the catalog's own), read, listed
// with paths and pages, renamed, tagged; deleted only when emptied, as
// AWS.
func TestUsers(t *testing.T) {
	e := setup(t)
	out, err := e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("cy"), Path: aws.String("/eng/"),
		Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("data")}}})
	must(t, err)
	u := out.User
	if *u.Arn != "arn:aws:iam::acme:user/eng/cy" || *u.Path != "/eng/" || !strings.HasPrefix(*u.UserId, "AIDA") || len(*u.UserId) != 21 || u.CreateDate == nil {
		t.Fatalf("created user = %+v", u)
	}
	// It is a catalog user of the tenant, role "user".
	cu, err := e.srv.Node.Catalog.GetUser(ctx, "acme", "cy")
	if err != nil || cu.Role != "user" {
		t.Fatalf("catalog user = %+v %v", cu, err)
	}
	_, err = e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("cy")})
	wantErr(t, err, "EntityAlreadyExists", 409)
	_, err = e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("bad/name")})
	wantErr(t, err, "ValidationError", 400)
	_, err = e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String(strings.Repeat("a", 65))})
	wantErr(t, err, "ValidationError", 400)

	got, err := e.ann.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("cy")})
	must(t, err)
	if *got.User.UserId != *u.UserId || len(got.User.Tags) != 1 || *got.User.Tags[0].Value != "data" {
		t.Fatalf("get user = %+v", got.User)
	}
	_, err = e.ann.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("nobody")})
	wantErr(t, err, "NoSuchEntity", 404)
	// GetUser without a name is the caller.
	me, err := e.bob.GetUser(ctx, &awsiam.GetUserInput{})
	must(t, err)
	if *me.User.UserName != "bob" || *me.User.Arn != "arn:aws:iam::acme:user/bob" {
		t.Fatalf("bob's own user = %+v", me.User)
	}

	// Paging: five users over pages of two; a path prefix.
	for _, n := range []string{"d1", "d2"} {
		_, err := e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String(n)})
		must(t, err)
	}
	var names []string
	var pages int
	p := awsiam.NewListUsersPaginator(e.ann, &awsiam.ListUsersInput{MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		pg, err := p.NextPage(ctx)
		must(t, err)
		pages++
		for _, u := range pg.Users {
			names = append(names, *u.UserName)
		}
	}
	if want := []string{"ann", "bob", "cy", "d1", "d2"}; !slices.Equal(names, want) || pages != 3 {
		t.Fatalf("paged users = %v in %d pages, want %v in 3", names, pages, want)
	}
	eng, err := e.ann.ListUsers(ctx, &awsiam.ListUsersInput{PathPrefix: aws.String("/eng/")})
	must(t, err)
	if len(eng.Users) != 1 || *eng.Users[0].UserName != "cy" || eng.IsTruncated {
		t.Fatalf("users under /eng/ = %+v", eng.Users)
	}
	_, err = e.ann.ListUsers(ctx, &awsiam.ListUsersInput{MaxItems: aws.Int32(1001)})
	wantErr(t, err, "ValidationError", 400)

	// Tags.
	_, err = e.ann.TagUser(ctx, &awsiam.TagUserInput{UserName: aws.String("cy"), Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("prod")}}})
	must(t, err)
	_, err = e.ann.UntagUser(ctx, &awsiam.UntagUserInput{UserName: aws.String("cy"), TagKeys: []string{"team"}})
	must(t, err)
	tags, err := e.ann.ListUserTags(ctx, &awsiam.ListUserTagsInput{UserName: aws.String("cy")})
	must(t, err)
	if len(tags.Tags) != 1 || *tags.Tags[0].Key != "env" {
		t.Fatalf("tags = %+v", tags.Tags)
	}
	_, err = e.ann.TagUser(ctx, &awsiam.TagUserInput{UserName: aws.String("cy"), Tags: []types.Tag{{Key: aws.String("aws:x"), Value: aws.String("y")}}})
	wantErr(t, err, "ValidationError", 400)

	// Rename and move.
	_, err = e.ann.UpdateUser(ctx, &awsiam.UpdateUserInput{UserName: aws.String("cy"), NewUserName: aws.String("cyd"), NewPath: aws.String("/ops/")})
	must(t, err)
	got, err = e.ann.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("cyd")})
	must(t, err)
	if *got.User.Arn != "arn:aws:iam::acme:user/ops/cyd" || *got.User.UserId != *u.UserId {
		t.Fatalf("renamed user = %+v", got.User)
	}
	_, err = e.ann.UpdateUser(ctx, &awsiam.UpdateUserInput{UserName: aws.String("cyd"), NewUserName: aws.String("bob")})
	wantErr(t, err, "EntityAlreadyExists", 409)

	// Deletion: refused while it has a key, a policy or a group.
	k, err := e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cyd")})
	must(t, err)
	_, err = e.ann.DeleteUser(ctx, &awsiam.DeleteUserInput{UserName: aws.String("cyd")})
	wantErr(t, err, "DeleteConflict", 409)
	_, err = e.ann.DeleteAccessKey(ctx, &awsiam.DeleteAccessKeyInput{UserName: aws.String("cyd"), AccessKeyId: k.AccessKey.AccessKeyId})
	must(t, err)
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("cyd"), PolicyName: aws.String("r"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	_, err = e.ann.DeleteUser(ctx, &awsiam.DeleteUserInput{UserName: aws.String("cyd")})
	wantErr(t, err, "DeleteConflict", 409)
	_, err = e.ann.DeleteUserPolicy(ctx, &awsiam.DeleteUserPolicyInput{UserName: aws.String("cyd"), PolicyName: aws.String("r")})
	must(t, err)
	_, err = e.ann.DeleteUser(ctx, &awsiam.DeleteUserInput{UserName: aws.String("cyd")})
	must(t, err)
	_, err = e.ann.DeleteUser(ctx, &awsiam.DeleteUserInput{UserName: aws.String("cyd")})
	wantErr(t, err, "NoSuchEntity", 404)
}

// Access keys made through IAM are the catalog's keys: they sign S3
// requests; disabled they stop; at most two per user.
func TestAccessKeys(t *testing.T) {
	e := setup(t)
	_, err := e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("cy")})
	must(t, err)
	k, err := e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cy")})
	must(t, err)
	ak := k.AccessKey
	if *ak.UserName != "cy" || ak.Status != types.StatusTypeActive || len(*ak.SecretAccessKey) != 40 {
		t.Fatalf("key = %+v", ak)
	}
	s3c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.srv.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(*ak.AccessKeyId, *ak.SecretAccessKey, "")})
	if _, err := s3c.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("S3 with an IAM-made key: %v", err)
	}
	_, err = e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cy")})
	must(t, err)
	_, err = e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cy")})
	wantErr(t, err, "LimitExceeded", 409)
	list, err := e.ann.ListAccessKeys(ctx, &awsiam.ListAccessKeysInput{UserName: aws.String("cy")})
	must(t, err)
	if len(list.AccessKeyMetadata) != 2 {
		t.Fatalf("keys = %+v", list.AccessKeyMetadata)
	}
	_, err = e.ann.UpdateAccessKey(ctx, &awsiam.UpdateAccessKeyInput{UserName: aws.String("cy"), AccessKeyId: ak.AccessKeyId, Status: types.StatusTypeInactive})
	must(t, err)
	_, err = s3c.ListBuckets(ctx, &s3.ListBucketsInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidAccessKeyId" {
		t.Fatalf("S3 with a disabled key: %v", err)
	}
	last, err := e.ann.GetAccessKeyLastUsed(ctx, &awsiam.GetAccessKeyLastUsedInput{AccessKeyId: ak.AccessKeyId})
	must(t, err)
	if *last.UserName != "cy" || *last.AccessKeyLastUsed.ServiceName != "N/A" {
		t.Fatalf("last used = %+v", last)
	}
	// Another user's key is not found under this one.
	_, err = e.ann.DeleteAccessKey(ctx, &awsiam.DeleteAccessKeyInput{UserName: aws.String("bob"), AccessKeyId: ak.AccessKeyId})
	wantErr(t, err, "NoSuchEntity", 404)

	// A member manages its own keys (no UserName: itself), nobody else's.
	own, err := e.bob.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{})
	must(t, err)
	if *own.AccessKey.UserName != "bob" {
		t.Fatalf("bob's key = %+v", own.AccessKey)
	}
	mine, err := e.bob.ListAccessKeys(ctx, &awsiam.ListAccessKeysInput{})
	must(t, err)
	if len(mine.AccessKeyMetadata) != 2 {
		t.Fatalf("bob's keys = %+v", mine.AccessKeyMetadata)
	}
	_, err = e.bob.DeleteAccessKey(ctx, &awsiam.DeleteAccessKeyInput{AccessKeyId: own.AccessKey.AccessKeyId})
	must(t, err)
	_, err = e.bob.ListAccessKeys(ctx, &awsiam.ListAccessKeysInput{UserName: aws.String("cy")})
	wantErr(t, err, "AccessDenied", 403)
	_, err = e.bob.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("ann")})
	wantErr(t, err, "AccessDenied", 403)
}

// Groups and membership; managed policies with versions, attachments
// and their conflicts; inline policies of users, groups and roles; and
// what UserPolicies then gives the evaluation.
func TestGroupsAndPolicies(t *testing.T) {
	e := setup(t)
	g, err := e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("Devs"), Path: aws.String("/eng/")})
	must(t, err)
	if *g.Group.Arn != "arn:aws:iam::acme:group/eng/Devs" || !strings.HasPrefix(*g.Group.GroupId, "AGPA") {
		t.Fatalf("group = %+v", g.Group)
	}
	_, err = e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("devs")})
	wantErr(t, err, "EntityAlreadyExists", 409)
	_, err = e.ann.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("bob")})
	must(t, err)
	_, err = e.ann.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("nobody")})
	wantErr(t, err, "NoSuchEntity", 404)
	gg, err := e.ann.GetGroup(ctx, &awsiam.GetGroupInput{GroupName: aws.String("devs")})
	must(t, err)
	if len(gg.Users) != 1 || *gg.Users[0].UserName != "bob" {
		t.Fatalf("members = %+v", gg.Users)
	}
	ug, err := e.ann.ListGroupsForUser(ctx, &awsiam.ListGroupsForUserInput{UserName: aws.String("bob")})
	must(t, err)
	if len(ug.Groups) != 1 || *ug.Groups[0].GroupName != "Devs" {
		t.Fatalf("bob's groups = %+v", ug.Groups)
	}
	_, err = e.ann.DeleteGroup(ctx, &awsiam.DeleteGroupInput{GroupName: aws.String("devs")})
	wantErr(t, err, "DeleteConflict", 409)

	// Managed policy and versions.
	cp, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("Read"), PolicyDocument: aws.String(readDoc), Description: aws.String("reads data")})
	must(t, err)
	arn := cp.Policy.Arn
	if *arn != "arn:aws:iam::acme:policy/Read" || *cp.Policy.DefaultVersionId != "v1" || !strings.HasPrefix(*cp.Policy.PolicyId, "ANPA") {
		t.Fatalf("policy = %+v", cp.Policy)
	}
	_, err = e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("Bad"), PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`)})
	wantErr(t, err, "MalformedPolicyDocument", 400)
	_, err = e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("Bad"), PolicyDocument: aws.String(`not json`)})
	wantErr(t, err, "MalformedPolicyDocument", 400)
	for range 4 {
		_, err := e.ann.CreatePolicyVersion(ctx, &awsiam.CreatePolicyVersionInput{PolicyArn: arn, PolicyDocument: aws.String(writeDoc)})
		must(t, err)
	}
	_, err = e.ann.CreatePolicyVersion(ctx, &awsiam.CreatePolicyVersionInput{PolicyArn: arn, PolicyDocument: aws.String(writeDoc)})
	wantErr(t, err, "LimitExceeded", 409)
	vs, err := e.ann.ListPolicyVersions(ctx, &awsiam.ListPolicyVersionsInput{PolicyArn: arn, MaxItems: aws.Int32(3)})
	must(t, err)
	if len(vs.Versions) != 3 || !vs.IsTruncated || *vs.Versions[0].VersionId != "v5" {
		t.Fatalf("versions page = %+v", vs)
	}
	vs2, err := e.ann.ListPolicyVersions(ctx, &awsiam.ListPolicyVersionsInput{PolicyArn: arn, Marker: vs.Marker})
	must(t, err)
	if len(vs2.Versions) != 2 || *vs2.Versions[0].VersionId != "v2" || !vs2.Versions[1].IsDefaultVersion {
		t.Fatalf("second versions page = %+v", vs2.Versions)
	}
	_, err = e.ann.DeletePolicyVersion(ctx, &awsiam.DeletePolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v1")})
	wantErr(t, err, "DeleteConflict", 409)
	_, err = e.ann.SetDefaultPolicyVersion(ctx, &awsiam.SetDefaultPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v3")})
	must(t, err)
	pv, err := e.ann.GetPolicyVersion(ctx, &awsiam.GetPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v3")})
	must(t, err)
	if doc, _ := url.QueryUnescape(*pv.PolicyVersion.Document); doc != writeDoc || !pv.PolicyVersion.IsDefaultVersion {
		t.Fatalf("version = %+v", pv.PolicyVersion)
	}

	// Attach to a group; bob's policies follow its default version.
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: arn})
	must(t, err)
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String("arn:aws:iam::aws:policy/AdministratorAccess")})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.ann.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String("arn:aws:iam::acme:policy/other/Read")})
	wantErr(t, err, "NoSuchEntity", 404)
	at, err := e.ann.ListAttachedGroupPolicies(ctx, &awsiam.ListAttachedGroupPoliciesInput{GroupName: aws.String("devs")})
	must(t, err)
	if len(at.AttachedPolicies) != 1 || *at.AttachedPolicies[0].PolicyArn != *arn {
		t.Fatalf("attached = %+v", at.AttachedPolicies)
	}
	_, err = e.ann.PutGroupPolicy(ctx, &awsiam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("team"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("own"), PolicyDocument: aws.String(writeDoc)})
	must(t, err)
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("big"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + strings.Repeat("a", 2100) + `"}]}`)})
	wantErr(t, err, "LimitExceeded", 409)
	gp, err := e.ann.GetUserPolicy(ctx, &awsiam.GetUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("own")})
	must(t, err)
	if doc, _ := url.QueryUnescape(*gp.PolicyDocument); doc != writeDoc {
		t.Fatalf("user policy = %q", doc)
	}
	lp, err := e.ann.ListGroupPolicies(ctx, &awsiam.ListGroupPoliciesInput{GroupName: aws.String("devs")})
	must(t, err)
	if !slices.Equal(lp.PolicyNames, []string{"team"}) {
		t.Fatalf("group policies = %v", lp.PolicyNames)
	}
	docs, err := e.srv.Node.Catalog.(interface {
		UserPolicies(ctx context.Context, tenant, user string) ([]string, error)
	}).UserPolicies(ctx, "acme", "bob")
	must(t, err)
	if !slices.Equal(docs, []string{writeDoc, readDoc, writeDoc}) {
		t.Fatalf("bob's identity policies = %q", docs)
	}

	_, err = e.ann.DeletePolicy(ctx, &awsiam.DeletePolicyInput{PolicyArn: arn})
	wantErr(t, err, "DeleteConflict", 409)
	_, err = e.ann.DetachGroupPolicy(ctx, &awsiam.DetachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: arn})
	must(t, err)
	_, err = e.ann.DetachGroupPolicy(ctx, &awsiam.DetachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: arn})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.ann.DeletePolicy(ctx, &awsiam.DeletePolicyInput{PolicyArn: arn})
	wantErr(t, err, "DeleteConflict", 409) // versions besides the default
	for _, v := range []string{"v1", "v2", "v4", "v5"} {
		_, err := e.ann.DeletePolicyVersion(ctx, &awsiam.DeletePolicyVersionInput{PolicyArn: arn, VersionId: aws.String(v)})
		must(t, err)
	}
	_, err = e.ann.DeletePolicy(ctx, &awsiam.DeletePolicyInput{PolicyArn: arn})
	must(t, err)
	_, err = e.ann.GetPolicy(ctx, &awsiam.GetPolicyInput{PolicyArn: arn})
	wantErr(t, err, "NoSuchEntity", 404)

	_, err = e.ann.RemoveUserFromGroup(ctx, &awsiam.RemoveUserFromGroupInput{GroupName: aws.String("devs"), UserName: aws.String("bob")})
	must(t, err)
	_, err = e.ann.DeleteGroupPolicy(ctx, &awsiam.DeleteGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("team")})
	must(t, err)
	_, err = e.ann.DeleteGroup(ctx, &awsiam.DeleteGroupInput{GroupName: aws.String("devs")})
	must(t, err)
	lg, err := e.ann.ListGroups(ctx, &awsiam.ListGroupsInput{})
	must(t, err)
	if len(lg.Groups) != 0 {
		t.Fatalf("groups left = %+v", lg.Groups)
	}
}

// Roles with trust policies and session bounds, their policies and
// tags; OpenID Connect providers; the account summary.
func TestRolesProvidersSummary(t *testing.T) {
	e := setup(t)
	r, err := e.ann.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("Builder"), AssumeRolePolicyDocument: aws.String(trustDoc),
		Description: aws.String("builds"), MaxSessionDuration: aws.Int32(7200), Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("ci")}}})
	must(t, err)
	if *r.Role.Arn != "arn:aws:iam::acme:role/Builder" || !strings.HasPrefix(*r.Role.RoleId, "AROA") || *r.Role.MaxSessionDuration != 7200 {
		t.Fatalf("role = %+v", r.Role)
	}
	for _, d := range []int32{3599, 43201} {
		_, err = e.ann.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("x"), AssumeRolePolicyDocument: aws.String(trustDoc), MaxSessionDuration: aws.Int32(d)})
		wantErr(t, err, "ValidationError", 400)
	}
	_, err = e.ann.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("x"), AssumeRolePolicyDocument: aws.String(readDoc)})
	wantErr(t, err, "MalformedPolicyDocument", 400)
	got, err := e.ann.GetRole(ctx, &awsiam.GetRoleInput{RoleName: aws.String("builder")})
	must(t, err)
	if doc, _ := url.QueryUnescape(*got.Role.AssumeRolePolicyDocument); doc != trustDoc || len(got.Role.Tags) != 1 || *got.Role.Description != "builds" {
		t.Fatalf("get role = %+v", got.Role)
	}
	newTrust := strings.Replace(trustDoc, "user/bob", "user/ann", 1)
	_, err = e.ann.UpdateAssumeRolePolicy(ctx, &awsiam.UpdateAssumeRolePolicyInput{RoleName: aws.String("Builder"), PolicyDocument: aws.String(newTrust)})
	must(t, err)
	got, _ = e.ann.GetRole(ctx, &awsiam.GetRoleInput{RoleName: aws.String("Builder")})
	if doc, _ := url.QueryUnescape(*got.Role.AssumeRolePolicyDocument); doc != newTrust {
		t.Fatalf("trust policy after update = %s", doc)
	}
	_, err = e.ann.PutRolePolicy(ctx, &awsiam.PutRolePolicyInput{RoleName: aws.String("Builder"), PolicyName: aws.String("w"), PolicyDocument: aws.String(writeDoc)})
	must(t, err)
	_, err = e.ann.DeleteRole(ctx, &awsiam.DeleteRoleInput{RoleName: aws.String("Builder")})
	wantErr(t, err, "DeleteConflict", 409)
	rp, err := e.ann.ListRolePolicies(ctx, &awsiam.ListRolePoliciesInput{RoleName: aws.String("Builder")})
	must(t, err)
	if !slices.Equal(rp.PolicyNames, []string{"w"}) {
		t.Fatalf("role policies = %v", rp.PolicyNames)
	}
	cp, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("R"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	_, err = e.ann.AttachRolePolicy(ctx, &awsiam.AttachRolePolicyInput{RoleName: aws.String("Builder"), PolicyArn: cp.Policy.Arn})
	must(t, err)
	docs, err := e.srv.Node.Catalog.(interface {
		RolePolicies(ctx context.Context, tenant, role string) ([]string, error)
	}).RolePolicies(ctx, "acme", "builder")
	must(t, err)
	if !slices.Equal(docs, []string{writeDoc, readDoc}) {
		t.Fatalf("role's identity policies = %q", docs)
	}
	ar, err := e.ann.ListAttachedRolePolicies(ctx, &awsiam.ListAttachedRolePoliciesInput{RoleName: aws.String("Builder")})
	must(t, err)
	if len(ar.AttachedPolicies) != 1 {
		t.Fatalf("attached to role = %+v", ar.AttachedPolicies)
	}
	_, err = e.ann.TagRole(ctx, &awsiam.TagRoleInput{RoleName: aws.String("Builder"), Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("prod")}}})
	must(t, err)
	_, err = e.ann.UntagRole(ctx, &awsiam.UntagRoleInput{RoleName: aws.String("Builder"), TagKeys: []string{"team"}})
	must(t, err)
	rt, err := e.ann.ListRoleTags(ctx, &awsiam.ListRoleTagsInput{RoleName: aws.String("Builder")})
	must(t, err)
	if len(rt.Tags) != 1 || *rt.Tags[0].Key != "env" {
		t.Fatalf("role tags = %+v", rt.Tags)
	}
	lr, err := e.ann.ListRoles(ctx, &awsiam.ListRolesInput{})
	must(t, err)
	if len(lr.Roles) != 1 {
		t.Fatalf("roles = %+v", lr.Roles)
	}
	_, err = e.ann.DetachRolePolicy(ctx, &awsiam.DetachRolePolicyInput{RoleName: aws.String("Builder"), PolicyArn: cp.Policy.Arn})
	must(t, err)
	_, err = e.ann.DeleteRolePolicy(ctx, &awsiam.DeleteRolePolicyInput{RoleName: aws.String("Builder"), PolicyName: aws.String("w")})
	must(t, err)
	_, err = e.ann.DeleteRole(ctx, &awsiam.DeleteRoleInput{RoleName: aws.String("Builder")})
	must(t, err)
	_, err = e.ann.GetRole(ctx, &awsiam.GetRoleInput{RoleName: aws.String("Builder")})
	wantErr(t, err, "NoSuchEntity", 404)

	// OpenID Connect providers.
	thumb := strings.Repeat("ab", 20)
	op, err := e.ann.CreateOpenIDConnectProvider(ctx, &awsiam.CreateOpenIDConnectProviderInput{Url: aws.String("https://idp.example.com/realms/acme"),
		ClientIDList: []string{"sts.amazonaws.com", "web"}, ThumbprintList: []string{thumb}})
	must(t, err)
	if *op.OpenIDConnectProviderArn != "arn:aws:iam::acme:oidc-provider/idp.example.com/realms/acme" {
		t.Fatalf("provider arn = %s", *op.OpenIDConnectProviderArn)
	}
	_, err = e.ann.CreateOpenIDConnectProvider(ctx, &awsiam.CreateOpenIDConnectProviderInput{Url: aws.String("https://idp.example.com/realms/acme"), ThumbprintList: []string{thumb}})
	wantErr(t, err, "EntityAlreadyExists", 409)
	_, err = e.ann.CreateOpenIDConnectProvider(ctx, &awsiam.CreateOpenIDConnectProviderInput{Url: aws.String("http://idp.example.com"), ThumbprintList: []string{thumb}})
	wantErr(t, err, "ValidationError", 400)
	_, err = e.ann.CreateOpenIDConnectProvider(ctx, &awsiam.CreateOpenIDConnectProviderInput{Url: aws.String("https://x.example.com"), ThumbprintList: []string{"nothex"}})
	wantErr(t, err, "ValidationError", 400)
	gp, err := e.ann.GetOpenIDConnectProvider(ctx, &awsiam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: op.OpenIDConnectProviderArn})
	must(t, err)
	if *gp.Url != "idp.example.com/realms/acme" || !slices.Equal(gp.ClientIDList, []string{"sts.amazonaws.com", "web"}) || !slices.Equal(gp.ThumbprintList, []string{thumb}) {
		t.Fatalf("provider = %+v", gp)
	}
	lo, err := e.ann.ListOpenIDConnectProviders(ctx, &awsiam.ListOpenIDConnectProvidersInput{})
	must(t, err)
	if len(lo.OpenIDConnectProviderList) != 1 {
		t.Fatalf("providers = %+v", lo.OpenIDConnectProviderList)
	}

	sum, err := e.ann.GetAccountSummary(ctx, &awsiam.GetAccountSummaryInput{})
	must(t, err)
	if sum.SummaryMap["Users"] != 2 || sum.SummaryMap["Policies"] != 1 || sum.SummaryMap["Providers"] != 1 || sum.SummaryMap["VersionsPerPolicyQuota"] != 5 {
		t.Fatalf("summary = %v", sum.SummaryMap)
	}
	_, err = e.ann.DeleteOpenIDConnectProvider(ctx, &awsiam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: op.OpenIDConnectProviderArn})
	must(t, err)
	_, err = e.ann.GetOpenIDConnectProvider(ctx, &awsiam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: op.OpenIDConnectProviderArn})
	wantErr(t, err, "NoSuchEntity", 404)
}

// Two tenants see nothing of each other: names are per tenant, ARNs of
// another tenant name nothing; a member and the provider's root are
// refused.
func TestIsolationAndRefusals(t *testing.T) {
	e := setup(t)
	_, err := e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("devs")})
	must(t, err)
	cp, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("P"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	// zed (beta's admin) sees none of acme's.
	_, err = e.zed.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("ann")})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.GetGroup(ctx, &awsiam.GetGroupInput{GroupName: aws.String("devs")})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.GetPolicy(ctx, &awsiam.GetPolicyInput{PolicyArn: cp.Policy.Arn})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("zed"), PolicyArn: cp.Policy.Arn})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.DeleteUser(ctx, &awsiam.DeleteUserInput{UserName: aws.String("bob")})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.ListAccessKeys(ctx, &awsiam.ListAccessKeysInput{UserName: aws.String("bob")})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.UpdateAccessKey(ctx, &awsiam.UpdateAccessKeyInput{UserName: aws.String("zed"), AccessKeyId: aws.String(e.bobKey.AccessKey), Status: types.StatusTypeInactive})
	wantErr(t, err, "NoSuchEntity", 404)
	_, err = e.zed.GetAccessKeyLastUsed(ctx, &awsiam.GetAccessKeyLastUsedInput{AccessKeyId: aws.String(e.bobKey.AccessKey)})
	wantErr(t, err, "AccessDenied", 403)
	lu, err := e.zed.ListUsers(ctx, &awsiam.ListUsersInput{})
	must(t, err)
	if len(lu.Users) != 1 || *lu.Users[0].UserName != "zed" || *lu.Users[0].Arn != "arn:aws:iam::beta:user/zed" {
		t.Fatalf("beta's users = %+v", lu.Users)
	}
	// The same names are free in another tenant.
	_, err = e.zed.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("devs")})
	must(t, err)
	_, err = e.zed.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("bob")})
	must(t, err)

	// A member: denied everything but itself and its keys.
	for name, call := range map[string]func() error{
		"CreateUser": func() error {
			_, err := e.bob.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("x")})
			return err
		},
		"ListUsers": func() error { _, err := e.bob.ListUsers(ctx, &awsiam.ListUsersInput{}); return err },
		"GetUser ann": func() error {
			_, err := e.bob.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("ann")})
			return err
		},
		"GetUser none": func() error {
			_, err := e.bob.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("none")})
			return err
		},
		"PutUserPolicy": func() error {
			_, err := e.bob.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("p"), PolicyDocument: aws.String(writeDoc)})
			return err
		},
		"AddUserToGroup": func() error {
			_, err := e.bob.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("bob")})
			return err
		},
		"AttachUserPolicy": func() error {
			_, err := e.bob.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: cp.Policy.Arn})
			return err
		},
		"CreatePolicyVersion": func() error {
			_, err := e.bob.CreatePolicyVersion(ctx, &awsiam.CreatePolicyVersionInput{PolicyArn: cp.Policy.Arn, PolicyDocument: aws.String(writeDoc), SetAsDefault: true})
			return err
		},
		"CreateRole": func() error {
			_, err := e.bob.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String(trustDoc)})
			return err
		},
		"GetAccountSummary": func() error { _, err := e.bob.GetAccountSummary(ctx, &awsiam.GetAccountSummaryInput{}); return err },
	} {
		err := call()
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "AccessDenied" {
			t.Errorf("member's %s: %v, want AccessDenied", name, err)
		}
	}
	if _, err := e.bob.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("bob")}); err != nil {
		t.Errorf("member reads itself: %v", err)
	}

	// The provider's root is no account.
	_, err = e.root.ListUsers(ctx, &awsiam.ListUsersInput{})
	wantErr(t, err, "AccessDenied", 403)
	// An admin's application credential is limited to its buckets: no IAM.
	annS3 := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.srv.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(e.annKey.AccessKey, e.annKey.SecretKey, "")})
	_, err = annS3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-data")})
	must(t, err)
	app, err := e.srv.Node.Admin.CreateAppCred(ctx, e.rootID, "acme", "ann", []string{"acme-data"}, false)
	must(t, err)
	_, err = iamClient(e.srv, app.AccessKey, app.SecretKey).ListUsers(ctx, &awsiam.ListUsersInput{})
	wantErr(t, err, "AccessDenied", 403)
	// A suspended tenant's admin can do nothing.
	_, err = e.srv.Node.Admin.SetSuspended(ctx, e.rootID, "beta", true)
	must(t, err)
	_, err = e.zed.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("later")})
	wantErr(t, err, "AccessDenied", 403)
	// An admin cannot delete the user whose key signs the call.
	_, err = e.ann.DeleteUser(ctx, &awsiam.DeleteUserInput{UserName: aws.String("ann")})
	wantErr(t, err, "DeleteConflict", 409)
}

// Calls not built answer NotImplemented (501), never a silent success;
// errors come in IAM's XML format with the namespace.
func TestNotImplementedAndErrorFormat(t *testing.T) {
	e := setup(t)
	_, err := e.ann.CreateLoginProfile(ctx, &awsiam.CreateLoginProfileInput{UserName: aws.String("bob"), Password: aws.String("x-Secret-123")})
	wantErr(t, err, "NotImplemented", 501)
	_, err = e.ann.CreateSAMLProvider(ctx, &awsiam.CreateSAMLProviderInput{Name: aws.String("s"), SAMLMetadataDocument: aws.String(strings.Repeat("x", 1000))})
	wantErr(t, err, "NotImplemented", 501)

	code, body := post(t, e, url.Values{"Action": {"GetUser"}, "Version": {"2010-05-08"}, "UserName": {"nobody"}})
	if code != 404 || !strings.Contains(body, `<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type><Code>NoSuchEntity</Code>`) ||
		!strings.Contains(body, "<RequestId>") {
		t.Fatalf("error body: %d %s", code, body)
	}
	code, body = post(t, e, url.Values{"Action": {"GetUser"}, "Version": {"2010-05-08"}})
	if code != 200 || !strings.Contains(body, `<GetUserResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><GetUserResult><User>`) ||
		!strings.Contains(body, "<ResponseMetadata><RequestId>") {
		t.Fatalf("answer body: %d %s", code, body)
	}
	code, body = post(t, e, url.Values{"Action": {"DeleteUser"}, "Version": {"2010-05-08"}, "UserName": {"nobody"}})
	if code != 404 {
		t.Fatalf("delete of nobody: %d %s", code, body)
	}
	code, body = post(t, e, url.Values{"Version": {"2010-05-08"}})
	if code != 400 || !strings.Contains(body, "MissingAction") {
		t.Fatalf("no Action: %d %s", code, body)
	}
}

// post sends a form signed for IAM as ann and returns the answer.
func post(t *testing.T, e *env, form url.Values) (int, string) {
	t.Helper()
	body := form.Encode()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/", strings.NewReader(body))
	must(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	creds := aws.Credentials{AccessKeyID: e.annKey.AccessKey, SecretAccessKey: e.annKey.SecretKey}
	must(t, v4.NewSigner().SignHTTP(ctx, creds, req, sha(body), "iam", "us-east-1", time.Now()))
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func sha(s string) string {
	return fmt.Sprintf("%x", sha256Sum([]byte(s)))
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// Every change through IAM, refused ones too, is in the audit log with
// its caller, target and outcome; reads are not, and no secret is.
func TestChangesAudited(t *testing.T) {
	e := setup(t)
	_, err := e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("cy")})
	must(t, err)
	k, err := e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cy")})
	must(t, err)
	_, err = e.bob.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("g")})
	wantErr(t, err, "AccessDenied", 403)
	_, err = e.ann.GetUser(ctx, &awsiam.GetUserInput{UserName: aws.String("cy")})
	must(t, err)
	entries, err := e.srv.Node.Audit.Store().ListAudit(ctx, catalog.AuditQuery{Tenant: "acme"})
	must(t, err)
	var got []string
	for _, a := range entries {
		if !strings.HasPrefix(a.Action, "iam:") {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %d", a.User, a.Action, a.Target, a.Outcome, a.Status))
		if strings.Contains(fmt.Sprintf("%+v", a), *k.AccessKey.SecretAccessKey) {
			t.Fatalf("a secret in the audit log: %+v", a)
		}
	}
	want := []string{"ann iam:CreateUser iam/user/cy ok 200", "ann iam:CreateAccessKey iam/user/cy ok 200", "bob iam:CreateGroup iam/group/g AccessDenied 403"}
	if !slices.Equal(got, want) {
		t.Fatalf("audit = %q, want %q", got, want)
	}
}

// A key disabled through IAM on one node stops on another node sharing
// the catalog, though that node cached it: the change advanced the
// identity generation the other polls (once a second on SQLite; the
// wait allows a loaded machine far more).
func TestKeyChangeReachesOtherNodes(t *testing.T) {
	e := setup(t)
	peer := nodetest.StartPeer(t, e.srv, nodetest.Options{})
	_, err := e.ann.CreateUser(ctx, &awsiam.CreateUserInput{UserName: aws.String("cy")})
	must(t, err)
	k, err := e.ann.CreateAccessKey(ctx, &awsiam.CreateAccessKeyInput{UserName: aws.String("cy")})
	must(t, err)
	onPeer := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(peer.URL), UsePathStyle: true, Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(*k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey, "")})
	if _, err := onPeer.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("the peer takes the new key: %v", err)
	}
	_, err = e.ann.UpdateAccessKey(ctx, &awsiam.UpdateAccessKeyInput{UserName: aws.String("cy"), AccessKeyId: k.AccessKey.AccessKeyId, Status: types.StatusTypeInactive})
	must(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := onPeer.ListBuckets(ctx, &s3.ListBucketsInput{})
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "InvalidAccessKeyId" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the peer still takes a key disabled 10s ago: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The calls the other tests leave out: a user's attached and inline
// policy lists, a group's and a role's inline policy read back, and the
// tenant's policies listed (with PathPrefix and OnlyAttached).
func TestRemainingCalls(t *testing.T) {
	e := setup(t)
	cp, err := e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("W"), Path: aws.String("/team/"), PolicyDocument: aws.String(writeDoc)})
	must(t, err)
	_, err = e.ann.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("R"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	_, err = e.ann.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: cp.Policy.Arn})
	must(t, err)
	au, err := e.ann.ListAttachedUserPolicies(ctx, &awsiam.ListAttachedUserPoliciesInput{UserName: aws.String("bob")})
	must(t, err)
	if len(au.AttachedPolicies) != 1 || *au.AttachedPolicies[0].PolicyArn != "arn:aws:iam::acme:policy/team/W" {
		t.Fatalf("attached to bob = %+v", au.AttachedPolicies)
	}
	lp, err := e.ann.ListPolicies(ctx, &awsiam.ListPoliciesInput{})
	must(t, err)
	if len(lp.Policies) != 2 || *lp.Policies[0].PolicyName != "R" || *lp.Policies[1].AttachmentCount != 1 {
		t.Fatalf("policies = %+v", lp.Policies)
	}
	for in, want := range map[*awsiam.ListPoliciesInput]string{
		{PathPrefix: aws.String("/team/")}:                          "W",
		{OnlyAttached: true}:                                        "W",
		{Scope: types.PolicyScopeTypeLocal, MaxItems: aws.Int32(1)}: "R",
	} {
		lp, err := e.ann.ListPolicies(ctx, in)
		must(t, err)
		if len(lp.Policies) != 1 || *lp.Policies[0].PolicyName != want {
			t.Fatalf("policies for %+v = %+v", in, lp.Policies)
		}
	}
	if lp, err := e.ann.ListPolicies(ctx, &awsiam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws}); err != nil || len(lp.Policies) != 0 {
		t.Fatalf("AWS's policies = %+v %v", lp, err)
	}
	_, err = e.ann.DetachUserPolicy(ctx, &awsiam.DetachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: cp.Policy.Arn})
	must(t, err)
	if au, _ := e.ann.ListAttachedUserPolicies(ctx, &awsiam.ListAttachedUserPoliciesInput{UserName: aws.String("bob")}); len(au.AttachedPolicies) != 0 {
		t.Fatalf("attached after detach = %+v", au.AttachedPolicies)
	}

	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("b"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	_, err = e.ann.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("a"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	up, err := e.ann.ListUserPolicies(ctx, &awsiam.ListUserPoliciesInput{UserName: aws.String("bob"), MaxItems: aws.Int32(1)})
	must(t, err)
	if !slices.Equal(up.PolicyNames, []string{"a"}) || !up.IsTruncated {
		t.Fatalf("bob's policies, first page = %+v", up)
	}
	up, err = e.ann.ListUserPolicies(ctx, &awsiam.ListUserPoliciesInput{UserName: aws.String("bob"), Marker: up.Marker})
	must(t, err)
	if !slices.Equal(up.PolicyNames, []string{"b"}) || up.IsTruncated {
		t.Fatalf("bob's policies, second page = %+v", up)
	}

	_, err = e.ann.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String("g")})
	must(t, err)
	_, err = e.ann.PutGroupPolicy(ctx, &awsiam.PutGroupPolicyInput{GroupName: aws.String("g"), PolicyName: aws.String("p"), PolicyDocument: aws.String(writeDoc)})
	must(t, err)
	gp, err := e.ann.GetGroupPolicy(ctx, &awsiam.GetGroupPolicyInput{GroupName: aws.String("G"), PolicyName: aws.String("p")})
	must(t, err)
	if doc, _ := url.QueryUnescape(*gp.PolicyDocument); doc != writeDoc || *gp.GroupName != "g" {
		t.Fatalf("group policy = %+v", gp)
	}
	_, err = e.ann.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String(trustDoc)})
	must(t, err)
	_, err = e.ann.PutRolePolicy(ctx, &awsiam.PutRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("p"), PolicyDocument: aws.String(readDoc)})
	must(t, err)
	rp, err := e.ann.GetRolePolicy(ctx, &awsiam.GetRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("p")})
	must(t, err)
	if doc, _ := url.QueryUnescape(*rp.PolicyDocument); doc != readDoc || *rp.RoleName != "r" {
		t.Fatalf("role policy = %+v", rp)
	}
	_, err = e.ann.GetRolePolicy(ctx, &awsiam.GetRolePolicyInput{RoleName: aws.String("r"), PolicyName: aws.String("none")})
	wantErr(t, err, "NoSuchEntity", 404)
}
