package sts_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsiam "github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/oidc"
)

// A web identity token through the whole node, as an attacker would
// send it: signed by another key under the provider's kid, with alg
// none, HS256 keyed with the provider's public key, expired, not yet
// valid, for another audience or issuer; each gets nothing. A token
// replayed after the role's trust policy stops naming the provider, or
// after the provider is removed, gets nothing either, and credentials
// it got before lose the role's permission the moment it is taken from
// the role. As on AWS, a trust policy's change decides only new
// sessions: credentials issued before it keep the role's permissions.
func TestWebIdentityHostileTokensAndRevocation(t *testing.T) {
	is := newIssuer(t)
	w := newWorld(t, nodetest.Options{Config: func(c *node.Config) { c.STS.OIDCAllowNetworks = []string{"127.0.0.0/8"} }})
	host := strings.TrimPrefix(is.srv.URL, "https://")
	anon := stsClient(w.srv, "", "", "")
	in := func(tok string) *sts.AssumeRoleWithWebIdentityInput {
		return &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String("arn:aws:iam::acme:role/ci"), RoleSessionName: aws.String("job-1"), WebIdentityToken: aws.String(tok)}
	}
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::acme:oidc-provider/` + host +
		`"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"` + host + `:aud":"ostium"}}}]}`
	w.role(t, "ci", trust, 0)
	prov, err := w.annIAM.CreateOpenIDConnectProvider(ctx, &awsiam.CreateOpenIDConnectProviderInput{Url: aws.String(is.srv.URL),
		ClientIDList: []string{"ostium"}, ThumbprintList: []string{oidc.Thumbprint([]*x509.Certificate{is.srv.Certificate()})}})
	must(t, err)

	sign := func(alg jose.SignatureAlgorithm, key any, c jwt.Claims) string {
		t.Helper()
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
		must(t, err)
		raw, err := jwt.Signed(s).Claims(c).Serialize()
		must(t, err)
		return raw
	}
	now := time.Now()
	claims := func(edit func(*jwt.Claims)) jwt.Claims {
		c := jwt.Claims{Issuer: is.srv.URL, Audience: jwt.Audience{"ostium"}, Subject: "repo:acme/app",
			IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
		if edit != nil {
			edit(&c)
		}
		return c
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	pub, err := x509.MarshalPKIXPublicKey(&is.key.PublicKey)
	must(t, err)
	good := sign(jose.ES256, is.key, claims(nil))
	parts := strings.Split(good, ".")
	for name, c := range map[string]struct{ tok, want string }{
		"signed by another key under the provider's kid": {sign(jose.ES256, other, claims(nil)), "InvalidIdentityToken"},
		"alg none": {"eyJhbGciOiJub25lIiwia2lkIjoiayJ9." + parts[1] + ".", "InvalidIdentityToken"},
		"HS256 keyed with the provider's public key": {sign(jose.HS256, pub, claims(nil)), "InvalidIdentityToken"},
		"expired": {sign(jose.ES256, is.key, claims(func(c *jwt.Claims) {
			c.IssuedAt, c.Expiry = jwt.NewNumericDate(now.Add(-2*time.Hour)), jwt.NewNumericDate(now.Add(-time.Hour))
		})), "ExpiredTokenException"},
		"not yet valid":    {sign(jose.ES256, is.key, claims(func(c *jwt.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(30 * time.Minute)) })), "InvalidIdentityToken"},
		"another audience": {sign(jose.ES256, is.key, claims(func(c *jwt.Claims) { c.Audience = jwt.Audience{"someone-else"} })), "InvalidIdentityToken"},
		"another issuer":   {sign(jose.ES256, is.key, claims(func(c *jwt.Claims) { c.Issuer = "https://evil.example" })), "InvalidIdentityToken"},
	} {
		_, err := anon.AssumeRoleWithWebIdentity(ctx, in(c.tok))
		wantCode(t, name, err, c.want)
	}

	out, err := anon.AssumeRoleWithWebIdentity(ctx, in(good))
	must(t, err)
	s3c := s3Client(w.srv, out.Credentials)
	must(t, get(s3c, "in/a"))

	// The trust policy no longer names the provider: the token replayed
	// gets nothing; the session issued before keeps the role's rights.
	_, err = w.annIAM.UpdateAssumeRolePolicy(ctx, &awsiam.UpdateAssumeRolePolicyInput{RoleName: aws.String("ci"),
		PolicyDocument: aws.String(trustOf("arn:aws:iam::acme:user/bob", ""))})
	must(t, err)
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(good))
	wantCode(t, "the token replayed after the trust policy dropped its provider", err, "AccessDenied")
	must(t, get(s3c, "in/a"))
	// The role's permission taken away: the session stops at once.
	_, err = w.annIAM.DeleteRolePolicy(ctx, &awsiam.DeleteRolePolicyInput{RoleName: aws.String("ci"), PolicyName: aws.String("read")})
	must(t, err)
	wantCode(t, "the session after its role lost the permission", get(s3c, "in/a"), "AccessDenied")

	// The provider removed: a token replayed against a trust policy
	// naming it again gets nothing.
	_, err = w.annIAM.UpdateAssumeRolePolicy(ctx, &awsiam.UpdateAssumeRolePolicyInput{RoleName: aws.String("ci"), PolicyDocument: aws.String(trust)})
	must(t, err)
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(good))
	must(t, err)
	_, err = w.annIAM.DeleteOpenIDConnectProvider(ctx, &awsiam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: prov.OpenIDConnectProviderArn})
	must(t, err)
	_, err = anon.AssumeRoleWithWebIdentity(ctx, in(good))
	wantCode(t, "the token replayed after its provider was removed", err, "InvalidIdentityToken")
}

// Temporary credentials: a session of a role whose managed policy is
// detached loses it at once; a user's own policy allowing
// sts:AssumeRole does not open a role whose trust policy names another; a session token presented with another
// session's key (of its tenant or of another) is refused, as is the
// key without its own token; a role of another tenant whose trust
// policy names a user is not assumed by that user (a tenant's roles
// are for its own principals: across tenants AWS would ask both sides,
// Ostium refuses).
func TestTemporaryCredentialsHostile(t *testing.T) {
	w := newWorld(t, nodetest.Options{})
	arn := w.role(t, "reader", trustOf("arn:aws:iam::acme:user/bob", ""), 0)
	_, err := w.annIAM.DeleteRolePolicy(ctx, &awsiam.DeleteRolePolicyInput{RoleName: aws.String("reader"), PolicyName: aws.String("read")})
	must(t, err)
	mp, err := w.annIAM.CreatePolicy(ctx, &awsiam.CreatePolicyInput{PolicyName: aws.String("read-data"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"}]}`)})
	must(t, err)
	_, err = w.annIAM.AttachRolePolicy(ctx, &awsiam.AttachRolePolicyInput{RoleName: aws.String("reader"), PolicyArn: mp.Policy.Arn})
	must(t, err)
	first, err := w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("one")})
	must(t, err)
	second, err := w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("two")})
	must(t, err)
	must(t, get(s3Client(w.srv, first.Credentials), "in/a"))

	// zed, beta's admin, gets a session of a beta role.
	zedIAM := iamClient(w.srv, w.keys["zed"][0], w.keys["zed"][1])
	_, err = zedIAM.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("beta-role"), AssumeRolePolicyDocument: aws.String(trustOf("arn:aws:iam::beta:user/zed", ""))})
	must(t, err)
	zs, err := w.zed.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::beta:role/beta-role"), RoleSessionName: aws.String("zz")})
	must(t, err)

	swap := func(key, token *types.Credentials) *types.Credentials {
		return &types.Credentials{AccessKeyId: key.AccessKeyId, SecretAccessKey: key.SecretAccessKey, SessionToken: token.SessionToken}
	}
	wantCode(t, "the second session's token with the first's key", get(s3Client(w.srv, swap(first.Credentials, second.Credentials)), "in/a"), "InvalidToken")
	wantCode(t, "beta's session token with acme's session key", get(s3Client(w.srv, swap(first.Credentials, zs.Credentials)), "in/a"), "InvalidToken")
	wantCode(t, "acme's session token with beta's session key", get(s3Client(w.srv, swap(zs.Credentials, first.Credentials)), "in/a"), "InvalidToken")
	wantCode(t, "a session's token with a permanent key", get(s3Client(w.srv, &types.Credentials{AccessKeyId: aws.String(w.keys["bob"][0]),
		SecretAccessKey: aws.String(w.keys["bob"][1]), SessionToken: first.Credentials.SessionToken}), "in/a"), "InvalidToken")
	wantCode(t, "a session's key without its token", get(s3Client(w.srv, swap(first.Credentials, &types.Credentials{})), "in/a"), "InvalidAccessKeyId")
	_, err = stsClient(w.srv, aws.ToString(first.Credentials.AccessKeyId), aws.ToString(first.Credentials.SecretAccessKey),
		aws.ToString(second.Credentials.SessionToken)).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantCode(t, "STS with another session's token", err, "InvalidClientTokenId")

	// A beta role trusting acme's bob by name: bob is still refused.
	_, err = zedIAM.CreateRole(ctx, &awsiam.CreateRoleInput{RoleName: aws.String("for-bob"), AssumeRolePolicyDocument: aws.String(trustOf("arn:aws:iam::acme:user/bob", ""))})
	must(t, err)
	_, err = w.bob.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::beta:role/for-bob"), RoleSessionName: aws.String("xx")})
	wantCode(t, "another tenant's role trusting bob by name", err, "AccessDenied")
	// Nor may a session of acme's role.
	_, err = stsClient(w.srv, aws.ToString(first.Credentials.AccessKeyId), aws.ToString(first.Credentials.SecretAccessKey),
		aws.ToString(first.Credentials.SessionToken)).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::beta:role/for-bob"), RoleSessionName: aws.String("xx")})
	wantCode(t, "acme's role session, for beta's role", err, "AccessDenied")

	// An identity policy allowing sts:AssumeRole does not open a role
	// whose trust policy names someone else (cy's own policy allows it
	// on every role; the trust names bob).
	_, err = w.annIAM.PutUserPolicy(ctx, &awsiam.PutUserPolicyInput{UserName: aws.String("cy"), PolicyName: aws.String("assume"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}]}`)})
	must(t, err)
	_, err = w.cy.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("cy")})
	wantCode(t, "cy, allowed sts:AssumeRole by her policy, for a role trusting bob", err, "AccessDenied")

	// The managed policy detached from the role: its sessions lose it
	// at once.
	_, err = w.annIAM.DetachRolePolicy(ctx, &awsiam.DetachRolePolicyInput{RoleName: aws.String("reader"), PolicyArn: mp.Policy.Arn})
	must(t, err)
	wantCode(t, "the session after its role's policy was detached", get(s3Client(w.srv, first.Credentials), "in/a"), "AccessDenied")
}
