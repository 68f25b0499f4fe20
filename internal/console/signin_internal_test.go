package console

import (
	"strings"
	"testing"
)

// TestCountKey: a claimant is counted under its own name, one longer
// than any real name under a short key of its own, so that a row of the
// attempts' table stays small whatever a client sends.
func TestCountKey(t *testing.T) {
	if k := countKey("user:acme/bob"); k != "user:acme/bob" {
		t.Fatalf("countKey of a real name = %q", k)
	}
	a, b := countKey("user:acme/"+strings.Repeat("a", 8000)), countKey("user:acme/"+strings.Repeat("a", 7999)+"b")
	if len(a) > 80 || len(b) > 80 || a == b {
		t.Fatalf("countKey of long names: %q, %q; want short and distinct", a, b)
	}
}
