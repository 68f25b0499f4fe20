package s3_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// stsClient is an aws-sdk-go-v2 STS client of srv signing with creds
// (access key, secret and perhaps a session token; none: anonymous).
func stsClient(srv *nodetest.Server, creds ...string) *sts.Client {
	o := sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client()}
	switch len(creds) {
	case 0:
		o.Credentials = aws.AnonymousCredentials{}
	case 2:
		o.Credentials = credentials.NewStaticCredentialsProvider(creds[0], creds[1], "")
	default:
		o.Credentials = credentials.NewStaticCredentialsProvider(creds[0], creds[1], creds[2])
	}
	return sts.New(o)
}

// tempS3 is an S3 client of srv with temporary credentials (token "" =
// sent without one).
func tempS3(t *testing.T, srv *nodetest.Server, ak, sk, token string) *s3.Client {
	c := client(t, srv, srv.URL, false, ak, sk)
	return s3.New(c.Options(), func(o *s3.Options) { o.Credentials = credentials.NewStaticCredentialsProvider(ak, sk, token) })
}

// stsCode is the error code of an STS (or S3) call, "" if none.
func stsCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// userKey creates a user of tenant with a key and returns the key.
func userKey(t *testing.T, ten *tenancy, tenant, user, role string) admin.Key {
	t.Helper()
	ctx := context.Background()
	if err := ten.admin.Do(ctx, "POST", "/tenants/"+tenant+"/users", map[string]string{"name": user, "role": role}, nil); err != nil {
		t.Fatal(err)
	}
	var k admin.Key
	if err := ten.admin.Do(ctx, "POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil, &k); err != nil {
		t.Fatal(err)
	}
	return k
}

// GetSessionToken and GetCallerIdentity through the SDK, then S3 with
// the temporary credentials in every form SigV4 takes (header-signed,
// aws-chunked with a trailer, presigned, a POST policy), and AWS's
// answers to a missing, wrong or misplaced token.
func TestSTSSessionTokenThroughS3(t *testing.T) {
	ten := newTenancy(t)
	srv := ten.srv
	ctx := context.Background()
	var bob admin.Key
	if err := ten.admin.Do(ctx, "POST", "/tenants/acme/users/bob/keys", nil, &bob); err != nil {
		t.Fatal(err)
	}
	perm := stsClient(srv, bob.AccessKey, bob.SecretKey)

	who, err := perm.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(who.Account) != "acme" || aws.ToString(who.Arn) != "arn:aws:iam::acme:user/bob" || aws.ToString(who.UserId) == "" {
		t.Fatalf("GetCallerIdentity = %s %s %s", aws.ToString(who.Account), aws.ToString(who.Arn), aws.ToString(who.UserId))
	}
	// DurationSeconds within AWS's bounds for a user: 900 to 129600.
	for _, d := range []int32{899, 129601} {
		_, err := perm.GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(d)})
		if stsCode(err) != "ValidationError" {
			t.Errorf("DurationSeconds %d: %v", d, err)
		}
	}
	def, err := perm.GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(aws.ToTime(def.Credentials.Expiration)); left < 11*time.Hour || left > 12*time.Hour+time.Minute {
		t.Errorf("default duration: expires in %v, want 12 hours", left)
	}
	out, err := perm.GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatal(err)
	}
	cr := out.Credentials
	ak, sk, tok := aws.ToString(cr.AccessKeyId), aws.ToString(cr.SecretAccessKey), aws.ToString(cr.SessionToken)
	if !strings.HasPrefix(ak, "ASIA") || sk == "" || tok == "" {
		t.Fatalf("credentials %q %q %q", ak, sk, tok)
	}
	if left := time.Until(aws.ToTime(cr.Expiration)); left < 13*time.Minute || left > 16*time.Minute {
		t.Errorf("DurationSeconds 900: expires in %v", left)
	}

	// The session acts as bob: its caller identity, its buckets.
	temp := stsClient(srv, ak, sk, tok)
	if w, err := temp.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil || aws.ToString(w.Arn) != "arn:aws:iam::acme:user/bob" {
		t.Fatalf("GetCallerIdentity with the session: %v %v", w, err)
	}
	if _, err := temp.GetSessionToken(ctx, &sts.GetSessionTokenInput{}); stsCode(err) != "AccessDenied" {
		t.Errorf("GetSessionToken with session credentials: %v, want AccessDenied as AWS", err)
	}
	c := tempS3(t, srv, ak, sk, tok)
	data := []byte("written with temporary credentials")
	// Over TLS the SDK streams aws-chunked with a trailing checksum.
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("temp"), Body: bytes.NewReader(data)}); err != nil {
		t.Fatalf("chunked PUT: %v", err)
	}
	if got := get(t, c, "acme-bob", "temp"); !bytes.Equal(got, data) {
		t.Fatalf("GET: %q", got)
	}
	// The session is bob's, not a way into another's bucket.
	if _, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String("k")}); stsCode(err) != "AccessDenied" {
		t.Errorf("another tenant's bucket: %v", err)
	}

	// Presigned: the token travels in the query.
	ps, err := s3.NewPresignClient(c).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("temp")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ps.URL, "X-Amz-Security-Token=") {
		t.Fatalf("presigned URL without its token: %s", ps.URL)
	}
	if code, body := httpGet(t, srv, ps.URL); code != 200 || !bytes.Equal(body, data) {
		t.Fatalf("presigned GET: %d %s", code, body)
	}
	pc := s3.NewPresignClient(c)
	pp, err := pc.PresignPostObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("form")})
	if err != nil {
		t.Fatal(err)
	}
	var fields []field
	for k, v := range pp.Values {
		fields = append(fields, field{k, v})
	}
	if resp, body := postForm(t, srv, pp.URL, fields, "f.txt", strings.NewReader("posted")); resp.StatusCode != 204 {
		t.Fatalf("POST policy form: %d %s", resp.StatusCode, body)
	}
	if got := get(t, c, "acme-bob", "form"); string(got) != "posted" {
		t.Fatalf("posted object: %q", got)
	}

	// A wrong token in each form: InvalidToken (400), as S3.
	bad := tempS3(t, srv, ak, sk, tok+"x")
	_, err = bad.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidToken")
	_, err = bad.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("x"), Body: bytes.NewReader(data)})
	wantCode(t, err, "InvalidToken")
	bps, err := s3.NewPresignClient(bad).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("temp")})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, srv, bps.URL); code != 400 || !strings.Contains(string(body), "<Code>InvalidToken</Code>") {
		t.Errorf("presigned with another token: %d %s", code, body)
	}
	badFields := append([]field(nil), fields...)
	for i, f := range badFields {
		if strings.EqualFold(f.name, "x-amz-security-token") {
			badFields[i].value = tok + "x"
		}
	}
	if resp, body := postForm(t, srv, pp.URL, badFields, "f.txt", strings.NewReader("posted")); resp.StatusCode != 400 || !strings.Contains(string(body), "InvalidToken") {
		t.Errorf("POST form with another token: %d %s", resp.StatusCode, body)
	}
	// Temporary credentials without their token: AWS knows no such key.
	_, err = tempS3(t, srv, ak, sk, "").ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidAccessKeyId")
	var noTok []field
	for _, f := range fields {
		if !strings.EqualFold(f.name, "x-amz-security-token") {
			noTok = append(noTok, f)
		}
	}
	if resp, body := postForm(t, srv, pp.URL, noTok, "f.txt", strings.NewReader("posted")); resp.StatusCode != 403 {
		t.Errorf("POST form without its token: %d %s", resp.StatusCode, body)
	}
	// A permanent key with a token: InvalidToken.
	_, err = tempS3(t, srv, bob.AccessKey, bob.SecretKey, tok).ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidToken")
	// STS answers the same failures with its own codes, in its format.
	for name, cl := range map[string]*sts.Client{"no token": stsClient(srv, ak, sk, ""), "wrong token": stsClient(srv, ak, sk, tok+"x"),
		"permanent key with a token": stsClient(srv, bob.AccessKey, bob.SecretKey, tok)} {
		if _, err := cl.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); stsCode(err) != "InvalidClientTokenId" {
			t.Errorf("STS, %s: %v, want InvalidClientTokenId", name, err)
		}
	}
	if _, err := stsClient(srv, bob.AccessKey, "wrong-secret").GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); stsCode(err) != "SignatureDoesNotMatch" {
		t.Errorf("STS, wrong secret: %v", err)
	}
}

// Temporary credentials are for S3 and STS, which see their token: the
// admin API and the console's sign-in, which take none, do not know
// them (else a leaked key and secret would do without their token).
func TestSTSCredentialsOnlyWithTheirToken(t *testing.T) {
	ten := newTenancy(t)
	srv := ten.srv
	ctx := context.Background()
	ann := userKey(t, ten, "acme", "ann2", "admin")
	out, err := stsClient(srv, ann.AccessKey, ann.SecretKey).GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	if err != nil {
		t.Fatal(err)
	}
	ak, sk := aws.ToString(out.Credentials.AccessKeyId), aws.ToString(out.Credentials.SecretAccessKey)
	var users []admin.User
	if err := admin.NewClient(srv.URL, ann.AccessKey, ann.SecretKey, srv.Client()).Do(ctx, "GET", "/tenants/acme/users", nil, &users); err != nil || len(users) == 0 {
		t.Fatalf("the admin's own key on the admin API: %v %v", users, err)
	}
	if err := admin.NewClient(srv.URL, ak, sk, srv.Client()).Do(ctx, "GET", "/tenants/acme/users", nil, &users); err == nil {
		t.Error("the admin API took temporary credentials without their token")
	}
	signIn := func(ak, sk string) int {
		body, _ := json.Marshal(map[string]string{"access_key": ak, "secret_key": sk})
		req, _ := http.NewRequest("POST", srv.Console.URL+"/console/api/session", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Console.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := signIn(ann.AccessKey, ann.SecretKey); code != 200 {
		t.Fatalf("console sign-in with the permanent key: %d", code)
	}
	if code := signIn(ak, sk); code != 401 {
		t.Errorf("console sign-in with temporary credentials: %d, want 401", code)
	}
}

func httpGet(t *testing.T, srv *nodetest.Server, u string) (int, []byte) {
	t.Helper()
	resp, err := srv.Client().Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Unsigned calls: web identity sign-in takes its proof from the token (a
// token that is none is InvalidIdentityToken), the other sign-ins that
// carry their own proof are not built yet and say so; any other action
// is refused as AWS refuses it.
func TestSTSUnsigned(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true})
	ctx := context.Background()
	anon := stsClient(srv)
	if _, err := anon.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); stsCode(err) != "MissingAuthenticationToken" {
		t.Errorf("unsigned GetCallerIdentity: %v", err)
	}
	_, err := anon.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String("arn:aws:iam::acme:role/r"),
		RoleSessionName: aws.String("ss"), WebIdentityToken: aws.String("x.y.z")})
	if stsCode(err) != "InvalidIdentityToken" {
		t.Errorf("AssumeRoleWithWebIdentity: %v", err)
	}
	// MinIO's directory sign-in, unsigned as MinIO's clients send it: a
	// tenant without a directory signs no one in.
	for action, want := range map[string]string{"AssumeRoleWithLDAPIdentity": "403 AccessDenied", "GetSessionToken": "403 MissingAuthenticationToken"} {
		req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader("Action="+action+"&Version=2011-06-15&LDAPUsername=acme%5Cu&LDAPPassword=p"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		code, name, _ := strings.Cut(want, " ")
		if fmt.Sprint(resp.StatusCode) != code || !strings.Contains(string(b), "<Code>"+name+"</Code>") || !strings.Contains(string(b), "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">") {
			t.Errorf("unsigned %s: %d %s", action, resp.StatusCode, b)
		}
	}
	// The provider's root has no account to hold a session.
	if _, err := stsClient(srv, nodetest.AccessKey, nodetest.SecretKey).GetSessionToken(ctx, &sts.GetSessionTokenInput{}); stsCode(err) != "AccessDenied" {
		t.Errorf("root GetSessionToken: %v", err)
	}
}

// Expiry, with the issuing clock set back: credentials issued for the
// minimum 900 s sixteen minutes ago are refused with ExpiredToken by S3
// and by STS; and deleting the user ends its sessions at once.
func TestSTSExpiryAndUserDeletedOrDisabled(t *testing.T) {
	ten := newTenancy(t)
	srv := ten.srv
	ctx := context.Background()
	dee := userKey(t, ten, "acme", "dee", "user")

	past := *srv.Node.STS
	past.Now = func() time.Time { return time.Now().Add(-16 * time.Minute) }
	srv.Node.S3.Serve("sts", &past)
	old, err := stsClient(srv, dee.AccessKey, dee.SecretKey).GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatal(err)
	}
	oc := old.Credentials
	_, err = tempS3(t, srv, *oc.AccessKeyId, *oc.SecretAccessKey, *oc.SessionToken).ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "ExpiredToken")
	if _, err := stsClient(srv, *oc.AccessKeyId, *oc.SecretAccessKey, *oc.SessionToken).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); stsCode(err) != "ExpiredToken" {
		t.Errorf("STS with expired credentials: %v", err)
	}
	// Only the token's holder is told: another token is just invalid.
	_, err = tempS3(t, srv, *oc.AccessKeyId, *oc.SecretAccessKey, "other").ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidToken")

	srv.Node.S3.Serve("sts", srv.Node.STS)
	cur, err := stsClient(srv, dee.AccessKey, dee.SecretKey).GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatal(err)
	}
	cc := cur.Credentials
	c := tempS3(t, srv, *cc.AccessKeyId, *cc.SecretAccessKey, *cc.SessionToken)
	if _, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("live session: %v", err)
	}
	if _, err := stsClient(srv, *cc.AccessKeyId, *cc.SecretAccessKey, *cc.SessionToken).GetSessionToken(ctx, &sts.GetSessionTokenInput{}); stsCode(err) != "AccessDenied" {
		t.Errorf("GetSessionToken with a session: %v", err)
	}
	// Each issue of credentials is in the audit log, the refused one too.
	entries, err := srv.Node.Catalog.(catalog.AuditLog).ListAudit(ctx, catalog.AuditQuery{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	var issued []string
	for _, e := range entries {
		if e.Action == "sts:GetSessionToken" && e.User == "dee" && e.Target == "user/dee" && e.Source != "" {
			issued = append(issued, e.Outcome)
		}
	}
	if strings.Join(issued, ",") != "ok,ok,AccessDenied" {
		t.Errorf("audit entries of dee's GetSessionToken: %v (all: %+v)", issued, entries)
	}
	// A user its directory disabled loses its sessions, and gets them
	// back only with its return.
	dirs := srv.Node.Catalog.(catalog.Directories)
	// The change is the catalog's, as a sync on another node makes it:
	// this node sees it at its next poll of the identity generation.
	eventually := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
			if apiCode(err) == want || time.Now().After(deadline) {
				if apiCode(err) != want {
					t.Fatalf("want %q, got %v", want, err)
				}
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if err := dirs.SetUserDisabled(ctx, "acme", "dee", true); err != nil {
		t.Fatal(err)
	}
	eventually("InvalidAccessKeyId")
	if err := dirs.SetUserDisabled(ctx, "acme", "dee", false); err != nil {
		t.Fatal(err)
	}
	eventually("")
	if err := ten.admin.Do(ctx, "DELETE", "/tenants/acme/users/dee", nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidAccessKeyId")
	// A user of the same name made again is a new principal: the old
	// sessions do not come back.
	userKey(t, ten, "acme", "dee", "user")
	_, err = c.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidAccessKeyId")
}

// Temporary credentials issued through one node sign requests to another
// sharing the catalog, and deleting the user through the first ends them
// on the other within its poll of the identity generation, though the
// other cached them.
func TestSTSAcrossNodes(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	eve := userKey(t, ten, "acme", "eve", "user")
	peer := nodetest.StartPeer(t, ten.srv, nodetest.Options{TLS: true})
	out, err := stsClient(ten.srv, eve.AccessKey, eve.SecretKey).GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatal(err)
	}
	cr := out.Credentials
	onPeer := tempS3(t, peer, *cr.AccessKeyId, *cr.SecretAccessKey, *cr.SessionToken)
	if _, err := onPeer.ListBuckets(ctx, &s3.ListBucketsInput{}); err != nil {
		t.Fatalf("credentials of the first node on the peer: %v", err)
	}
	if w, err := stsClient(peer, *cr.AccessKeyId, *cr.SecretAccessKey, *cr.SessionToken).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil || aws.ToString(w.Arn) != "arn:aws:iam::acme:user/eve" {
		t.Fatalf("GetCallerIdentity on the peer: %v %v", w, err)
	}
	if err := ten.admin.Do(ctx, "DELETE", "/tenants/acme/users/eve", nil, nil); err != nil {
		t.Fatal(err)
	}
	within(t, 3*time.Second, func() bool {
		_, err := onPeer.ListBuckets(ctx, &s3.ListBucketsInput{})
		return apiCode(err) == "InvalidAccessKeyId"
	})
}
