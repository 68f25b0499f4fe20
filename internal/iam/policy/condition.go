package policy

import (
	"net/netip"
	"strings"
	"time"
)

type opKind uint8

const (
	opString opKind = iota
	opStringIC
	opStringLike
	opNumeric
	opDate
	opBool
	opIP
	opArn
	opNull
)

// cmpOp is how a context value compares to a policy value; the negated
// "Not" operators are their positive forms with negate set.
type cmpOp uint8

const (
	cmpEq cmpOp = iota
	cmpLt
	cmpLe
	cmpGt
	cmpGe
)

type operator struct {
	kind   opKind
	cmp    cmpOp
	negate bool
}

var operators = map[string]operator{
	"StringEquals":              {opString, cmpEq, false},
	"StringNotEquals":           {opString, cmpEq, true},
	"StringEqualsIgnoreCase":    {opStringIC, cmpEq, false},
	"StringNotEqualsIgnoreCase": {opStringIC, cmpEq, true},
	"StringLike":                {opStringLike, cmpEq, false},
	"StringNotLike":             {opStringLike, cmpEq, true},
	"NumericEquals":             {opNumeric, cmpEq, false},
	"NumericNotEquals":          {opNumeric, cmpEq, true},
	"NumericLessThan":           {opNumeric, cmpLt, false},
	"NumericLessThanEquals":     {opNumeric, cmpLe, false},
	"NumericGreaterThan":        {opNumeric, cmpGt, false},
	"NumericGreaterThanEquals":  {opNumeric, cmpGe, false},
	"DateEquals":                {opDate, cmpEq, false},
	"DateNotEquals":             {opDate, cmpEq, true},
	"DateLessThan":              {opDate, cmpLt, false},
	"DateLessThanEquals":        {opDate, cmpLe, false},
	"DateGreaterThan":           {opDate, cmpGt, false},
	"DateGreaterThanEquals":     {opDate, cmpGe, false},
	"Bool":                      {opBool, cmpEq, false},
	"IpAddress":                 {opIP, cmpEq, false},
	"NotIpAddress":              {opIP, cmpEq, true},
	"ArnEquals":                 {opArn, cmpEq, false},
	"ArnLike":                   {opArn, cmpEq, false},
	"ArnNotEquals":              {opArn, cmpEq, true},
	"ArnNotLike":                {opArn, cmpEq, true},
	"Null":                      {opNull, cmpEq, false},
}

// qualifier is the set operator prefix for multi-valued keys.
type qualifier uint8

const (
	qualNone qualifier = iota
	qualAny            // ForAnyValue: some context value satisfies the operator
	qualAll            // ForAllValues: every context value does (vacuously true)
)

// cond is a Condition in the form evaluation needs.
type cond struct {
	op       operator
	qual     qualifier
	ifExists bool
	key      string
	tmpls    []template // string and ARN operators
	nums     []float64
	times    []time.Time
	nets     []netip.Prefix
	bools    []bool // Bool, and Null's true/false
}

// parseOperator splits a name such as "ForAllValues:StringLikeIfExists".
// Operator names are case-sensitive, as in AWS.
func parseOperator(name string) (op operator, q qualifier, ifExists, ok bool) {
	rest := name
	if r, found := strings.CutPrefix(rest, "ForAnyValue:"); found {
		rest, q = r, qualAny
	} else if r, found := strings.CutPrefix(rest, "ForAllValues:"); found {
		rest, q = r, qualAll
	}
	rest, ifExists = strings.CutSuffix(rest, "IfExists")
	op, ok = operators[rest]
	if ok && op.kind == opNull && (q != qualNone || ifExists) {
		ok = false // a presence test has no set or if-exists form
	}
	return op, q, ifExists, ok
}

func compileCondition(c Condition, vars bool) (*cond, *Error) {
	op, q, ifExists, ok := parseOperator(c.Operator)
	if !ok {
		return nil, errorf("Invalid Condition type : %s", c.Operator)
	}
	if !validKey(strings.ToLower(c.Key)) {
		return nil, errorf("Policy has an invalid condition key")
	}
	if len(c.Values) == 0 {
		return nil, errorf("Policy has an invalid condition value for %s", c.Operator)
	}
	k := &cond{op: op, qual: q, ifExists: ifExists, key: strings.ToLower(c.Key)}
	for _, v := range c.Values {
		ok := true
		switch op.kind {
		case opString, opStringIC, opStringLike, opArn:
			t, err := parseTemplate(v, vars)
			if err != nil {
				return nil, err
			}
			k.tmpls = append(k.tmpls, t)
		case opNumeric:
			var n float64
			n, ok = parseNumber(v)
			k.nums = append(k.nums, n)
		case opDate:
			var d time.Time
			d, ok = parseDate(v)
			k.times = append(k.times, d)
		case opIP:
			var p netip.Prefix
			p, ok = parseNet(v)
			k.nets = append(k.nets, p)
		case opBool, opNull:
			var b bool
			b, ok = parseBool(v)
			k.bools = append(k.bools, b)
		}
		if !ok {
			return nil, errorf("Policy has an invalid condition value %q for %s", v, c.Operator)
		}
	}
	return k, nil
}

// eval reports whether the condition holds for the request context.
func (c *cond) eval(ctx map[string][]string) bool {
	vals := lookup(ctx, c.key)
	if c.op.kind == opNull {
		for _, want := range c.bools {
			if want == (len(vals) == 0) {
				return true
			}
		}
		return false
	}
	if len(vals) == 0 {
		// AWS: a missing key fails positive operators and ForAnyValue,
		// satisfies negated operators, ForAllValues (vacuously) and
		// ...IfExists.
		switch {
		case c.ifExists:
			return true
		case c.qual == qualAny:
			return false
		case c.qual == qualAll:
			return true
		}
		return c.op.negate
	}
	m := c.matcher(ctx)
	switch c.qual {
	case qualAll:
		for _, v := range vals {
			if m(v) == c.op.negate {
				return false
			}
		}
		return true
	case qualAny:
		for _, v := range vals {
			if m(v) != c.op.negate {
				return true
			}
		}
		return false
	}
	// Without a qualifier, several context values behave like ForAnyValue
	// for positive operators, and negated operators require that none of
	// them match, which is what a single value would get.
	for _, v := range vals {
		if m(v) {
			return !c.op.negate
		}
	}
	return c.op.negate
}

// matcher returns the positive form of the operator: whether one context
// value matches any of the policy's values (values are ORed).
func (c *cond) matcher(ctx map[string][]string) func(string) bool {
	switch c.op.kind {
	case opString, opStringIC:
		want := make([]string, 0, len(c.tmpls))
		for _, t := range c.tmpls {
			if s, ok := t.expand(ctx); ok {
				want = append(want, s)
			}
		}
		fold := c.op.kind == opStringIC
		return func(v string) bool {
			for _, w := range want {
				if w == v || fold && strings.EqualFold(w, v) {
					return true
				}
			}
			return false
		}
	case opStringLike, opArn:
		var gs []glob
		for _, t := range c.tmpls {
			if g, ok := t.glob(ctx); ok {
				gs = append(gs, g)
			}
		}
		if c.op.kind == opArn {
			return func(v string) bool { return anyArnMatch(gs, v) }
		}
		return func(v string) bool {
			for _, g := range gs {
				if g.match(v) {
					return true
				}
			}
			return false
		}
	case opNumeric:
		return func(v string) bool {
			n, ok := parseNumber(v)
			return ok && anyCmp(c.op.cmp, c.nums, func(w float64) int { return cmpFloat(n, w) })
		}
	case opDate:
		return func(v string) bool {
			d, ok := parseDate(v)
			return ok && anyCmp(c.op.cmp, c.times, d.Compare)
		}
	case opBool:
		return func(v string) bool {
			b, ok := parseBool(v)
			return ok && anyCmp(cmpEq, c.bools, func(w bool) int { return cmpBool(b, w) })
		}
	case opIP:
		return func(v string) bool {
			a, err := netip.ParseAddr(strings.TrimSpace(v))
			if err != nil {
				return false
			}
			a = a.Unmap().WithZone("")
			for _, p := range c.nets {
				if p.Contains(a) {
					return true
				}
			}
			return false
		}
	}
	return func(string) bool { return false }
}
