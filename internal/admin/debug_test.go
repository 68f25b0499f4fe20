package admin_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The runtime profiles (what `ostium support bundle` fetches) are the
// provider's root's only: a goroutine dump names the buckets and keys in
// flight. A tenant's admin and an anonymous caller get 403 AccessDenied.
func TestDebugProfilesRootOnly(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	var k admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k))
	ann := admin.NewClient(srv.URL, k.AccessKey, k.SecretKey, srv.Client())

	for _, p := range []string{"heap", "goroutine?debug=2", "profile?seconds=1"} {
		_, err := ann.Raw(ctx, "GET", "/debug/pprof/"+p, nil)
		wantCode(t, err, http.StatusForbidden, "AccessDenied")

		resp, err := srv.Client().Get(srv.URL + admin.Prefix + "/debug/pprof/" + p)
		must(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "AccessDenied") {
			t.Errorf("anonymous GET %s: %d %s, want 403 AccessDenied", p, resp.StatusCode, body)
		}
	}

	// The root gets them: the binary ones gzip'd as pprof writes them.
	heap, err := c.Raw(ctx, "GET", "/debug/pprof/heap", nil)
	must(t, err)
	if !bytes.HasPrefix(heap, []byte{0x1f, 0x8b}) {
		t.Errorf("heap profile is not gzip'd pprof: % x", heap[:min(len(heap), 8)])
	}
	g, err := c.Raw(ctx, "GET", "/debug/pprof/goroutine?debug=2", nil)
	must(t, err)
	if !strings.Contains(string(g), "goroutine ") {
		t.Errorf("goroutine dump: %.200s", g)
	}
	cpu, err := c.Raw(ctx, "GET", "/debug/pprof/profile?seconds=1", nil)
	must(t, err)
	if !bytes.HasPrefix(cpu, []byte{0x1f, 0x8b}) {
		t.Errorf("cpu profile is not gzip'd pprof: % x", cpu[:min(len(cpu), 8)])
	}
	// A CPU profile's length is bounded; an unknown profile is named.
	_, err = c.Raw(ctx, "GET", "/debug/pprof/profile?seconds=3600", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidArgument")
	_, err = c.Raw(ctx, "GET", "/debug/pprof/nonsense", nil)
	wantCode(t, err, http.StatusNotFound, "NoSuchProfile")
}
