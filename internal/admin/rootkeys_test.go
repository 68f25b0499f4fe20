package admin_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

func rootKeys(t *testing.T, c *admin.Client) map[string]admin.RootKey {
	t.Helper()
	var ks []admin.RootKey
	must(t, c.Do(ctx, "GET", "/root-keys", nil, &ks))
	out := map[string]admin.RootKey{}
	for _, k := range ks {
		out[k.AccessKey] = k
	}
	return out
}

// works tells whether a key pair is let in (a call any root may make).
func works(srv *httptest.Server, ak, sk string) bool {
	return admin.NewClient(srv.URL, ak, sk, srv.Client()).Do(ctx, "GET", "/root-keys", nil, nil) == nil
}

// Root keys are listed with where they came from, created, rotated with
// grace and revoked; the last active one is not revoked, and no tenant
// admin touches them.
func TestRootKeys(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	ks := rootKeys(t, c)
	if k := ks[nodetest.AccessKey]; len(ks) != 1 || k.Source != "env" || k.Status != "active" {
		t.Fatalf("root keys at start = %+v", ks)
	}
	var made admin.RootKey
	must(t, c.Do(ctx, "POST", "/root-keys", nil, &made))
	if made.SecretKey == "" || made.Source != "api" || !works(srv.Server, made.AccessKey, made.SecretKey) {
		t.Fatalf("created root key = %+v", made)
	}
	if k := rootKeys(t, c)[made.AccessKey]; k.SecretKey != "" {
		t.Fatal("a listing shows a secret")
	}

	// Rotation: the new key works at once, the old one for the grace.
	var next admin.RootKey
	must(t, c.Do(ctx, "POST", "/root-keys/"+made.AccessKey+"/rotate", map[string]int{"grace_seconds": 1}, &next))
	if !works(srv.Server, next.AccessKey, next.SecretKey) || !works(srv.Server, made.AccessKey, made.SecretKey) {
		t.Fatal("after rotation the new or (during the grace) the old key does not work")
	}
	if k := rootKeys(t, c)[made.AccessKey]; k.Expires == nil {
		t.Fatalf("rotated key has no expiry: %+v", k)
	}
	time.Sleep(1100 * time.Millisecond)
	if works(srv.Server, made.AccessKey, made.SecretKey) {
		t.Fatal("the rotated key works past its grace")
	}
	if k := rootKeys(t, c)[made.AccessKey]; k.Status != "expired" {
		t.Fatalf("rotated key past its grace is listed %q, want expired", k.Status)
	}

	// Revocation takes effect at once; the last active key stays.
	var revoked admin.RootKey
	must(t, c.Do(ctx, "DELETE", "/root-keys/"+next.AccessKey, nil, &revoked))
	if revoked.Status != "disabled" || works(srv.Server, next.AccessKey, next.SecretKey) {
		t.Fatalf("revoked key %+v still works", revoked)
	}
	err := c.Do(ctx, "DELETE", "/root-keys/"+nodetest.AccessKey, nil, nil)
	wantCode(t, err, 409, "LastRootKey")
	if !works(srv.Server, nodetest.AccessKey, nodetest.SecretKey) {
		t.Fatal("the last root key stopped working after a refused revocation")
	}
	err = c.Do(ctx, "DELETE", "/root-keys/NOSUCHKEY", nil, nil)
	wantCode(t, err, 404, "NoSuchAccessKey")

	// A tenant's keys are not root keys, and a tenant admin has no say.
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "boss", "role": "admin"}, nil))
	var boss admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/boss/keys", nil, &boss))
	wantCode(t, c.Do(ctx, "DELETE", "/root-keys/"+boss.AccessKey, nil, nil), 404, "NoSuchAccessKey")
	b := admin.NewClient(srv.URL, boss.AccessKey, boss.SecretKey, srv.Client())
	for _, call := range [][2]string{{"GET", "/root-keys"}, {"POST", "/root-keys"}, {"DELETE", "/root-keys/" + nodetest.AccessKey},
		{"POST", "/root-keys/" + nodetest.AccessKey + "/rotate"}} {
		wantCode(t, b.Do(ctx, call[0], call[1], nil, nil), 403, "AccessDenied")
	}
}

// openNode opens a node on dir and catalog with a root pair (empty: none
// given) and serves it; close stops both.
func openNode(t *testing.T, dir, cat, ak, sk string, edit func(*node.Config)) (*httptest.Server, func(), error) {
	t.Helper()
	cfg := node.Config{DataDir: dir, Catalog: cat, RootAccessKey: ak, RootSecretKey: sk}
	if edit != nil {
		edit(&cfg)
	}
	n, err := node.Open(context.Background(), cfg)
	if err != nil {
		return nil, nil, err
	}
	srv := httptest.NewServer(n.Handler)
	return srv, func() { srv.Close(); n.Close() }, nil
}

// A root pair given at start replaces the pair an earlier start was
// given; keys made through the API stay. A start that fails, before or
// at the key step, leaves the keys as they were.
func TestRootKeyFromEnvironmentReplaced(t *testing.T) {
	dir, cat := t.TempDir(), testenv.CatalogURL(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the node key's, not the real user's
	const (
		akA, skA = "ROOTKEYAAAAAAAAAAAAA", "secret-of-the-first-pair-000000000000000"
		akB, skB = "ROOTKEYBBBBBBBBBBBBB", "secret-of-the-second-pair-00000000000000"
		akC, skC = "ROOTKEYCCCCCCCCCCCCC", "secret-of-the-third-pair-000000000000000"
	)
	srv, stop, err := openNode(t, dir, cat, akA, skA, nil)
	must(t, err)
	var apiKey admin.RootKey
	must(t, admin.NewClient(srv.URL, akA, skA, nil).Do(ctx, "POST", "/root-keys", nil, &apiKey))
	var boss admin.Key
	c := admin.NewClient(srv.URL, akA, skA, nil)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "boss"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/boss/keys", nil, &boss))
	stop()

	srv, stop, err = openNode(t, dir, cat, akB, skB, nil)
	must(t, err)
	keys := func(srv *httptest.Server, ak, sk string) []string {
		t.Helper()
		var names []string
		for k, v := range rootKeys(t, admin.NewClient(srv.URL, ak, sk, nil)) {
			names = append(names, k+"="+v.Source)
		}
		slices.Sort(names)
		return names
	}
	want := []string{akB + "=env", apiKey.AccessKey + "=api"}
	slices.Sort(want)
	if got := keys(srv, akB, skB); !slices.Equal(got, want) {
		t.Fatalf("after a start with another pair: %v, want %v", got, want)
	}
	if works(srv, akA, skA) || !works(srv, apiKey.AccessKey, apiKey.SecretKey) {
		t.Fatal("the replaced pair still works, or the API's key stopped")
	}
	stop()

	// A bad node key fails the start after the catalog opened.
	_, _, err = openNode(t, dir, cat, akC, skC, func(c *node.Config) { c.NodeKey = "not base64!" })
	if err == nil {
		t.Fatal("a start with a bad node key succeeded")
	}
	// A pair whose key is a tenant user's fails at the key step.
	_, _, err = openNode(t, dir, cat, boss.AccessKey, skC, nil)
	if err == nil {
		t.Fatal("a start given a tenant user's key as root succeeded")
	}
	srv, stop, err = openNode(t, dir, cat, akB, skB, nil)
	must(t, err)
	if got := keys(srv, akB, skB); !slices.Equal(got, want) {
		t.Fatalf("after failed starts: %v, want %v", got, want)
	}
	if !works(srv, akB, skB) || works(srv, akC, skC) {
		t.Fatal("a failed start changed which root pair works")
	}

	// A pair revoked through the API is not revived by a start given it.
	c = admin.NewClient(srv.URL, apiKey.AccessKey, apiKey.SecretKey, nil)
	must(t, c.Do(ctx, "DELETE", "/root-keys/"+akB, nil, nil))
	stop()
	srv, stop, err = openNode(t, dir, cat, akB, skB, nil)
	must(t, err)
	defer stop()
	if works(srv, akB, skB) {
		t.Fatal("a start revived a revoked root pair")
	}
}

// A root pair given at start lives only while it is given: a restart
// without it removes it, so that withdrawing the variables withdraws the
// key. Keys made through the API stay; with none left, a key is
// generated as on a first start, and reported to be printed.
func TestRootKeyFromEnvironmentLivesWhileGiven(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const ak, sk = "ROOTKEYENVAAAAAAAAAA", "secret-given-in-the-environment-000000000"
	open := func(dir, cat, ak, sk string) (*node.Node, *httptest.Server) {
		t.Helper()
		n, err := node.Open(context.Background(), node.Config{DataDir: dir, Catalog: cat, RootAccessKey: ak, RootSecretKey: sk})
		must(t, err)
		return n, httptest.NewServer(n.Handler)
	}

	// The environment's pair alone: a restart without it generates one.
	dir, cat := t.TempDir(), testenv.CatalogURL(t)
	n, srv := open(dir, cat, ak, sk)
	if n.CreatedRootKey != "" || !works(srv, ak, sk) {
		t.Fatalf("start with the pair: generated %q, works %v", n.CreatedRootKey, works(srv, ak, sk))
	}
	srv.Close()
	n.Close()
	n, srv = open(dir, cat, "", "")
	if works(srv, ak, sk) {
		t.Fatal("the environment's root key works after a restart without it")
	}
	if n.CreatedRootKey == "" || !works(srv, n.CreatedRootKey, n.CreatedRootSecret) {
		t.Fatalf("no working root key generated in its place: %q", n.CreatedRootKey)
	}
	gen, genSecret := n.CreatedRootKey, n.CreatedRootSecret
	srv.Close()
	n.Close()
	// The generated key is not the environment's: it stays.
	n, srv = open(dir, cat, "", "")
	if n.CreatedRootKey != "" || !works(srv, gen, genSecret) {
		t.Fatalf("a restart replaced the generated key: %q", n.CreatedRootKey)
	}
	srv.Close()
	n.Close()

	// With a key made through the API, that one stays and nothing is
	// generated.
	dir, cat = t.TempDir(), testenv.CatalogURL(t)
	n, srv = open(dir, cat, ak, sk)
	var made admin.RootKey
	must(t, admin.NewClient(srv.URL, ak, sk, nil).Do(ctx, "POST", "/root-keys", nil, &made))
	srv.Close()
	n.Close()
	n, srv = open(dir, cat, "", "")
	if works(srv, ak, sk) || !works(srv, made.AccessKey, made.SecretKey) || n.CreatedRootKey != "" {
		t.Fatalf("after a restart without the pair: env key works %v, API key works %v, generated %q",
			works(srv, ak, sk), works(srv, made.AccessKey, made.SecretKey), n.CreatedRootKey)
	}
	if ks := rootKeys(t, root2(srv, made)); len(ks) != 1 {
		t.Fatalf("root keys: %+v", ks)
	}
	srv.Close()
	n.Close()

	// An API key that no longer signs (revoked) does not count: the
	// provider is never left without a key.
	dir, cat = t.TempDir(), testenv.CatalogURL(t)
	n, srv = open(dir, cat, ak, sk)
	must(t, admin.NewClient(srv.URL, ak, sk, nil).Do(ctx, "POST", "/root-keys", nil, &made))
	must(t, admin.NewClient(srv.URL, ak, sk, nil).Do(ctx, "DELETE", "/root-keys/"+made.AccessKey, nil, nil))
	srv.Close()
	n.Close()
	n, srv = open(dir, cat, "", "")
	if n.CreatedRootKey == "" || !works(srv, n.CreatedRootKey, n.CreatedRootSecret) || works(srv, made.AccessKey, made.SecretKey) {
		t.Fatalf("with only a revoked key left: generated %q", n.CreatedRootKey)
	}
	srv.Close()
	n.Close()
}

func root2(srv *httptest.Server, k admin.RootKey) *admin.Client {
	return admin.NewClient(srv.URL, k.AccessKey, k.SecretKey, nil)
}
