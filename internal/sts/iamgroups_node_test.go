package sts_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/go-ldap/ldap/v3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/testenv"
)

// A directory group mapped to an IAM group: the sync makes its members
// members of the IAM group, whose managed policy then lets them write
// under a prefix of another user's bucket (checked with credentials from
// AssumeRoleWithLDAPIdentity); a user who leaves the directory group
// leaves the IAM group at the next sync and loses the grant, while IAM
// groups the mapping does not name are left as they are.
func TestDirectoryGroupsToIAMGroups(t *testing.T) {
	sl, srv, c := startDirectoryNode(t, map[string]any{"iam_groups": map[string]string{"ostium-devs": "devs"}})
	ctx := context.Background()
	devsDN := "cn=ostium-devs," + testenv.SlapdGroups
	sl.Admin(func(c *ldap.Conn) error {
		a := ldap.NewAddRequest(devsDN, nil)
		a.Attribute("objectClass", []string{"groupOfNames"})
		a.Attribute("cn", []string{"ostium-devs"})
		a.Attribute("member", []string{"uid=bob," + testenv.SlapdPeople, "uid=carol," + testenv.SlapdPeople})
		return c.Add(a)
	})
	// Before the IAM group exists, the sync says so and goes on. The
	// node's own job may have synced the new directory first, creating
	// the users; the conflict is reported by every sync.
	var res directory.Result
	for i := 0; ; i++ {
		err := c.Do(ctx, "POST", "/tenants/"+tenant+"/directory/sync", nil, &res)
		if err == nil || i == 100 || !strings.Contains(err.Error(), "SyncRunning") {
			must(t, err)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var linked []admin.DirectoryUser
	must(t, c.Do(ctx, "GET", "/tenants/"+tenant+"/directory/users", nil, &linked))
	if len(linked) != 3 || !slices.ContainsFunc(res.Conflicts, func(s string) bool { return strings.Contains(s, "IAM group devs does not exist") }) {
		t.Fatalf("first sync: %+v, users %+v", res, linked)
	}

	// alice, the tenant's admin by the directory, makes the IAM group,
	// its policy and a bucket.
	var key admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/"+tenant+"/users/alice/keys", nil, &key))
	ic := awsiam.New(awsiam.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider(key.AccessKey, key.SecretKey, ""), Retryer: aws.NopRetryer{}})
	for _, g := range []string{"devs", "others"} {
		if _, err := ic.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: aws.String(g)}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ic.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("devs-write"), PolicyDocument: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:GetObject"],"Resource":"arn:aws:s3:::shared/devs/*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ic.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: p.Policy.Arn}); err != nil {
		t.Fatal(err)
	}
	// A group the mapping does not name: bob's by hand.
	if _, err := ic.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: aws.String("others"), UserName: aws.String("bob")}); err != nil {
		t.Fatal(err)
	}
	alice := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider(key.AccessKey, key.SecretKey, "")})
	if _, err := alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("shared")}); err != nil {
		t.Fatal(err)
	}

	a := assumeLDAP(t, srv, ldapForm(tenant+`\bob`, testenv.SlapdUserPass))
	if a.Status != http.StatusOK {
		t.Fatalf("bob: %d %s", a.Status, a.Body)
	}
	bob := s3As(srv, a)
	put := func(key string) error {
		_, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shared"), Key: aws.String(key), Body: strings.NewReader("x")})
		return err
	}
	// The sign-in alone made bob a member already (it applies the
	// mapping as the sync does).
	members := func() []string {
		t.Helper()
		out, err := ic.GetGroup(ctx, &awsiam.GetGroupInput{GroupName: aws.String("devs")})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, u := range out.Users {
			names = append(names, aws.ToString(u.UserName))
		}
		return names
	}
	if got := members(); !slices.Equal(got, []string{"bob"}) {
		t.Fatalf("devs after bob's sign-in: %v", got)
	}
	syncNow(t, c)
	if got := members(); !slices.Equal(got, []string{"bob", "carol"}) {
		t.Fatalf("devs after the sync: %v", got)
	}
	if err := put("devs/a.txt"); err != nil {
		t.Fatalf("a write the group's policy grants: %v", err)
	}
	if err := put("other/a.txt"); code(err) != "AccessDenied" {
		t.Fatalf("a write outside the prefix: %v", err)
	}

	// bob leaves the directory group: the next sync takes him out of
	// devs, and his credentials lose the grant.
	sl.Admin(func(c *ldap.Conn) error {
		m := ldap.NewModifyRequest(devsDN, nil)
		m.Delete("member", []string{"uid=bob," + testenv.SlapdPeople})
		return c.Modify(m)
	})
	syncNow(t, c)
	if got := members(); !slices.Equal(got, []string{"carol"}) {
		t.Fatalf("devs after bob left: %v", got)
	}
	if err := put("devs/b.txt"); code(err) != "AccessDenied" {
		t.Fatalf("bob's write after he left the group: %v", err)
	}
	out, err := ic.ListGroupsForUser(ctx, &awsiam.ListGroupsForUserInput{UserName: aws.String("bob")})
	if err != nil || len(out.Groups) != 1 || aws.ToString(out.Groups[0].GroupName) != "others" {
		t.Fatalf("bob's groups: %+v %v", out, err)
	}
}
