package policy

import (
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

func parseNumber(s string) (float64, bool) {
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	// ParseFloat also reads "NaN" and "Inf", which compare to nothing sensibly.
	return n, err == nil && !math.IsNaN(n) && !math.IsInf(n, 0)
}

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02",
}

// parseDate reads ISO 8601 dates and times, or epoch seconds (aws:EpochTime,
// and AWS accepts either form against either key).
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), true
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseNet reads a CIDR or a single address, which stands for itself.
func parseNet(s string) (netip.Prefix, bool) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, false
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, false
	}
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p.Masked(), true
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// anyCmp reports whether compare(w) satisfies op for some policy value w;
// compare returns the sign of context value minus w.
func anyCmp[T any](op cmpOp, ws []T, compare func(T) int) bool {
	for _, w := range ws {
		d := compare(w)
		if op == cmpEq && d == 0 || op == cmpLt && d < 0 || op == cmpLe && d <= 0 ||
			op == cmpGt && d > 0 || op == cmpGe && d >= 0 {
			return true
		}
	}
	return false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	if a == b {
		return 0
	}
	return 1
}
