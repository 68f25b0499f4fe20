package sts_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/testenv"
)

// One directory connected by two tenants, so that the same login (bob)
// is a user of each: his directory password gets him credentials of the
// tenant he names and only of it, whose keys and buckets are that
// tenant's. Then acme's directory dies (a server that accepts and
// never answers): bob's sign-in to acme fails within the directory's
// timeout, while S3 with his access key goes on answering at once, and
// beta's sign-in is not held up.
func TestDirectoryUserInTwoTenantsAndDeadDirectory(t *testing.T) {
	sl, srv, c := startDirectoryNode(t, nil)
	ctx := context.Background()
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "beta"}, nil))
	cfg := map[string]any{"url": sl.LDAPS, "ca": sl.CA, "bind_dn": testenv.SlapdReaderDN, "bind_password": testenv.SlapdReaderPass,
		"user_base": testenv.SlapdPeople, "group_base": testenv.SlapdGroups, "disabled_attribute": "employeeType", "disabled_value": "disabled",
		"admin_groups": []string{testenv.SlapdAdminsGroup}, "user_groups": []string{testenv.SlapdUsersGroup}, "timeout_seconds": 2}
	must(t, c.Do(ctx, "PUT", "/tenants/beta/directory", cfg, nil))

	who := func(a ldapAnswer) string {
		t.Helper()
		out, err := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client(), Retryer: aws.NopRetryer{},
			Credentials: credentials.NewStaticCredentialsProvider(a.Creds.AccessKeyID, a.Creds.SecretAccessKey, a.Creds.SessionToken)}).
			GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		must(t, err)
		return aws.ToString(out.Arn)
	}
	inAcme := assumeLDAP(t, srv, ldapForm(`acme\bob`, testenv.SlapdUserPass))
	inBeta := assumeLDAP(t, srv, ldapForm(`beta\bob`, testenv.SlapdUserPass))
	if inAcme.Status != http.StatusOK || inBeta.Status != http.StatusOK {
		t.Fatalf("bob's sign-ins: acme %d %s, beta %d %s", inAcme.Status, inAcme.Body, inBeta.Status, inBeta.Body)
	}
	if a, b := who(inAcme), who(inBeta); a != "arn:aws:iam::acme:user/bob" || b != "arn:aws:iam::beta:user/bob" {
		t.Fatalf("bob is %s and %s", a, b)
	}
	acme, beta := s3As(srv, inAcme), s3As(srv, inBeta)
	_, err := beta.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("beta-bob")})
	must(t, err)
	_, err = beta.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("beta-bob"), Key: aws.String("k"), Body: strings.NewReader("v")})
	must(t, err)
	_, err = acme.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("beta-bob"), Key: aws.String("k")})
	wantCode(t, "acme's bob, in beta's bob's bucket", err, "AccessDenied")
	// A key of acme's bob is acme's.
	var key admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/bob/keys", nil, &key))
	withKey := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, HTTPClient: srv.Client(), Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider(key.AccessKey, key.SecretKey, "")})
	_, err = withKey.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("beta-bob"), Key: aws.String("k")})
	wantCode(t, "acme's bob's key, in beta's bob's bucket", err, "AccessDenied")
	_, err = withKey.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-bob")})
	must(t, err)

	// acme's directory dies: it accepts and never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, conn)
			mu.Unlock()
		}
	}()
	dead := map[string]any{}
	for k, v := range cfg {
		dead[k] = v
	}
	dead["url"] = "ldaps://" + l.Addr().String()
	must(t, c.Do(ctx, "PUT", "/tenants/acme/directory", dead, nil))

	signIn := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		a := assumeLDAP(t, srv, ldapForm(`acme\bob`, testenv.SlapdUserPass))
		if a.Status == http.StatusOK {
			t.Errorf("a sign-in through a dead directory passed")
		}
		signIn <- time.Since(start)
	}()
	// While it waits, S3 with bob's key answers, and beta's directory
	// signs bob in.
	var slowest time.Duration
	for i := range 20 {
		start := time.Now()
		_, err := withKey.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("acme-bob")})
		must(t, err)
		slowest = max(slowest, time.Since(start))
		if i == 0 {
			if a := assumeLDAP(t, srv, ldapForm(`beta\bob`, testenv.SlapdUserPass)); a.Status != http.StatusOK {
				t.Errorf("beta's sign-in while acme's directory is dead: %d %s", a.Status, a.Body)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := <-signIn
	t.Logf("sign-in through the dead directory failed after %v (timeout 2 s); the slowest of 20 S3 requests meanwhile took %v", took.Round(time.Millisecond), slowest.Round(time.Millisecond))
	// Generous bounds: the machine is shared. Without the timeout the
	// sign-in would wait forever; S3 requests do not touch the directory.
	if took > 20*time.Second {
		t.Errorf("sign-in through a dead directory took %v, want about its 2 s timeout", took)
	}
	if slowest > 5*time.Second {
		t.Errorf("an S3 request with a key took %v while the directory was dead", slowest)
	}
}
