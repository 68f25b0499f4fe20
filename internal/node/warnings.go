package node

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Warnings are what a configuration allows that an operator most likely
// did not mean, in the words `serve` logs (one WARN line each, at start)
// and `ostium config validate` prints: nothing to refuse, something to
// close.
func (c *Config) Warnings() []string {
	var out []string
	if open := c.openListeners(); len(open) > 0 && c.Metrics.Token == "" && len(c.Metrics.Allow) == 0 {
		out = append(out, fmt.Sprintf("metrics: /metrics answers anyone who reaches %s (no metrics.token, no metrics.allow): "+
			"set metrics.token (OSTIUM_METRICS_TOKEN) or metrics.allow (--metrics-allow) to close it; see deploy/README.md, Metrics and alerts",
			strings.Join(open, " and ")))
	}
	return out
}

// openListeners are the configured listen addresses other hosts can
// reach: all but those bound to a loopback address (or localhost).
func (c *Config) openListeners() []string {
	var out []string
	for _, addr := range []string{c.Listen, c.TLSListen} {
		if addr != "" && !loopbackOnly(addr) {
			out = append(out, addr)
		}
	}
	return out
}

// loopbackOnly tells whether a listen address takes connections from
// this host alone. An empty host (":9000") is every address; a host name
// other than localhost may resolve anywhere, and so counts as open.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
