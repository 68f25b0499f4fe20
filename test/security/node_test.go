package security_test

import (
	"net/http"
	"testing"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// An anonymous request for a bucket it may not read is refused, and an
// unknown key is told so: the floor every other test here builds on.
func TestAnonymousAndUnknownKeyRefused(t *testing.T) {
	srv := start(t, nodetest.Options{})
	u := newUser(t, srv, "acme", "ann", "admin")
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/acme-data", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/acme-data", nil)
	st, b := do(t, srv, req)
	wantError(t, st, b, 403, "AccessDenied")
	st, b = do(t, srv, signed(t, srv, creds{"NOSUCHKEY0000000000", "x"}, "GET", "/acme-data", nil, nil))
	wantError(t, st, b, 403, "InvalidAccessKeyId")
}
