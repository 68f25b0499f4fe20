package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// `ostium admin directory` connects a tenant to a real slapd (the CA and
// bind password read from files, never arguments), syncs it, and lists
// its users and groups with their roles.
func TestAdminDirectoryCommands(t *testing.T) {
	sl := testenv.StartSlapd(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	if out, err := runCLI(t, "admin", "tenant", "create", "acme"); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, out)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte(sl.CA), 0o600); err != nil {
		t.Fatal(err)
	}
	old := passwordInput
	defer func() { passwordInput = old }()
	passwordInput = strings.NewReader(testenv.SlapdReaderPass + "\n")
	out, err := runCLI(t, "admin", "--json", "directory", "put", "acme", "--url", sl.LDAP, "--start-tls", "--ca-file", ca,
		"--bind-dn", testenv.SlapdReaderDN, "--bind-password-file", "-", "--user-base", testenv.SlapdPeople, "--group-base", testenv.SlapdGroups,
		"--disabled-attribute", "employeeType", "--disabled-value", "disabled",
		"--admin-groups", testenv.SlapdAdminsGroup, "--user-groups", testenv.SlapdUsersGroup, "--sync-interval", "2h",
		"--iam-group", "cn=devs,"+testenv.SlapdGroups+":devs", "--iam-group", "ops:ops-team")
	if err != nil {
		t.Fatalf("put: %v\n%s", err, out)
	}
	if strings.Contains(out, testenv.SlapdReaderPass) {
		t.Fatal("the bind password is printed")
	}
	var d struct {
		Config struct {
			StartTLS    bool              `json:"start_tls"`
			SyncSeconds int               `json:"sync_seconds"`
			AdminGroups []string          `json:"admin_groups"`
			IAMGroups   map[string]string `json:"iam_groups"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || !d.Config.StartTLS || d.Config.SyncSeconds != 7200 || len(d.Config.AdminGroups) != 1 ||
		len(d.Config.IAMGroups) != 2 || d.Config.IAMGroups["cn=devs,"+testenv.SlapdGroups] != "devs" || d.Config.IAMGroups["ops"] != "ops-team" {
		t.Fatalf("put printed %s (%v)", out, err)
	}
	// The node's job may be syncing the new directory: 409 SyncRunning
	// then, and the sync is run again.
	for i := 0; ; i++ {
		out, err = runCLI(t, "admin", "directory", "sync", "acme")
		if err == nil || !strings.Contains(out+err.Error(), "SyncRunning") || i == 50 {
			break
		}
	}
	if err != nil {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	out, err = runCLI(t, "admin", "directory", "users", "acme")
	if err != nil || !strings.Contains(out, "alice") || !strings.Contains(out, "carol") || strings.Contains(out, "erin") || strings.Contains(out, "dave") {
		t.Fatalf("users: %v\n%s", err, out)
	}
	out, err = runCLI(t, "admin", "directory", "groups", "acme")
	if err != nil || !strings.Contains(out, testenv.SlapdAdminsGroup) || !strings.Contains(out, "admin") {
		t.Fatalf("groups: %v\n%s", err, out)
	}
	if out, err = runCLI(t, "admin", "directory", "show", "acme"); err != nil || !strings.Contains(out, sl.LDAP) {
		t.Fatalf("show: %v\n%s", err, out)
	}
	if out, err = runCLI(t, "admin", "directory", "delete", "acme"); err != nil {
		t.Fatalf("delete: %v\n%s", err, out)
	}
	if out, err = runCLI(t, "admin", "directory", "show", "acme"); err == nil || !strings.Contains(out+err.Error(), "NoSuchDirectory") {
		t.Fatalf("show after delete: %v\n%s", err, out)
	}
}
