package browser_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

// oidcShots is where TestConsoleOIDCSignIn writes its screenshots of the
// sign-in page and the provider's ("" = nowhere).
var oidcShots = flag.String("oidc-screenshots", "", "write the OIDC sign-in's screenshots (PNG) into this directory")

// A tenant's person signs in to the console in Chromium through the
// tenant's identity provider, ORY Hydra: the sign-in page's "Sign in
// with" button, Hydra's login page, back in the console as the mapped
// user with the mapped role; sign-out ends the console session and
// reaches Hydra's logout, which sends the browser back to the console.
func TestConsoleOIDCSignIn(t *testing.T) {
	browsertest.Need(t)
	hy := testenv.StartHydra(t)
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.STS.OIDCAllowNetworks = []string{"127.0.0.0/8"} }})
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	bg := context.Background()
	if err := c.Do(bg, "POST", "/tenants", map[string]string{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	hy.CreateClient("ostium-console", "client-secret", []string{srv.Console.URL + "/console/api/oidc/callback"}, []string{srv.Console.URL + "/console/"})
	if err := c.Do(bg, "PUT", "/tenants/acme/idps/corp", map[string]any{"display_name": "Corp SSO", "issuer": hy.Issuer,
		"client_id": "ostium-console", "client_secret": "client-secret", "thumbprints": []string{hy.Thumbprint},
		"scopes": []string{"profile", "groups"}, "admin_groups": []string{"storage-admins"}, "create_users": true}, nil); err != nil {
		t.Fatal(err)
	}
	hy.AddUser("olga", testenv.HydraUser{Subject: "u-olga", Claims: map[string]any{"preferred_username": "olga", "groups": []string{"storage-admins"}}})

	// Chromium trusts Hydra's test certificate, and no other.
	ctx := browsertest.New(t, 1280, 900, chromedp.Flag("ignore-certificate-errors-spki-list", hy.SPKI))
	shot := func(name string) {
		if *oidcShots == "" {
			return
		}
		img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*oidcShots, name), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	browsertest.Step(t, ctx, "the tenant's sign-in page offers its provider", 20*time.Second,
		chromedp.Navigate(srv.Console.URL+"/console/?tenant=acme#/signin"),
		chromedp.WaitVisible(browsertest.T("signin-idp-acme-corp")),
	)
	if got := js[string](t, ctx, `document.querySelector('[data-testid="signin-idp-acme-corp"]').textContent`); got != "Sign in with Corp SSO" {
		t.Fatalf("the button says %q", got)
	}
	browsertest.CheckAxe(t, ctx, "sign-in page with an identity provider")
	shot("oidc-signin.png")
	browsertest.Step(t, ctx, "to the provider's login page", 30*time.Second,
		browsertest.Click("signin-idp-acme-corp"),
		chromedp.WaitVisible(chromedp.CSS("#username")),
	)
	shot("oidc-provider.png")
	browsertest.Step(t, ctx, "signed in at the provider, back in the console", 30*time.Second,
		chromedp.SendKeys(chromedp.CSS("#username"), "olga"),
		chromedp.Click(chromedp.CSS("#accept")),
		chromedp.WaitVisible(browsertest.T("nav-buckets")),
	)
	who, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`fetch('/console/api/session').then(r => r.json()).then(s => ({method: s.method, tenant: s.identity.tenant, user: s.identity.user, role: s.identity.role}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if who["method"] != "oidc" || who["tenant"] != "acme" || who["user"] != "olga" || who["role"] != "admin" {
		t.Fatalf("signed in as %v", who)
	}
	// olga, an admin by her group, manages the tenant's sign-in
	// providers: the secret is never on the page; a change keeps it.
	browsertest.Step(t, ctx, "the sign-in providers page", 20*time.Second,
		browsertest.Click("nav-idps"),
		chromedp.WaitVisible(x(`//*[@data-testid="idps"]//td[normalize-space(.)="corp"]`)),
	)
	browsertest.CheckAxe(t, ctx, "sign-in providers page")
	browsertest.Step(t, ctx, "a provider changed, its secret kept", 20*time.Second,
		browsertest.Click("idp-edit-corp"),
		browsertest.Type("idp-display-name", "Acme staff"),
		browsertest.Click("idp-dialog-submit"),
		chromedp.WaitVisible(x(`//*[@data-testid="idps"]//td[normalize-space(.)="Sign in with Acme staff"]`)),
	)
	if js[bool](t, ctx, `document.body.innerHTML.includes('client-secret')`) {
		t.Fatal("the client secret is on the page")
	}
	shot("oidc-providers.png")
	browsertest.Step(t, ctx, "sign-out reaches the provider's logout and comes back", 30*time.Second,
		browsertest.Click("signout"),
		chromedp.WaitVisible(browsertest.T("signin-form")),
	)
	if hy.Logouts() != 1 {
		t.Fatalf("Hydra's logout was reached %d times", hy.Logouts())
	}
	if status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch('/console/api/session').then(r => r.status)`, chromedp.EvalAwaitPromise)); err != nil || status != 401 {
		t.Fatal("the console session outlived sign-out")
	}
	// Signing in again exchanges a code with the secret kept through the
	// change.
	browsertest.Step(t, ctx, "signed in again with the changed provider", 40*time.Second,
		chromedp.Navigate(srv.Console.URL+"/console/?tenant=acme#/signin"),
		browsertest.Click("signin-idp-acme-corp"),
		chromedp.WaitVisible(chromedp.CSS("#username")),
		chromedp.SendKeys(chromedp.CSS("#username"), "olga"),
		chromedp.Click(chromedp.CSS("#accept")),
		chromedp.WaitVisible(browsertest.T("nav-buckets")),
	)
}

// The provider registers its own identity provider, for every tenant,
// on the console's provider pages: the form asks for the claim that
// names the tenant, the secret goes in and is never on the page, and a
// tenant admin's console cannot reach the provider's list.
func TestConsoleProviderIdPs(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	ctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, ctx, "sign in as the provider", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"), browsertest.SignInKey(nodetest.AccessKey, nodetest.SecretKey),
		chromedp.WaitReady(browsertest.T("nav-tenants")))
	browsertest.Step(t, ctx, "the provider's sign-in providers", 20*time.Second,
		browsertest.Click("nav-provider-idps"),
		chromedp.WaitVisible(browsertest.T("idp-add")),
		browsertest.Click("idp-add"),
		browsertest.Type("idp-name", "staff"),
		browsertest.Type("idp-issuer", "https://login.example.net/realms/staff"),
		browsertest.Type("idp-client-id", "ostium"),
		browsertest.Type("idp-client-secret", "s3cret-of-the-provider"),
		browsertest.Type("idp-tenant-claim", "ostium_tenant"),
		browsertest.Click("idp-dialog-submit"),
		chromedp.WaitVisible(x(`//*[@data-testid="idps"]//td[normalize-space(.)="ostium_tenant"]`)),
	)
	browsertest.CheckAxe(t, ctx, "provider's sign-in providers page")
	if js[bool](t, ctx, `document.body.innerHTML.includes('s3cret-of-the-provider')`) {
		t.Fatal("the client secret is on the page")
	}
	var got admin.IdentityProvider
	if err := c.Do(context.Background(), "GET", "/idps/staff", nil, &got); err != nil {
		t.Fatal(err)
	}
	if got.Tenant != "" || got.Config.TenantClaim != "ostium_tenant" || got.Config.ClientID != "ostium" {
		t.Fatalf("registered %+v", got)
	}

	// A tenant admin's session may not list the provider's.
	if err := c.Do(context.Background(), "POST", "/tenants", map[string]string{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	var k admin.Key
	for _, call := range []struct {
		path string
		in   any
		out  any
	}{
		{"/tenants/acme/users", map[string]string{"name": "ada", "role": "admin"}, nil},
		{"/tenants/acme/users/ada/keys", nil, &k},
	} {
		if err := c.Do(context.Background(), "POST", call.path, call.in, call.out); err != nil {
			t.Fatal(err)
		}
	}
	tctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, tctx, "sign in as a tenant admin", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"), browsertest.SignInKey(k.AccessKey, k.SecretKey),
		chromedp.WaitReady(browsertest.T("nav-idps")))
	status, err := chromedp.Run(tctx, chromedp.Evaluate[int](`fetch('/console/api/idps').then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil || status != 403 {
		t.Fatalf("a tenant admin listing the provider's identity providers: %d, %v; want 403", status, err)
	}
}
