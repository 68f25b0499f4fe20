package admin_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The admin API's OpenAPI document is read without a signature, on
// purpose: it is the published description of the API, the same on
// every node whatever they hold, as AWS publishes its API models for
// anyone to read. It describes calls, each of which is signed; it holds
// no tenant, user, key or setting of the node, which this test pins: the
// document is byte for byte the same before and after the node holds
// some, names none of them, and the calls it describes still refuse an
// unsigned caller.
func TestOpenAPIIsPublicAndHoldsNoData(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	anon := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+admin.Prefix+path, nil)
		resp, err := srv.Client().Do(req)
		must(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, before := anon("GET", "/openapi.yaml")
	if status != 200 || !strings.Contains(before, "openapi: 3.0.3") {
		t.Fatalf("anonymous GET openapi.yaml: %d", status)
	}
	c := root(srv)
	must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": "zebra-corp"}, nil))
	must(t, c.Do(ctx, "POST", "/tenants/zebra-corp/users", map[string]string{"name": "okapi-user"}, nil))
	var k admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/zebra-corp/users/okapi-user/keys", nil, &k))
	_, after := anon("GET", "/openapi.yaml")
	if after != before {
		t.Fatal("the document changed with what the node holds")
	}
	for _, s := range []string{"zebra-corp", "okapi-user", k.AccessKey, k.SecretKey, nodetest.AccessKey} {
		if strings.Contains(after, s) {
			t.Errorf("the public document names %q", s)
		}
	}
	for _, call := range [][2]string{{"GET", "/tenants"}, {"GET", "/tenants/zebra-corp/users"}, {"GET", "/audit"}} {
		if status, body := anon(call[0], call[1]); status != http.StatusForbidden {
			t.Errorf("anonymous %s %s: %d %s", call[0], call[1], status, body)
		}
	}
}
