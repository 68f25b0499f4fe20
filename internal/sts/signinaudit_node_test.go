package sts_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// Every sign-in is audited with its outcome, refused ones too: when the
// directory is dead, a directory sign-in to the console and a bind
// through AssumeRoleWithLDAPIdentity are refused with
// DirectoryUnavailable, and the log says so (who tried, and why it
// failed), beside the successes and wrong passwords before it.
func TestSignInsRefusedByADeadDirectoryAreAudited(t *testing.T) {
	sl, srv, c := startDirectoryNode(t, map[string]any{"timeout_seconds": 2})
	syncNow(t, c)
	browser := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	browser.MustSignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "bob", "password": testenv.SlapdUserPass})
	if a := assumeLDAP(t, srv, ldapForm(tenant+`\bob`, testenv.SlapdUserPass)); a.Status != http.StatusOK {
		t.Fatalf("bind: %d %s", a.Status, a.Body)
	}
	sl.Stop()
	other := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := other.SignIn(map[string]string{"method": "directory", "tenant": tenant, "user": "bob", "password": testenv.SlapdUserPass}); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("console sign-in with a dead directory: %d %s", r.Status, r.Body)
	}
	if a := assumeLDAP(t, srv, ldapForm(tenant+`\bob`, testenv.SlapdUserPass)); a.Status != http.StatusServiceUnavailable {
		t.Fatalf("bind with a dead directory: %d %s", a.Status, a.Body)
	}
	var page admin.AuditPage
	must(t, c.Do(context.Background(), "GET", "/audit?limit=1000", nil, &page))
	seen := map[string]int{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Tenant+" "+e.User+" "+e.Outcome]++
	}
	for _, want := range []string{"console:SignIn acme bob ok", "sts:AssumeRoleWithLDAPIdentity acme bob ok",
		"console:SignIn acme bob DirectoryUnavailable", "sts:AssumeRoleWithLDAPIdentity acme bob DirectoryUnavailable"} {
		if seen[want] == 0 {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
}
