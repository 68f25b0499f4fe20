package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	pf "github.com/ostiumio/ostium/internal/platform"
)

// The platforms of storage classes through `ostium admin`: the
// provider's map and a tenant's, and a map the node refuses.
func TestAdminStorageClasses(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.Platforms = map[string]pf.Spec{
			"fast": {Type: pf.TypeFS, Path: filepath.Join(c.DataDir, "fast")},
			"cold": {Type: pf.TypeFS, Path: filepath.Join(c.DataDir, "cold")},
		}
		c.DefaultPlatform = "fast"
	}})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	cli := func(v any, args ...string) {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	var m struct{ Classes map[string]string }
	cli(&m, "admin", "--json", "storage-class", "set", "standard_ia=cold,GLACIER_IR=cold")
	if len(m.Classes) != 2 || m.Classes["STANDARD_IA"] != "cold" {
		t.Fatalf("set: %+v", m)
	}
	cli(&m, "admin", "--json", "storage-class", "list")
	if m.Classes["GLACIER_IR"] != "cold" {
		t.Fatalf("list: %+v", m)
	}
	cli(&struct{}{}, "admin", "--json", "tenant", "create", "acme")
	var ten struct {
		StorageClasses map[string]string `json:"storage_classes"`
	}
	cli(&ten, "admin", "--json", "tenant", "classes", "acme", "STANDARD_IA=fast")
	if ten.StorageClasses["STANDARD_IA"] != "fast" {
		t.Fatalf("tenant classes: %+v", ten)
	}
	ten.StorageClasses = nil
	cli(&ten, "admin", "--json", "tenant", "classes", "acme")
	if len(ten.StorageClasses) != 0 {
		t.Fatalf("tenant classes cleared: %+v", ten)
	}
	for _, args := range [][]string{
		{"admin", "tenant", "classes", "acme", "STANDARD_IA"},
		{"admin", "tenant", "classes", "acme", "GLACIER=cold"},
		{"admin", "storage-class", "set", "STANDARD_IA=tape"},
	} {
		if out, err := runCLI(t, args...); err == nil {
			t.Errorf("%q passed: %s", args, out)
		} else if !strings.Contains(err.Error()+out, "STANDARD_IA") && !strings.Contains(err.Error()+out, "GLACIER") {
			t.Errorf("%q: %v %s", args, err, out)
		}
	}
	// The table form, for people.
	if out, err := runCLI(t, "admin", "storage-class", "list"); err != nil || !strings.Contains(out, "cold") {
		t.Errorf("table: %v\n%s", err, out)
	}
}
