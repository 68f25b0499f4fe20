package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestAdminReplicationTarget registers a tenant's remote target from the
// command line with its secret piped (never an argument), lists it
// (without the secret), and removes it; the catalog keeps the secret
// sealed under the node key, bound to the target.
func TestAdminReplicationTarget(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	t.Setenv("OSTIUM_TARGET_SECRET_KEY", "")
	if out, err := runCLI(t, "admin", "tenant", "create", "acme"); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, out)
	}
	old := passwordInput
	defer func() { passwordInput = old }()
	passwordInput = strings.NewReader("remote-secret\n")
	out, err := runCLI(t, "admin", "--json", "replication", "target", "add", "site2", "https://s3.site2.example",
		"--target-access-key", "AKREMOTE", "--region", "eu-west-1", "--path-style", "--tenant", "acme")
	if err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	var tg struct{ ARN, Endpoint string }
	if err := json.Unmarshal([]byte(out), &tg); err != nil || tg.ARN != "arn:ostium:replication::site2:BUCKET" || strings.Contains(out, "remote-secret") {
		t.Fatalf("add printed %s (%v)", out, err)
	}
	stored, err := srv.Node.Catalog.GetReplicationTarget(context.Background(), "acme", "site2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored.SecretSealed), "remote-secret") || !stored.PathStyle || stored.Region != "eu-west-1" {
		t.Fatalf("stored %+v", stored)
	}
	// Plain http to a network the node does not allow is refused.
	passwordInput = strings.NewReader("s\n")
	if out, err := runCLI(t, "admin", "replication", "target", "add", "plain", "http://192.0.2.1:9000", "--target-access-key", "k"); err == nil {
		t.Fatalf("plain http accepted: %s", out)
	}
	if out, err := runCLI(t, "admin", "replication", "target", "list", "--tenant", "acme"); err != nil || !strings.Contains(out, "site2") || strings.Contains(out, "remote-secret") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "replication", "target", "remove", "site2", "--tenant", "acme"); err != nil {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "replication", "target", "list", "--tenant", "acme"); err != nil || strings.Contains(out, "site2") {
		t.Fatalf("list after remove: %v\n%s", err, out)
	}
}
