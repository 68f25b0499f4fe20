package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestAdminCatalog publishes, shows, lists and unpublishes a content
// library from the command line; a protected one's password is piped
// and stored as its argon2id hash.
func TestAdminCatalog(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	if out, err := runCLI(t, "admin", "tenant", "create", "acme"); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, out)
	}
	ctx := context.Background()
	if err := srv.Node.Catalog.CreateBucket(ctx, catalog.Bucket{Name: "images", Tenant: "acme", Owner: "o", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}

	old := passwordInput
	defer func() { passwordInput = old }()
	passwordInput = strings.NewReader("correct horse battery\n")
	out, err := runCLI(t, "admin", "--json", "catalog", "publish", "acme", "golden", "--bucket", "images", "--prefix", "templates/",
		"--description", "Golden images", "--auth-user", "subscriber")
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	var c struct {
		URL       string `json:"url"`
		Protected bool   `json:"protected"`
		Prefix    string `json:"prefix"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.URL != "/catalogs/acme/golden/lib.json" || !c.Protected || c.Prefix != "templates/" {
		t.Fatalf("publish printed %s (%v)", out, err)
	}
	p, err := srv.Node.Catalog.(catalog.Publications).GetPublication(ctx, "acme", "golden")
	if err != nil {
		t.Fatal(err)
	}
	if p.User != "subscriber" || !iam.CheckPassword(p.PasswordHash, "correct horse battery") {
		t.Fatalf("stored %+v: want the user and the password's hash", p)
	}
	for _, args := range [][]string{{"admin", "catalog", "get", "acme", "golden"}, {"admin", "catalog", "list", "acme"}} {
		if out, err := runCLI(t, args...); err != nil || !strings.Contains(out, "golden") || !strings.Contains(out, "/catalogs/acme/golden/lib.json") {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	if out, err := runCLI(t, "admin", "catalog", "unpublish", "acme", "golden"); err != nil {
		t.Fatalf("unpublish: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "catalog", "get", "acme", "golden"); err == nil || !strings.Contains(err.Error(), "NoSuchCatalog") {
		t.Fatalf("get after unpublish: %v\n%s", err, out)
	}
}
