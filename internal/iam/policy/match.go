package policy

import (
	"strings"
	"unicode/utf8"
)

// tok is one element of a wildcard pattern. Text from policy variables
// becomes literal tokens, so a user name holding '*' cannot widen a grant.
type tok struct {
	op  byte // 0: lit must follow; '*': any run of characters; '?': one character
	lit string
}

type glob []tok

// compileGlob reads '*' and '?' in s as wildcards and the rest literally.
func compileGlob(s string) glob {
	var g glob
	start := 0
	flush := func(end int) {
		if end > start {
			g = append(g, tok{lit: s[start:end]})
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*', '?':
			flush(i)
			start = i + 1
			// Runs of '*' match the same strings as one and would only slow
			// the backtracking below.
			if c == '*' && len(g) > 0 && g[len(g)-1].op == '*' {
				continue
			}
			g = append(g, tok{op: c})
		}
	}
	flush(len(s))
	return g
}

// match reports whether the whole of s matches g. Backtracking only to the
// most recent '*' is enough, since literals and '?' match deterministically;
// this keeps the cost at O(len(g)*len(s)) whatever the input.
func (g glob) match(s string) bool {
	ti, si := 0, 0
	starT, starS := -1, 0
	for {
		if ti < len(g) {
			t := g[ti]
			switch t.op {
			case '*':
				starT, starS = ti, si
				ti++
				continue
			case '?':
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ti++
					continue
				}
			default:
				if strings.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		if starT < 0 || starS >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		si, ti = starS, starT+1
	}
}

// hasWildcard reports whether g matches anything but one fixed string.
func (g glob) hasWildcard() bool {
	for _, t := range g {
		if t.op != 0 {
			return true
		}
	}
	return false
}

// part is a piece of a value that may hold policy variables.
type part struct {
	text   string
	escape bool   // text came from ${*}, ${?} or ${$} and is never a wildcard
	key    string // set for a variable such as ${aws:username}
	def    string // the default in ${key, 'default'}
	hasDef bool
}

// template is a Resource or condition value split around its variables.
type template []part

// parseTemplate splits s around "${...}" when vars is set (policy version
// 2012-10-17); otherwise all of s is text.
func parseTemplate(s string, vars bool) (template, *Error) {
	var t template
	for vars {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break // no closing brace: AWS reads the rest literally
		}
		if i > 0 {
			t = append(t, part{text: s[:i]})
		}
		p, err := parseVariable(s[i+2 : i+j])
		if err != nil {
			return nil, err
		}
		t = append(t, p)
		s = s[i+j+1:]
	}
	if s != "" || len(t) == 0 {
		t = append(t, part{text: s})
	}
	return t, nil
}

func parseVariable(inner string) (part, *Error) {
	switch inner {
	case "*", "?", "$":
		return part{text: inner, escape: true}, nil
	}
	p := part{key: inner}
	if k, def, ok := strings.Cut(inner, ","); ok {
		def = strings.TrimSpace(def)
		if len(def) < 2 || def[0] != '\'' || def[len(def)-1] != '\'' {
			return part{}, errorf("Invalid policy variable ${%s}", inner)
		}
		p.key, p.def, p.hasDef = k, def[1:len(def)-1], true
	}
	p.key = strings.ToLower(strings.TrimSpace(p.key))
	if !validKey(p.key) {
		return part{}, errorf("Invalid policy variable ${%s}", inner)
	}
	return p, nil
}

// hasVars reports whether t depends on the request.
func (t template) hasVars() bool {
	for _, p := range t {
		if p.key != "" {
			return true
		}
	}
	return false
}

// resolve returns the value of variable p; false when the request lacks it
// and p has no default, in which case AWS lets the value match nothing.
func (p part) resolve(ctx map[string][]string) (string, bool) {
	if v := lookup(ctx, p.key); len(v) > 0 {
		return v[0], true
	}
	return p.def, p.hasDef
}

// glob builds the wildcard pattern of t for one request.
func (t template) glob(ctx map[string][]string) (glob, bool) {
	var g glob
	for _, p := range t {
		switch {
		case p.key != "":
			v, ok := p.resolve(ctx)
			if !ok {
				return nil, false
			}
			g = append(g, tok{lit: v})
		case p.escape:
			g = append(g, tok{lit: p.text})
		default:
			g = append(g, compileGlob(p.text)...)
		}
	}
	return g, true
}

// expand is t as a plain string, for operators without wildcards.
func (t template) expand(ctx map[string][]string) (string, bool) {
	var b strings.Builder
	for _, p := range t {
		if p.key == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := p.resolve(ctx)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// lookup finds a context key. Callers are asked for lower-case names, but a
// mixed-case key must not silently drop a condition, so fall back to folding.
func lookup(ctx map[string][]string, key string) []string {
	if v, ok := ctx[key]; ok {
		return v
	}
	for k, v := range ctx {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// anyArnMatch compares ARNs component by component, as AWS does, so that a
// wildcard in one of the six colon-separated fields cannot span into the
// next; the resource field (the sixth) keeps any further colons.
func anyArnMatch(gs []glob, v string) bool {
	got := strings.SplitN(v, ":", 6)
	for _, g := range gs {
		want := splitGlob(g, 6)
		if len(want) != len(got) {
			continue
		}
		ok := true
		for i := range want {
			if !want[i].match(got[i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// splitGlob cuts g at the first n-1 colons of its literal text.
func splitGlob(g glob, n int) []glob {
	out := []glob{nil}
	for _, t := range g {
		for t.op == 0 && len(out) < n {
			i := strings.IndexByte(t.lit, ':')
			if i < 0 {
				break
			}
			if i > 0 {
				out[len(out)-1] = append(out[len(out)-1], tok{lit: t.lit[:i]})
			}
			out = append(out, nil)
			t.lit = t.lit[i+1:]
		}
		if t.op != 0 || t.lit != "" {
			out[len(out)-1] = append(out[len(out)-1], t)
		}
	}
	return out
}
