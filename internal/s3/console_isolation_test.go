package s3_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/console/consoletest"
)

// consoleGroups are opGroups through the console's API, in the same
// order: each returns the API's error code, "" on success.
var consoleGroups = []func(c *consoletest.Client, b, who string) string{
	func(c *consoletest.Client, b, _ string) string {
		return c.Do("GET", "/buckets/"+b+"/objects", nil).Code()
	},
	func(c *consoletest.Client, b, _ string) string {
		return c.Do("GET", "/buckets/"+b+"/object?key=k", nil).Code()
	},
	func(c *consoletest.Client, b, who string) string {
		return c.Do("PUT", "/buckets/"+b+"/object?key=cw-"+who, []byte("x")).Code()
	},
	func(c *consoletest.Client, b, who string) string {
		return c.Do("DELETE", "/buckets/"+b+"/object?key=cw-"+who, nil).Code()
	},
	func(c *consoletest.Client, b, who string) string {
		return c.Do("POST", "/buckets/"+b+"/uploads?key=cmp-"+who, nil).Code()
	},
	func(c *consoletest.Client, b, who string) string {
		return c.Do("POST", "/buckets/"+b+"/copy", map[string]string{"key": "cc-" + who, "source_key": "k"}).Code()
	},
	func(c *consoletest.Client, b, _ string) string {
		return c.Do("GET", "/buckets/"+b+"/settings/acl", nil).Code()
	},
	func(c *consoletest.Client, b, _ string) string {
		acl := "private"
		if b == "beta-shared" {
			acl = "public-read"
		}
		return c.Do("PUT", "/buckets/"+b+"/settings/acl", map[string]string{"canned": acl}).Code()
	},
	func(c *consoletest.Client, b, _ string) string { return c.Do("DELETE", "/buckets/"+b, nil).Code() },
}

// TestIsolationMatrixConsole is the matrix's console column: every
// identity signed in to the console (people with their passwords, the
// provider and application credentials with their keys) meets, through
// the console's API, exactly the answers the S3 API gives it; no
// session meets NotSignedIn; and no tenant identity reaches a provider
// call or another tenant's users.
func TestIsolationMatrixConsole(t *testing.T) {
	ten := newTenancy(t)
	ten.share(t)
	ctx := context.Background()
	consoles := map[string]*consoletest.Client{}
	for _, who := range []string{"root", "app-ro", "app-rw"} {
		cr, err := ten.clients[who].Options().Credentials.Retrieve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := consoletest.New(t, ten.srv.Console.URL, ten.srv.Console.Client())
		c.Key(cr.AccessKeyID, cr.SecretAccessKey)
		consoles[who] = c
	}
	for _, u := range []struct{ tenant, name string }{{"acme", "ann"}, {"acme", "bob"}, {"acme", "cy"}, {"beta", "carl"}} {
		if err := ten.admin.Do(ctx, "PUT", "/tenants/"+u.tenant+"/users/"+u.name+"/password", map[string]string{"password": "given-pass-1"}, nil); err != nil {
			t.Fatal(err)
		}
		c := consoletest.New(t, ten.srv.Console.URL, ten.srv.Console.Client())
		c.MustSignIn(map[string]string{"tenant": u.tenant, "user": u.name, "password": "given-pass-1"})
		c.Must(204, "POST", "/password", map[string]string{"current": "given-pass-1", "new": "own-pass-" + u.name})
		consoles[u.name] = c
	}
	consoles["anonymous"] = consoletest.New(t, ten.srv.Console.URL, ten.srv.Console.Client())

	for who, byBucket := range isolationExpect() {
		c := consoles[who]
		for bucket, want := range byBucket {
			for i, g := range consoleGroups {
				got := g(c, bucket, who)
				if who == "anonymous" {
					if got != "NotSignedIn" {
						t.Errorf("no session %s on %s: %q, want NotSignedIn", opGroups[i].name, bucket, got)
					}
					continue
				}
				if got != want[i] {
					t.Errorf("console: %s %s on %s: %q, want %q (as through S3)", who, opGroups[i].name, bucket, got, want[i])
				}
			}
		}
	}

	// Bucket lists as ListBuckets gives them.
	visible := map[string]string{"root": "acme-bob beta-carl beta-shared", "ann": "acme-bob", "bob": "acme-bob", "cy": "",
		"app-ro": "acme-bob", "app-rw": "acme-bob", "carl": "beta-carl beta-shared"}
	for who, want := range visible {
		var l struct {
			Buckets []struct{ Name string } `json:"buckets"`
		}
		consoles[who].Must(200, "GET", "/buckets", nil).JSON(t, &l)
		var got []string
		for _, b := range l.Buckets {
			got = append(got, b.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("console: %s sees %v, want %q", who, got, want)
		}
	}

	// The provider's calls and the other tenant's users are the
	// provider's alone.
	provider := [][2]string{{"GET", "/tenants"}, {"POST", "/tenants"}, {"GET", "/tenants/beta"}, {"POST", "/tenants/beta/suspend"},
		{"DELETE", "/tenants/beta"}, {"PUT", "/tenants/beta/quotas"}, {"PUT", "/tenants/acme/quotas"}, {"PUT", "/tenants/acme/platform"},
		{"PUT", "/placement/buckets/acme-bob"}, {"GET", "/health"}, {"GET", "/usage"}, {"GET", "/tenants/beta/users"},
		{"GET", "/tenants/beta/usage"}, {"POST", "/tenants/beta/users/carl/keys"}, {"PUT", "/tenants/beta/users/carl/password"}}
	for who, c := range consoles {
		if who == "root" || who == "anonymous" {
			continue
		}
		for _, p := range provider {
			if r := c.Do(p[0], p[1], map[string]any{"password": "hijack-pass-1", "max_bytes": 1}); r.Status != 403 || r.Code() != "AccessDenied" {
				t.Errorf("console: %s %s %s: %d %s, want 403 AccessDenied", who, p[0], p[1], r.Status, r.Body)
			}
		}
		// Users and keys of its own tenant: its admin's only.
		code := "AccessDenied"
		if who == "ann" {
			code = ""
		}
		if got := c.Do("GET", "/tenants/acme/users", nil).Code(); got != code && !(who == "carl" && got == "AccessDenied") {
			t.Errorf("console: %s lists acme's users: %q, want %q", who, got, code)
		}
	}
	if !slices.Contains([]string{"NotSignedIn"}, consoles["anonymous"].Do("GET", "/tenants", nil).Code()) {
		t.Error("no session reaches the provider's calls")
	}
}
