package s3

import (
	"net/http"
	"net/netip"
	"testing"
)

// Behind trusted balancers the client is the last X-Forwarded-For hop
// that is not one of them; anyone else's X-Forwarded-For is ignored, so a
// client cannot claim an address.
func TestClientIP(t *testing.T) {
	s := &Server{proxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("192.0.2.7/32")}}
	for _, c := range []struct{ peer, xff, want string }{
		{"203.0.113.5:4000", "", "203.0.113.5"},
		{"203.0.113.5:4000", "198.51.100.1", "203.0.113.5"},          // not through a trusted balancer
		{"10.0.0.9:4000", "198.51.100.1", "198.51.100.1"},            // HAProxy's option forwardfor
		{"10.0.0.9:4000", "1.1.1.1, 198.51.100.1", "198.51.100.1"},   // the client forged the first hop
		{"10.0.0.9:4000", "198.51.100.1, 192.0.2.7", "198.51.100.1"}, // two balancers
		{"10.0.0.9:4000", "", "10.0.0.9"},
		{"[::ffff:10.0.0.9]:4000", "198.51.100.1", "198.51.100.1"},
	} {
		r := &http.Request{RemoteAddr: c.peer, Header: http.Header{}}
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := s.clientIP(r); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
}
