package replication

import (
	"context"
	"net/netip"
	"testing"
)

// A tenant's target is reached at public addresses only, unless the
// provider allows a network; the check is made on the address dialled.
func TestReachable(t *testing.T) {
	own := []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", true}, {"2001:4860:4860::8888", true}, {"::ffff:8.8.8.8", true},
		{"127.0.0.1", false}, {"::1", false}, {"0.0.0.0", false}, {"::", false},
		{"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false}, {"fc00::1", false},
		{"169.254.169.254", false}, {"fe80::1", false}, {"::ffff:169.254.169.254", false},
		{"100.64.0.1", false}, {"198.18.0.1", false}, {"224.0.0.1", false},
		{"10.20.3.4", true}, // the provider's own network
	} {
		if got := Reachable(netip.MustParseAddr(tc.addr), own); got != tc.want {
			t.Errorf("Reachable(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	control := ReachableControl(nil)
	if err := control("tcp", "127.0.0.1:443", nil); err == nil {
		t.Error("dialling loopback for a tenant's target was allowed")
	}
	if err := control("tcp", "[2001:4860:4860::8888]:443", nil); err != nil {
		t.Errorf("dialling a public address: %v", err)
	}
	if err := CheckReachable(context.Background(), "https://127.0.0.1:8443", nil); err == nil {
		t.Error("a target on loopback was accepted")
	}
	if err := CheckReachable(context.Background(), "https://localhost:8443", nil); err == nil {
		t.Error("a target named localhost was accepted")
	}
	// Not resolvable yet: accepted, and checked when it is dialled.
	if err := CheckReachable(context.Background(), "https://s3.site2.invalid", nil); err != nil {
		t.Errorf("a name that does not resolve yet: %v", err)
	}
}
