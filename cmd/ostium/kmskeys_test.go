package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// ostium admin tenant key ... and master-key rotate against a node: keys
// named by alias or id, destroy only with --yes.
func TestAdminTenantKeys(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	cli := func(v any, args ...string) string {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
		if v != nil {
			if err := json.Unmarshal([]byte(out), v); err != nil {
				t.Fatalf("%q: %v\n%s", args, err, out)
			}
		}
		return out
	}
	cli(nil, "admin", "tenant", "create", "acme")
	var k kms.KeyInfo
	cli(&k, "admin", "--json", "tenant", "key", "create", "acme", "alias/app")
	if k.Alias != "app" || k.Versions != 1 {
		t.Fatalf("created %+v", k)
	}
	var r kms.KeyInfo
	cli(&r, "admin", "--json", "tenant", "key", "rotate", "acme", "alias/app")
	if r.ID != k.ID || r.Versions != 2 {
		t.Fatalf("rotated %+v", r)
	}
	cli(&r, "admin", "--json", "tenant", "key", "disable", "acme", k.ID)
	if r.State != "disabled" {
		t.Fatalf("disabled %+v", r)
	}
	cli(nil, "admin", "tenant", "key", "enable", "acme", "alias/app")
	if out, err := runCLI(t, "admin", "tenant", "key", "destroy", "acme", "alias/app"); err == nil || !strings.Contains(err.Error()+out, "--yes") {
		t.Fatalf("destroy without --yes: %v\n%s", err, out)
	}
	if out := cli(nil, "admin", "tenant", "key", "list", "acme"); !strings.Contains(out, k.ID) || !strings.Contains(out, "enabled") {
		t.Fatalf("list after a refused destroy:\n%s", out)
	}
	cli(&r, "admin", "--json", "tenant", "key", "destroy", "acme", "alias/app", "--yes")
	if r.State != "destroyed" {
		t.Fatalf("destroyed %+v", r)
	}
	if out, err := runCLI(t, "admin", "tenant", "key", "rotate", "acme", "alias/nope"); err == nil || !strings.Contains(err.Error()+out, "no key alias/nope") {
		t.Fatalf("rotate of an unknown alias: %v\n%s", err, out)
	}
	var mr kms.MasterRotation
	cli(&mr, "admin", "--json", "master-key", "rotate")
	if mr.Version != 2 {
		t.Fatalf("master-key rotate: %+v", mr)
	}
}
