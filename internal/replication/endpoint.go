package replication

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
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
