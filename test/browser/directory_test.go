package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// A directory user signs in to the console in Chromium with its
// directory password (the sign-in page's Directory choice): a wrong
// password is shown as refused, the right one opens its buckets, and
// it has no Account page (its password is the directory's to change).
func TestConsoleDirectorySignIn(t *testing.T) {
	browsertest.Need(t)
	sl := testenv.StartSlapd(t)
	srv := nodetest.Start(t, nodetest.Options{})
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	bg := context.Background()
	if err := c.Do(bg, "POST", "/tenants", map[string]string{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(bg, "PUT", "/tenants/acme/directory", map[string]any{"url": sl.LDAPS, "ca": sl.CA,
		"bind_dn": testenv.SlapdReaderDN, "bind_password": testenv.SlapdReaderPass, "user_base": testenv.SlapdPeople,
		"group_base": testenv.SlapdGroups, "admin_groups": []string{testenv.SlapdAdminsGroup}, "user_groups": []string{testenv.SlapdUsersGroup}}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t, 1280, 900)
	directorySignIn := func(user, password string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			browsertest.Click("signin-method-directory"),
			browsertest.Type("signin-tenant", "acme"),
			browsertest.Type("signin-user", user),
			browsertest.Type("signin-password", password),
			browsertest.Click("signin-submit"),
		)
	}
	browsertest.Step(t, ctx, "a wrong directory password", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		directorySignIn("bob", "wrong"),
		chromedp.WaitVisible(browsertest.T("signin-error")),
	)
	browsertest.Step(t, ctx, "the right one", 20*time.Second,
		directorySignIn("bob", testenv.SlapdUserPass),
		chromedp.WaitVisible(browsertest.T("nav-buckets")),
	)
	if js[bool](t, ctx, `!!document.querySelector('[data-testid="nav-account"]')`) {
		t.Fatal("a directory user is offered the Account page")
	}
	browsertest.CheckAxe(t, ctx, "buckets of a directory user")

	// alice, an admin by her directory group, sees the directory page,
	// syncs it now, and finds bob among its users.
	admin := browsertest.New(t, 1280, 900)
	browsertest.Step(t, admin, "an admin from the directory", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		directorySignIn("alice", testenv.SlapdUserPass),
		browsertest.Click("nav-directory"),
		chromedp.WaitVisible(browsertest.T("directory-facts")),
		browsertest.Click("directory-sync"),
		chromedp.WaitVisible(x(`//*[@data-testid="directory-users"]//td[normalize-space(.)="carol"]`)),
		chromedp.WaitVisible(x(`//*[@data-testid="directory-users"]//td[normalize-space(.)="bob"]`)),
	)
	browsertest.CheckAxe(t, admin, "directory page")
	if js[bool](t, admin, `!!document.querySelector('[data-testid="directory-last-sync"]') && document.querySelector('[data-testid="directory-last-sync"]').textContent === 'not yet'`) {
		t.Fatal("the page shows no sync after Sync now")
	}
}
