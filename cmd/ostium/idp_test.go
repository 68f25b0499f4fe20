package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// `ostium admin idp` registers a tenant's identity provider and the
// provider's own (the client secret read from standard input, never an
// argument, and never printed), lists, shows and deletes them; the
// provider's own without a tenant claim is refused.
func TestAdminIdPCommands(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	if out, err := runCLI(t, "admin", "tenant", "create", "acme"); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, out)
	}
	old := passwordInput
	defer func() { passwordInput = old }()
	passwordInput = strings.NewReader("kc-client-secret\n")
	out, err := runCLI(t, "admin", "--json", "idp", "put", "corp", "--tenant", "acme", "--display-name", "Acme SSO",
		"--issuer", "https://login.acme.example/realms/staff", "--client-id", "ostium", "--client-secret-file", "-",
		"--scopes", "profile,groups", "--admin-groups", "storage-admins", "--iam-group", "dev:developers", "--create-users")
	if err != nil {
		t.Fatalf("put: %v\n%s", err, out)
	}
	if strings.Contains(out, "kc-client-secret") {
		t.Fatal("the client secret is printed")
	}
	var p struct {
		Tenant string `json:"tenant"`
		Config struct {
			DisplayName string            `json:"display_name"`
			Scopes      []string          `json:"scopes"`
			AdminGroups []string          `json:"admin_groups"`
			IAMGroups   map[string]string `json:"iam_groups"`
			CreateUsers bool              `json:"create_users"`
			UserClaim   string            `json:"user_claim"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Tenant != "acme" || p.Config.DisplayName != "Acme SSO" || len(p.Config.Scopes) != 2 ||
		p.Config.AdminGroups[0] != "storage-admins" || p.Config.IAMGroups["dev"] != "developers" || !p.Config.CreateUsers || p.Config.UserClaim != "preferred_username" {
		t.Fatalf("put printed %s (%v)", out, err)
	}
	// The provider's own needs the claim that names the tenant.
	passwordInput = strings.NewReader("s\n")
	if out, err := runCLI(t, "admin", "idp", "put", "shared", "--issuer", "https://sso.example", "--client-id", "ostium", "--client-secret-file", "-"); err == nil ||
		!strings.Contains(out+err.Error(), "tenant_claim") {
		t.Fatalf("a provider-wide one without a tenant claim: %v\n%s", err, out)
	}
	passwordInput = strings.NewReader("s\n")
	if out, err := runCLI(t, "admin", "idp", "put", "shared", "--issuer", "https://sso.example", "--client-id", "ostium", "--client-secret-file", "-",
		"--tenant-claim", "ostium_tenant"); err != nil {
		t.Fatalf("provider-wide: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "idp", "list"); err != nil || !strings.Contains(out, "shared") || strings.Contains(out, "corp") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "idp", "list", "--tenant", "acme"); err != nil || !strings.Contains(out, "corp") || strings.Contains(out, "shared") {
		t.Fatalf("list --tenant: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "--json", "idp", "users", "acme"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("users: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "idp", "delete", "corp", "--tenant", "acme"); err != nil {
		t.Fatalf("delete: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "admin", "idp", "show", "corp", "--tenant", "acme"); err == nil || !strings.Contains(out+err.Error(), "NoSuchIdentityProvider") {
		t.Fatalf("show after delete: %v\n%s", err, out)
	}
}
