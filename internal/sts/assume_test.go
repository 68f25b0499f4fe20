package sts_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/oidc"
)

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, what string, err error, want string) {
	t.Helper()
	if code(err) != want {
		t.Errorf("%s: error %v, want %s", what, err, want)
	}
}

func provider(ak, sk, token string) aws.CredentialsProvider {
	if ak == "" {
		return aws.AnonymousCredentials{}
	}
	return credentials.NewStaticCredentialsProvider(ak, sk, token)
}

func stsClient(srv *nodetest.Server, ak, sk, token string) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client(),
		Credentials: provider(ak, sk, token), Retryer: aws.NopRetryer{}})
}

func iamClient(srv *nodetest.Server, ak, sk string) *awsiam.Client {
	return awsiam.New(awsiam.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client(),
		Credentials: provider(ak, sk, ""), Retryer: aws.NopRetryer{}})
}

func s3Client(srv *nodetest.Server, c *types.Credentials) *s3.Client {
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: srv.Client(),
		Retryer: aws.NopRetryer{}, Credentials: provider(aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))})
}

// world is a node with tenants acme (ann, an admin; bob and cy,
// members) and beta (zed, an admin), and a bucket "data" of ann's with
// objects under in/ and out/.
type world struct {
	srv               *nodetest.Server
	ann, bob, cy, zed *sts.Client
	annIAM            *awsiam.Client
	keys              map[string][2]string
}

func newWorld(t *testing.T, opt nodetest.Options) *world {
	t.Helper()
	srv := nodetest.Start(t, opt)
	root := &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}
	svc := srv.Node.Admin
	w := &world{srv: srv, keys: map[string][2]string{}}
	for _, tn := range []string{"acme", "beta"} {
		_, err := svc.CreateTenant(ctx, root, tn, tn, "")
		must(t, err)
	}
	for _, u := range [][3]string{{"acme", "ann", "admin"}, {"acme", "bob", "user"}, {"acme", "cy", "user"}, {"beta", "zed", "admin"}} {
		_, err := svc.CreateUser(ctx, root, u[0], u[1], u[2], "")
		must(t, err)
		k, err := svc.CreateKey(ctx, root, u[0], u[1])
		must(t, err)
		w.keys[u[1]] = [2]string{k.AccessKey, k.SecretKey}
	}
	c := func(n string) *sts.Client { return stsClient(srv, w.keys[n][0], w.keys[n][1], "") }
	w.ann, w.bob, w.cy, w.zed = c("ann"), c("bob"), c("cy"), c("zed")
	w.annIAM = iamClient(srv, w.keys["ann"][0], w.keys["ann"][1])
	annS3 := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: srv.Client(),
		Retryer: aws.NopRetryer{}, Credentials: provider(w.keys["ann"][0], w.keys["ann"][1], "")})
	_, err := annS3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("data")})
	must(t, err)
	for _, k := range []string{"in/a", "out/b", "team-red/c", "team-blue/d"} {
		_, err := annS3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String(k), Body: bytes.NewReader([]byte(k))})
		must(t, err)
	}
	return w
}

// role creates a role of acme with trust policy trust and an inline
// policy letting it read the bucket "data".
func (w *world) role(t *testing.T, name, trust string, maxSession int32) string {
	t.Helper()
	in := &awsiam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}
	if maxSession > 0 {
		in.MaxSessionDuration = aws.Int32(maxSession)
	}
	out, err := w.annIAM.CreateRole(ctx, in)
	must(t, err)
	_, err = w.annIAM.PutRolePolicy(ctx, &awsiam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::data","arn:aws:s3:::data/*"]}]}`)})
	must(t, err)
	return aws.ToString(out.Role.Arn)
}

func trustOf(principal string, extra string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + principal + `"},"Action":"sts:AssumeRole"` + extra + `}]}`
}

func get(c *s3.Client, key string) error {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String(key)})
	if err == nil {
		out.Body.Close()
	}
	return err
}

// AssumeRole as AWS decides it within an account: a trust policy naming
// the user lets it in without an identity policy; one naming the
// account lets in only who its identity policies allow sts:AssumeRole;
// another tenant never. The session reads what the role's policy lets it
// and names itself as AWS's sessions do.
func TestAssumeRoleTrust(t *testing.T) {
	w := newWorld(t, nodetest.Options{})
	named := w.role(t, "reader", trustOf("arn:aws:iam::acme:user/bob", ""), 0)
	acct := w.role(t, "acct", trustOf("arn:aws:iam::acme:root", ""), 0)
	if named != "arn:aws:iam::acme:role/reader" {
		t.Fatalf("role ARN %s", named)
	}

	out, err := w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(named), RoleSessionName: aws.String("s1")})
	must(t, err)
	if got := aws.ToString(out.AssumedRoleUser.Arn); got != "arn:aws:sts::acme:assumed-role/reader/s1" {
		t.Errorf("AssumedRoleUser.Arn = %s", got)
	}
	if id := aws.ToString(out.AssumedRoleUser.AssumedRoleId); !strings.HasPrefix(id, "AROA") || !strings.HasSuffix(id, ":s1") {
		t.Errorf("AssumedRoleId = %s", id)
	}
	if left := time.Until(aws.ToTime(out.Credentials.Expiration)); left < 50*time.Minute || left > 61*time.Minute {
		t.Errorf("default duration: expires in %v, want an hour", left)
	}
	sess := stsClient(w.srv, aws.ToString(out.Credentials.AccessKeyId), aws.ToString(out.Credentials.SecretAccessKey), aws.ToString(out.Credentials.SessionToken))
	who, err := sess.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	must(t, err)
	if aws.ToString(who.Arn) != "arn:aws:sts::acme:assumed-role/reader/s1" || aws.ToString(who.UserId) != aws.ToString(out.AssumedRoleUser.AssumedRoleId) || aws.ToString(who.Account) != "acme" {
		t.Errorf("GetCallerIdentity of the session = %s %s %s", aws.ToString(who.Arn), aws.ToString(who.UserId), aws.ToString(who.Account))
	}
	// bob as himself reads nothing of ann's bucket; the role's session
	// reads it, and writes nothing.
	bobS3 := s3Client(w.srv, &types.Credentials{AccessKeyId: aws.String(w.keys["bob"][0]), SecretAccessKey: aws.String(w.keys["bob"][1])})
	wantCode(t, "bob's own GetObject", get(bobS3, "in/a"), "AccessDenied")
	roleS3 := s3Client(w.srv, out.Credentials)
	must(t, get(roleS3, "in/a"))
	_, err = roleS3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("x"), Body: strings.NewReader("x")})
	wantCode(t, "the role's PutObject", err, "AccessDenied")

	// Not named: cy. Not of the tenant: zed, even for a role naming it.
	_, err = w.cy.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(named), RoleSessionName: aws.String("ss")})
	wantCode(t, "cy, not in the trust policy", err, "AccessDenied")
	open := w.role(t, "open", trustOf("arn:aws:iam::beta:root", ""), 0)
	_, err = w.zed.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(open), RoleSessionName: aws.String("ss")})
	wantCode(t, "another tenant's role", err, "AccessDenied")
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::acme:role/none"), RoleSessionName: aws.String("ss")})
	wantCode(t, "a role that does not exist", err, "AccessDenied")

	// The account: ann (an admin, whose policies allow sts:*) may; bob
	// only once a policy of his allows sts:AssumeRole on the role.
	_, err = w.ann.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(acct), RoleSessionName: aws.String("ss")})
	must(t, err)
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(acct), RoleSessionName: aws.String("ss")})
	wantCode(t, "bob, account trust without an identity policy", err, "AccessDenied")
	_, err = w.annIAM.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("assume"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"` + acct + `"}]}`)})
	must(t, err)
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(acct), RoleSessionName: aws.String("ss")})
	must(t, err)

	// RoleSessionName as AWS's: 2 to 64 of [\w+=,.@-].
	for _, n := range []string{"a", "has space", strings.Repeat("x", 65)} {
		_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(named), RoleSessionName: aws.String(n)})
		wantCode(t, "RoleSessionName "+n, err, "ValidationError")
	}
}

// ExternalId is tested by the trust policy's sts:ExternalId condition;
// DurationSeconds runs from 900 to the role's MaxSessionDuration.
func TestAssumeRoleExternalIDAndDuration(t *testing.T) {
	w := newWorld(t, nodetest.Options{})
	arn := w.role(t, "vendor", trustOf("arn:aws:iam::acme:user/bob", `,"Condition":{"StringEquals":{"sts:ExternalId":"k-123"}}`), 7200)
	in := func(ext string, d int32) *sts.AssumeRoleInput {
		i := &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("vv")}
		if ext != "" {
			i.ExternalId = aws.String(ext)
		}
		if d != 0 {
			i.DurationSeconds = aws.Int32(d)
		}
		return i
	}
	_, err := w.bob.AssumeRole(ctx, in("", 0))
	wantCode(t, "no ExternalId", err, "AccessDenied")
	_, err = w.bob.AssumeRole(ctx, in("k-999", 0))
	wantCode(t, "wrong ExternalId", err, "AccessDenied")
	out, err := w.bob.AssumeRole(ctx, in("k-123", 7200))
	must(t, err)
	if left := time.Until(aws.ToTime(out.Credentials.Expiration)); left < 119*time.Minute || left > 121*time.Minute {
		t.Errorf("DurationSeconds 7200: expires in %v", left)
	}
	for _, d := range []int32{899, 7201, 43201} {
		_, err = w.bob.AssumeRole(ctx, in("k-123", d))
		wantCode(t, "DurationSeconds beyond the role's bounds", err, "ValidationError")
	}
}

// A session policy only narrows what the role allows; session tags
// (with sts:TagSession in the trust policy) are aws:PrincipalTag to the
// session's requests.
func TestAssumeRoleSessionPolicyAndTags(t *testing.T) {
	w := newWorld(t, nodetest.Options{})
	arn := w.role(t, "team", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/bob"},"Action":["sts:AssumeRole","sts:TagSession"]}]}`, 0)
	bare := w.role(t, "bare", trustOf("arn:aws:iam::acme:user/bob", ""), 0)

	narrow := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::data/in/*"}]}`
	out, err := w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("nn"), Policy: aws.String(narrow)})
	must(t, err)
	c := s3Client(w.srv, out.Credentials)
	must(t, get(c, "in/a"))
	wantCode(t, "outside the session policy", get(c, "out/b"), "AccessDenied")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("in/new"), Body: strings.NewReader("x")})
	wantCode(t, "PutObject the session policy allows but the role does not", err, "AccessDenied")
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("nn"), Policy: aws.String(`{"Statement":`)})
	wantCode(t, "a malformed session policy", err, "MalformedPolicyDocument")

	// A managed policy as the session policy (PolicyArns).
	mp, err := w.annIAM.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("out-only"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/out/*"}]}`)})
	must(t, err)
	out, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("pa"),
		PolicyArns: []types.PolicyDescriptorType{{Arn: mp.Policy.Arn}}})
	must(t, err)
	c = s3Client(w.srv, out.Credentials)
	must(t, get(c, "out/b"))
	wantCode(t, "outside the managed session policy", get(c, "in/a"), "AccessDenied")

	// The team's prefix by session tag.
	_, err = w.annIAM.PutRolePolicy(ctx, &awsiam.PutRolePolicyInput{RoleName: aws.String("team"), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/team-${aws:PrincipalTag/team}/*"}]}`)})
	must(t, err)
	tag := []types.Tag{{Key: aws.String("team"), Value: aws.String("red")}}
	out, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("tt"), Tags: tag, TransitiveTagKeys: []string{"team"}})
	must(t, err)
	c = s3Client(w.srv, out.Credentials)
	must(t, get(c, "team-red/c"))
	wantCode(t, "another team's prefix", get(c, "team-blue/d"), "AccessDenied")
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(bare), RoleSessionName: aws.String("tt"), Tags: tag})
	wantCode(t, "tags without sts:TagSession", err, "AccessDenied")
}

// Role chaining: a role's session may assume another role, for an hour
// at most. Deleting the user who assumed a role leaves the session;
// deleting the role ends its sessions at once; a change of its policy
// applies to them at once.
func TestAssumeRoleChainingAndRevocation(t *testing.T) {
	w := newWorld(t, nodetest.Options{})
	first := w.role(t, "first", trustOf("arn:aws:iam::acme:user/bob", ""), 0)
	second := w.role(t, "second", trustOf("arn:aws:iam::acme:role/first", ""), 43200)
	out, err := w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(first), RoleSessionName: aws.String("aa")})
	must(t, err)
	sess := stsClient(w.srv, aws.ToString(out.Credentials.AccessKeyId), aws.ToString(out.Credentials.SecretAccessKey), aws.ToString(out.Credentials.SessionToken))
	_, err = sess.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(second), RoleSessionName: aws.String("bb"), DurationSeconds: aws.Int32(3601)})
	wantCode(t, "a chained session beyond an hour", err, "ValidationError")
	chained, err := sess.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(second), RoleSessionName: aws.String("bb"), DurationSeconds: aws.Int32(3600)})
	must(t, err)
	if aws.ToString(chained.AssumedRoleUser.Arn) != "arn:aws:sts::acme:assumed-role/second/bb" {
		t.Errorf("chained session %s", aws.ToString(chained.AssumedRoleUser.Arn))
	}
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(second), RoleSessionName: aws.String("bb")})
	wantCode(t, "bob himself, for the role only the first trusts", err, "AccessDenied")

	c := s3Client(w.srv, out.Credentials)
	must(t, get(c, "in/a"))
	// The session is the role's: deleting bob, who assumed it, ends
	// his own keys, not the role's session, as on AWS.
	must(t, w.srv.Node.Admin.DeleteUser(ctx, &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}, "acme", "bob"))
	must(t, get(c, "in/a"))
	_, err = w.annIAM.PutRolePolicy(ctx, &awsiam.PutRolePolicyInput{RoleName: aws.String("first"), PolicyName: aws.String("deny"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/in/*"}]}`)})
	must(t, err)
	wantCode(t, "after a Deny is put on the role", get(c, "in/a"), "AccessDenied")
	must(t, get(c, "out/b"))

	for _, p := range []string{"read", "deny"} {
		_, err = w.annIAM.DeleteRolePolicy(ctx, &awsiam.DeleteRolePolicyInput{RoleName: aws.String("first"), PolicyName: aws.String(p)})
		must(t, err)
	}
	_, err = w.annIAM.DeleteRole(ctx, &awsiam.DeleteRoleInput{RoleName: aws.String("first")})
	must(t, err)
	if err := get(c, "out/b"); code(err) != "InvalidAccessKeyId" {
		t.Errorf("the deleted role's session: %v, want InvalidAccessKeyId", err)
	}
	// A role created again under the name is another role.
	w.role(t, "first", trustOf("arn:aws:iam::acme:user/bob", ""), 0)
	if err := get(c, "out/b"); code(err) != "InvalidAccessKeyId" {
		t.Errorf("the old session of a role made again: %v, want InvalidAccessKeyId", err)
	}
}

// issuer is an OpenID Connect provider on loopback over https.
type issuer struct {
	srv *httptest.Server
	key *ecdsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	is := &issuer{key: key}
	is.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/keys"})
		case "/keys":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "ES256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) token(t *testing.T, aud, sub string) string {
	return is.tokenAt(t, aud, sub, time.Now())
}

// tokenAt is a token issued at iat, for an hour.
func (is *issuer) tokenAt(t *testing.T, aud, sub string, iat time.Time) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k"}}, nil)
	must(t, err)
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: is.srv.URL, Audience: jwt.Audience{aud}, Subject: sub,
		IssuedAt: jwt.NewNumericDate(iat), Expiry: jwt.NewNumericDate(iat.Add(time.Hour))}).Serialize()
	must(t, err)
	return tok
}

// AssumeRoleWithWebIdentity, unsigned, with a token of a provider on
// loopback (allowed by oidc_allow_networks): the registered provider of
// the role's tenant, the trust policy's Federated principal and its
// conditions on aud and sub decide.
func TestAssumeRoleWithWebIdentity(t *testing.T) {
	is := newIssuer(t)
	w := newWorld(t, nodetest.Options{Config: func(c *node.Config) { c.STS.OIDCAllowNetworks = []string{"127.0.0.0/8"} }})
	host := strings.TrimPrefix(is.srv.URL, "https://")
	anon := stsClient(w.srv, "", "", "")
	in := func(tok string) *sts.AssumeRoleWithWebIdentityInput {
		return &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String("arn:aws:iam::acme:role/ci"), RoleSessionName: aws.String("job-1"), WebIdentityToken: aws.String(tok)}
	}
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::acme:oidc-provider/` + host +
		`"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"` + host + `:aud":"ostium"},"StringLike":{"` + host + `:sub":"repo:acme/*"}}}]}`
	w.role(t, "ci", trust, 0)

	_, err := anon.AssumeRoleWithWebIdentity(ctx, in(is.token(t, "ostium", "repo:acme/app")))
	wantCode(t, "a provider not registered", err, "InvalidIdentityToken")

	_, err = w.annIAM.CreateOpenIDConnectProvider(ctx, &awsiam.CreateOpenIDConnectProviderInput{Url: aws.String(is.srv.URL),
		ClientIDList: []string{"ostium", "other"}, ThumbprintList: []string{oidc.Thumbprint([]*x509.Certificate{is.srv.Certificate()})}})
	must(t, err)
	out, err := anon.AssumeRoleWithWebIdentity(ctx, in(is.token(t, "ostium", "repo:acme/app")))
	must(t, err)
	if aws.ToString(out.SubjectFromWebIdentityToken) != "repo:acme/app" || aws.ToString(out.Audience) != "ostium" || aws.ToString(out.Provider) != host ||
		aws.ToString(out.AssumedRoleUser.Arn) != "arn:aws:sts::acme:assumed-role/ci/job-1" {
		t.Errorf("answer: sub %s aud %s provider %s arn %s", aws.ToString(out.SubjectFromWebIdentityToken), aws.ToString(out.Audience),
			aws.ToString(out.Provider), aws.ToString(out.AssumedRoleUser.Arn))
	}
	must(t, get(s3Client(w.srv, out.Credentials), "in/a"))

	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(is.token(t, "other", "repo:acme/app")))
	wantCode(t, "an audience of the provider the trust policy does not accept", err, "AccessDenied")
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(is.token(t, "stranger", "repo:acme/app")))
	wantCode(t, "an audience the provider does not list", err, "InvalidIdentityToken")
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(is.token(t, "ostium", "repo:evil/app")))
	wantCode(t, "a subject the trust policy does not accept", err, "AccessDenied")
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(is.token(t, "ostium", "repo:acme/app")+"x"))
	wantCode(t, "a token whose signature is wrong", err, "InvalidIdentityToken")
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(is.tokenAt(t, "ostium", "repo:acme/app", time.Now().Add(-2*time.Hour))))
	wantCode(t, "an expired token", err, "ExpiredTokenException")

	// The provider is acme's: a role of beta does not see it.
	i := in(is.token(t, "ostium", "repo:acme/app"))
	i.RoleArn = aws.String("arn:aws:iam::beta:role/ci")
	_, err = anon.AssumeRoleWithWebIdentity(ctx, i)
	wantCode(t, "another tenant's role", err, "InvalidIdentityToken")

	// A role trusting users does not let a web identity in.
	w.role(t, "users", trustOf("arn:aws:iam::acme:root", ""), 0)
	i = in(is.token(t, "ostium", "repo:acme/app"))
	i.RoleArn = aws.String("arn:aws:iam::acme:role/users")
	_, err = anon.AssumeRoleWithWebIdentity(ctx, i)
	wantCode(t, "a role not trusting the provider", err, "AccessDenied")

	// A node whose oidc_allow_networks does not hold loopback does not
	// reach the provider, registered or not.
	other := nodetest.StartPeer(t, w.srv, nodetest.Options{})
	_, err = stsClient(other, "", "", "").AssumeRoleWithWebIdentity(ctx, in(is.token(t, "ostium", "repo:acme/app")))
	wantCode(t, "the provider on loopback, not allowed", err, "IDPCommunicationError")
}
