package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestAdminUserPassword sets a password from the command line (piped,
// as a script would): the catalog holds its argon2id hash, marked to be
// changed, and a short one is refused with the API's error.
func TestAdminUserPassword(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	for _, args := range [][]string{{"admin", "tenant", "create", "acme"}, {"admin", "user", "create", "acme", "alice"}} {
		if out, err := runCLI(t, args...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	old := passwordInput
	defer func() { passwordInput = old }()
	passwordInput = strings.NewReader("short\n")
	if out, err := runCLI(t, "admin", "user", "password", "acme", "alice"); err == nil || !strings.Contains(err.Error(), "InvalidPassword") {
		t.Fatalf("a short password: %v\n%s", err, out)
	}
	passwordInput = strings.NewReader("correct horse battery\n")
	if out, err := runCLI(t, "admin", "user", "password", "acme", "alice"); err != nil {
		t.Fatalf("set password: %v\n%s", err, out)
	}
	p, err := srv.Node.Catalog.(catalog.Console).GetPassword(context.Background(), "acme", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Hash, "$argon2id$") || !iam.CheckPassword(p.Hash, "correct horse battery") || !p.MustChange {
		t.Fatalf("stored %+v: want the argon2id hash of the password, to be changed", p)
	}
}

// TestAdminAppCredExpires: `appcred create --expires` makes a credential
// that stops working then.
func TestAdminAppCredExpires(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	for _, args := range [][]string{{"admin", "tenant", "create", "acme"}, {"admin", "user", "create", "acme", "alice"}} {
		if out, err := runCLI(t, args...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	// The bucket must be the tenant's, and exist.
	if _, err := runCLI(t, "admin", "appcred", "create", "acme", "alice", "--bucket", "photos"); err == nil || !strings.Contains(err.Error(), "NoSuchBucket") {
		t.Fatalf("a credential for a bucket that does not exist: %v", err)
	}
	out, err := runCLI(t, "admin", "--json", "key", "create", "acme", "alice")
	var ak admin.Key
	if err != nil || json.Unmarshal([]byte(out), &ak) != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	alice := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(ak.AccessKey, ak.SecretKey, "")})
	if _, err := alice.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String("photos")}); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "admin", "--json", "appcred", "create", "acme", "alice", "--bucket", "photos", "--expires", "2h")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var k struct {
		Expires time.Time `json:"expires"`
	}
	if err := json.Unmarshal([]byte(out), &k); err != nil {
		t.Fatal(err)
	}
	if d := time.Until(k.Expires); d < 119*time.Minute || d > 2*time.Hour {
		t.Fatalf("expires %v, in %v; want 2 h", k.Expires, d)
	}
}
