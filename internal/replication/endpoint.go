package replication

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// CheckEndpoint checks a remote target's endpoint URL: https anywhere,
// plain http only when every address its host resolves to is in one of
// the networks the provider allows it for (plain). It reports whether
// the endpoint uses TLS.
func CheckEndpoint(ctx context.Context, endpoint string, plain []netip.Prefix) (secure bool, err error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return false, fmt.Errorf("replication: endpoint %q: want scheme://host[:port]", endpoint)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return true, nil
	case "http":
	default:
		return false, fmt.Errorf("replication: endpoint %q: scheme must be https (or http where allowed)", endpoint)
	}
	host := u.Hostname()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return false, fmt.Errorf("replication: endpoint %q: resolve %s: %v", endpoint, host, err)
	}
	for _, a := range addrs {
		a = a.Unmap()
		ok := false
		for _, p := range plain {
			if p.Contains(a) {
				ok = true
				break
			}
		}
		if !ok {
			return false, fmt.Errorf("replication: endpoint %q: plain http is not allowed to %s (replication_plain_http)", endpoint, a)
		}
	}
	return false, nil
}

// Reachable tells whether a tenant's target may be reached at addr:
// only at a public address, or in one of the networks the provider
// allows (replication_plain_http, its own networks). A tenant names its
// targets itself, and the nodes send them signed requests: a target at
// a loopback, private, link-local or otherwise special address would let
// a tenant reach into the provider's networks (the cloud's metadata
// service, internal APIs). The provider's own targets may be anywhere.
func Reachable(addr netip.Addr, allowed []netip.Prefix) bool {
	addr = addr.Unmap()
	for _, p := range allowed {
		if p.Contains(addr) {
			return true
		}
	}
	return addr.IsGlobalUnicast() && !addr.IsPrivate() && !cgnat.Contains(addr) && !benchmarking.Contains(addr)
}

// Networks IsGlobalUnicast and IsPrivate leave: carrier-grade NAT's
// shared space and the benchmarking range.
var (
	cgnat        = netip.MustParsePrefix("100.64.0.0/10")
	benchmarking = netip.MustParsePrefix("198.18.0.0/15")
)

// CheckReachable refuses endpoint when its host is, or resolves to, an
// address that is not Reachable: a tenant learns at once of a target it
// may not have. A name that does not resolve yet is let through; every
// connection is checked again (ReachableControl), which is what keeps a
// tenant out.
func CheckReachable(ctx context.Context, endpoint string, allowed []netip.Prefix) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("replication: endpoint %q: want scheme://host[:port]", endpoint)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if !Reachable(a, allowed) {
			return fmt.Errorf("replication: endpoint %q: %s is not a public address, and a tenant's target must be at one", endpoint, a.Unmap())
		}
	}
	return nil
}

// ReachableControl is a dialer's Control refusing what Reachable refuses:
// checked on the address dialled, so a name that resolves elsewhere
// since it was registered is refused too.
func ReachableControl(allowed []netip.Prefix) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("replication: dial %s: %w", address, err)
		}
		if !Reachable(ap.Addr(), allowed) {
			return fmt.Errorf("replication: dial %s: not a public address, and a tenant's target must be at one", address)
		}
		return nil
	}
}
