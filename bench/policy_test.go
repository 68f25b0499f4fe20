package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// policyStatements is the size of the policy measured: 20 statements,
// none of which grants the reader (the owner), so every request evaluates
// them all.
const policyStatements = 20

// tenantBucket starts a node with a tenant user owning a bucket of 256
// objects of 4 KiB, and returns a target signing as that user: the root
// would skip the policy altogether.
func tenantBucket(b *testing.B, policy string) *target {
	srv := nodetest.Start(b, nodetest.Options{})
	ctx := context.Background()
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, nil)
	var k admin.Key
	for _, call := range []struct {
		path string
		in   any
		out  any
	}{
		{"/tenants", map[string]string{"name": "acme"}, nil},
		{"/tenants/acme/users", map[string]string{"name": "alice"}, nil},
		{"/tenants/acme/users/alice/keys", nil, &k},
	} {
		if err := c.Do(ctx, "POST", call.path, call.in, call.out); err != nil {
			b.Fatal(err)
		}
	}
	t := newTarget(srv.URL)
	t.creds = aws.Credentials{AccessKeyID: k.AccessKey, SecretAccessKey: k.SecretKey}
	if _, err := t.do(ctx, http.MethodPut, "/bench", nil); err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 4<<10)
	for i := range 256 {
		if _, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/obj-%06d", i), body); err != nil {
			b.Fatal(err)
		}
	}
	if policy != "" {
		if _, err := t.do(ctx, http.MethodPut, "/bench?policy", []byte(policy)); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

// twentyStatements grants other tenants' users reads under their own
// prefixes, with conditions, as a shared bucket's policy might.
func twentyStatements() string {
	var st []string
	for i := range policyStatements {
		st = append(st, fmt.Sprintf(`{"Sid":"s%d","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::partner%d:root"},
			"Action":["s3:GetObject","s3:ListBucket"],"Resource":"arn:aws:s3:::bench/partner%d/*",
			"Condition":{"IpAddress":{"aws:SourceIp":"10.%d.0.0/16"},"Bool":{"aws:SecureTransport":"false"}}}`, i, i, i, i))
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}

// BenchmarkGet4KiBPolicy: small GETs by a tenant user on its own bucket,
// with no policy and with a policy of 20 statements, in one run.
func BenchmarkGet4KiBPolicy(b *testing.B) {
	get := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			return t.do(ctx, http.MethodGet, fmt.Sprintf("/bench/obj-%06d", i%256), nil)
		}
	}
	none, twenty := get(tenantBucket(b, "")), get(tenantBucket(b, twentyStatements()))
	b.Run("policy=none", func(b *testing.B) { run(b, none) })
	b.Run(fmt.Sprintf("policy=%d-statements", policyStatements), func(b *testing.B) { run(b, twenty) })
}

// Identity-based policies' cost: 4 KiB GETs and PUTs by 16 clients in
// one bucket, as three principals of one tenant on one node:
//
//   - role-only: alice, a member owning the bucket, with no identity
//     policies (her role's built-in policy grants her own bucket);
//   - identity-set: bob, a member in 3 groups, with 5 attached managed
//     policies (2 his, 1 per group) and 2 inline ones, 42 statements
//     in all with conditions and policy variables (aws:username,
//     s3:prefix, aws:PrincipalTag, aws:SourceIp), only the last of
//     which grants him alice's bucket: every request evaluates them all;
//   - role-session: an assumed-role session (STS credentials, so the
//     token is checked on every request) of a role carrying the same 7
//     policies, narrowed by a session policy.
//
// The three run in turn, identityRounds times over (-count would repeat
// each sub-benchmark in a row), so that the machine's drifting load
// falls on all three alike; compare the three of one round.
func BenchmarkIdentityPolicies(b *testing.B) {
	_, w := identityWorld(b)
	body := make([]byte, 4<<10)
	get := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			return t.do(ctx, http.MethodGet, fmt.Sprintf("/bench/obj-%06d", i%256), nil)
		}
	}
	put := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			_, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/put-%09d", i), body)
			return 0, err
		}
	}
	for range identityRounds {
		for _, op := range []struct {
			name string
			f    func(*target) func(context.Context, int64) (int64, error)
		}{{"GET", get}, {"PUT", put}} {
			for _, as := range []string{"role-only", "identity-set", "role-session"} {
				// The same name each round: Go numbers them (#01, ...),
				// and bench/chart averages them.
				b.Run(op.name+"/target="+as, func(b *testing.B) { run(b, op.f(w[as])) })
			}
		}
	}
}

// identityRounds is how many times BenchmarkIdentityPolicies runs its
// three principals in turn.
const identityRounds = 5

// identityPolicies and identityPerPolicy are the size of the identity
// set: 7 policies of 6 statements.
const identityPolicies, identityPerPolicy = 7, 6

// identityPolicy is the n-th policy of the identity set: statements
// such as tenants write (home folders by user name, team buckets by
// tag, listing by prefix, a network fence), none of which grants the
// bench bucket's objects; the last policy's last statement does, for
// the team "storage".
func identityPolicy(n int) string {
	var st []string
	for s := range identityPerPolicy {
		sid := fmt.Sprintf("p%ds%d", n, s)
		switch s {
		case 0:
			st = append(st, `{"Sid":"`+sid+`Home","Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],
				"Resource":"arn:aws:s3:::bench/home/${aws:username}/*"}`)
		case 1:
			st = append(st, `{"Sid":"`+sid+`List","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::bench",
				"Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*","`+sid+`/*"]}}}`)
		case 2:
			st = append(st, `{"Sid":"`+sid+`Team","Effect":"Allow","Action":["s3:Get*","s3:Put*"],
				"Resource":"arn:aws:s3:::team-${aws:PrincipalTag/team}-`+sid+`/*"}`)
		case 3:
			st = append(st, `{"Sid":"`+sid+`Project","Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::bench/*",
				"Condition":{"StringEquals":{"aws:PrincipalTag/project":"`+sid+`"}}}`)
		case 4:
			st = append(st, `{"Sid":"`+sid+`Fence","Effect":"Deny","Action":"s3:*","Resource":"*",
				"Condition":{"NotIpAddress":{"aws:SourceIp":["127.0.0.0/8","10.0.0.0/8","::1/128"]}}}`)
		case 5:
			if n == identityPolicies-1 {
				st = append(st, `{"Sid":"Grant","Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bench/*",
					"Condition":{"StringEquals":{"aws:PrincipalTag/team":"storage"}}}`)
				break
			}
			st = append(st, fmt.Sprintf(`{"Sid":"%sOffice","Effect":"Allow","Action":"s3:GetObject","Resource":"*",
				"Condition":{"IpAddress":{"aws:SourceIp":"10.%d.0.0/16"}}}`, sid, n))
		}
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}

// identityWorld sets up the three principals of
// BenchmarkIdentityPolicies on a node and returns it and a target
// signing as each.
func identityWorld(b *testing.B) (*nodetest.Server, map[string]*target) {
	srv := nodetest.Start(b, nodetest.Options{})
	ctx := context.Background()
	root := &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}
	svc := srv.Node.Admin
	must := func(err error) {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
	}
	_, err := svc.CreateTenant(ctx, root, "acme", "acme", "")
	must(err)
	keys := map[string]admin.Key{}
	for _, u := range [][2]string{{"boss", "admin"}, {"alice", "user"}, {"bob", "user"}} {
		_, err := svc.CreateUser(ctx, root, "acme", u[0], u[1], "")
		must(err)
		keys[u[0]], err = svc.CreateKey(ctx, root, "acme", u[0])
		must(err)
	}
	as := func(name string) *target {
		t := newTarget(srv.URL)
		t.creds = aws.Credentials{AccessKeyID: keys[name].AccessKey, SecretAccessKey: keys[name].SecretKey}
		return t
	}
	alice := as("alice")
	_, err = alice.do(ctx, http.MethodPut, "/bench", nil)
	must(err)
	body := make([]byte, 4<<10)
	for i := range 256 {
		_, err := alice.do(ctx, http.MethodPut, fmt.Sprintf("/bench/obj-%06d", i), body)
		must(err)
	}

	// boss, the tenant's admin, gives bob and the role the identity set.
	ic := awsiam.New(awsiam.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(keys["boss"].AccessKey, keys["boss"].SecretKey, "")})
	storage := []iamtypes.Tag{{Key: aws.String("team"), Value: aws.String("storage")}, {Key: aws.String("site"), Value: aws.String("fra")}}
	_, err = ic.TagUser(ctx, &awsiam.TagUserInput{UserName: aws.String("bob"), Tags: storage})
	must(err)
	_, err = ic.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("bench"), Tags: storage,
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/alice"},"Action":"sts:AssumeRole"}]}`)})
	must(err)
	var arns []*string
	for n := range 5 {
		p, err := ic.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String(fmt.Sprintf("managed-%d", n)), PolicyDocument: aws.String(identityPolicy(n))})
		must(err)
		arns = append(arns, p.Policy.Arn)
		_, err = ic.AttachRolePolicy(ctx, &awsiam.AttachRolePolicyInput{RoleName: aws.String("bench"), PolicyArn: p.Policy.Arn})
		must(err)
	}
	for g := range 3 {
		name := aws.String(fmt.Sprintf("group-%d", g))
		_, err := ic.CreateGroup(ctx, &awsiam.CreateGroupInput{GroupName: name})
		must(err)
		_, err = ic.AddUserToGroup(ctx, &awsiam.AddUserToGroupInput{GroupName: name, UserName: aws.String("bob")})
		must(err)
		_, err = ic.AttachGroupPolicy(ctx, &awsiam.AttachGroupPolicyInput{GroupName: name, PolicyArn: arns[g]})
		must(err)
	}
	for _, arn := range arns[3:] {
		_, err := ic.AttachUserPolicy(ctx, &awsiam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: arn})
		must(err)
	}
	for n := 5; n < identityPolicies; n++ {
		name, doc := aws.String(fmt.Sprintf("inline-%d", n)), aws.String(identityPolicy(n))
		_, err := ic.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: name, PolicyDocument: doc})
		must(err)
		_, err = ic.PutRolePolicy(ctx, &awsiam.PutRolePolicyInput{RoleName: aws.String("bench"), PolicyName: name, PolicyDocument: doc})
		must(err)
	}

	// alice assumes the role, narrowed to the bucket's objects.
	sc := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(keys["alice"].AccessKey, keys["alice"].SecretKey, "")})
	out, err := sc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::acme:role/bench"), RoleSessionName: aws.String("bench"),
		DurationSeconds: aws.Int32(3600),
		Policy:          aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bench/*"}]}`)})
	must(err)
	session := newTarget(srv.URL)
	session.creds = aws.Credentials{AccessKeyID: aws.ToString(out.Credentials.AccessKeyId),
		SecretAccessKey: aws.ToString(out.Credentials.SecretAccessKey), SessionToken: aws.ToString(out.Credentials.SessionToken)}

	w := map[string]*target{"role-only": alice, "identity-set": as("bob"), "role-session": session}
	// Each must be granted what it is measured doing, and bob only by
	// the last statement: without his team tag he is refused.
	for name, t := range w {
		_, err := t.do(ctx, http.MethodGet, "/bench/obj-000000", nil)
		must(err)
		_, err = t.do(ctx, http.MethodPut, "/bench/check-"+name, body)
		must(err)
	}
	_, err = ic.UntagUser(ctx, &awsiam.UntagUserInput{UserName: aws.String("bob"), TagKeys: []string{"team"}})
	must(err)
	if _, err := w["identity-set"].do(ctx, http.MethodGet, "/bench/obj-000000", nil); err == nil {
		b.Fatal("bob read the bucket without the tag the last statement asks for")
	}
	_, err = ic.TagUser(ctx, &awsiam.TagUserInput{UserName: aws.String("bob"), Tags: storage})
	must(err)
	return srv, w
}

// BenchmarkIdentityColdCache is one GET of 4 KiB by one client right
// after the node dropped its cached identities (what it does when the
// identity generation moves: any IAM change on any node), so that the
// request loads its key, user or role, groups' and attached policies
// and tags from the catalog and parses them; and the same GET with the
// cache warm, for comparison.
func BenchmarkIdentityColdCache(b *testing.B) {
	srv, w := identityWorld(b)
	ctx := context.Background()
	for _, cold := range []bool{true, false} {
		for _, as := range []string{"role-only", "identity-set", "role-session"} {
			b.Run(fmt.Sprintf("cold=%v/as=%s", cold, as), func(b *testing.B) {
				t := w[as]
				for i := range b.N {
					if cold {
						b.StopTimer()
						srv.Node.Keys.Flush()
						b.StartTimer()
					}
					if _, err := t.do(ctx, http.MethodGet, fmt.Sprintf("/bench/obj-%06d", i%256), nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
