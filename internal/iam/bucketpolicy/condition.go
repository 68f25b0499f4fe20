package bucketpolicy

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// operator is one condition operator: check validates the policy's values
// at parse time; test compares a request's value with one of them.
type operator struct {
	check   func(want []string) error
	test    func(have, want string) bool
	negated bool
}

var operators = map[string]*operator{}

func init() {
	any1 := func([]string) error { return nil }
	str := func(name string, test func(h, w string) bool) {
		operators[name] = &operator{check: any1, test: test}
		operators[strings.Replace(name, "String", "StringNot", 1)] = &operator{check: any1, test: test, negated: true}
	}
	str("StringEquals", func(h, w string) bool { return h == w })
	str("StringEqualsIgnoreCase", strings.EqualFold)
	str("StringLike", func(h, w string) bool { return match(w, h) })
	operators["ArnEquals"] = &operator{check: any1, test: func(h, w string) bool { return h == w }}
	operators["ArnNotEquals"] = &operator{check: any1, test: func(h, w string) bool { return h == w }, negated: true}
	operators["ArnLike"] = &operator{check: any1, test: func(h, w string) bool { return match(w, h) }}
	operators["ArnNotLike"] = &operator{check: any1, test: func(h, w string) bool { return match(w, h) }, negated: true}

	cmp := func(prefix string, parse func(string) (float64, error)) {
		check := func(ws []string) error {
			for _, w := range ws {
				if _, err := parse(w); err != nil {
					return err
				}
			}
			return nil
		}
		with := func(ok func(c int) bool) func(h, w string) bool {
			return func(h, w string) bool {
				a, err1 := parse(h)
				b, err2 := parse(w)
				if err1 != nil || err2 != nil {
					return false
				}
				switch {
				case a < b:
					return ok(-1)
				case a > b:
					return ok(1)
				}
				return ok(0)
			}
		}
		operators[prefix+"Equals"] = &operator{check: check, test: with(func(c int) bool { return c == 0 })}
		operators[prefix+"NotEquals"] = &operator{check: check, test: with(func(c int) bool { return c == 0 }), negated: true}
		operators[prefix+"LessThan"] = &operator{check: check, test: with(func(c int) bool { return c < 0 })}
		operators[prefix+"LessThanEquals"] = &operator{check: check, test: with(func(c int) bool { return c <= 0 })}
		operators[prefix+"GreaterThan"] = &operator{check: check, test: with(func(c int) bool { return c > 0 })}
		operators[prefix+"GreaterThanEquals"] = &operator{check: check, test: with(func(c int) bool { return c >= 0 })}
	}
	cmp("Numeric", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	cmp("Date", parseDate)

	boolCheck := func(ws []string) error {
		for _, w := range ws {
			if _, err := strconv.ParseBool(w); err != nil {
				return errors.New("not a boolean")
			}
		}
		return nil
	}
	operators["Bool"] = &operator{check: boolCheck, test: func(h, w string) bool { return strings.EqualFold(h, w) }}
	operators["Null"] = &operator{check: boolCheck} // decided in holds
	ipCheck := func(ws []string) error {
		for _, w := range ws {
			if _, err := parsePrefix(w); err != nil {
				return err
			}
		}
		return nil
	}
	inNet := func(h, w string) bool {
		ip, err1 := netip.ParseAddr(h)
		p, err2 := parsePrefix(w)
		return err1 == nil && err2 == nil && p.Contains(ip.Unmap())
	}
	operators["IpAddress"] = &operator{check: ipCheck, test: inNet}
	operators["NotIpAddress"] = &operator{check: ipCheck, test: inNet, negated: true}
}

// parseDate reads ISO 8601 (RFC 3339, or a date alone) or epoch seconds,
// as seconds.
func parseDate(s string) (float64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return float64(n), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return float64(t.UnixNano()) / 1e9, nil
		}
	}
	return 0, errors.New("not a date")
}

// parsePrefix reads a CIDR block or a single address.
func parsePrefix(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, errors.New("not an IP address or CIDR block")
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// holds evaluates a condition against the request's context.
func (c Condition) holds(r *Request) bool {
	var buf [1]string
	have := r.value(c.Key, &buf)
	present := len(have) > 0
	if c.Op == "Null" {
		return len(c.Values) > 0 && strings.EqualFold(c.Values[0], "true") == !present
	}
	op := operators[c.Op]
	like := strings.HasSuffix(c.Op, "Like")
	matchesAny := func(h string) bool {
		if c.nets != nil {
			return inNets(h, c.nets)
		}
		for _, w := range c.Values {
			// A value naming a variable the request has no value
			// for equals nothing.
			if v, ok := substitute(w, r, like); ok && op.test(h, v) {
				return true
			}
		}
		return false
	}
	// One value of the request is judged by the operator's sense.
	ok := func(h string) bool { return matchesAny(h) != op.negated }
	switch {
	case !present && c.Set == "ForAllValues":
		return true
	case !present:
		return c.IfExists || op.negated && c.Set == ""
	case c.Set == "ForAllValues":
		for _, h := range have {
			if !ok(h) {
				return false
			}
		}
		return true
	case c.Set == "ForAnyValue":
		for _, h := range have {
			if ok(h) {
				return true
			}
		}
		return false
	case op.negated:
		for _, h := range have {
			if !ok(h) {
				return false
			}
		}
		return true
	}
	for _, h := range have {
		if ok(h) {
			return true
		}
	}
	return false
}

// inNets reports whether address h is in one of nets.
func inNets(h string, nets []netip.Prefix) bool {
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}
