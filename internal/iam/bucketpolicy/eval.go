package bucketpolicy

import "strings"

// Decision is the outcome of evaluating a policy for a request.
type Decision int

const (
	NoMatch Decision = iota // no statement applies
	Allow
	Deny
)

// Request is what one request brings to evaluation.
type Request struct {
	// Principals are the identifiers the caller answers to: its account
	// (tenant) id, its user ARN, its canonical id. Empty with Anonymous.
	Principals []string
	Anonymous  bool
	// Service is the AWS service principal acting ("" for a user), which
	// only a Service principal matches.
	Service string
	// Federated is the identity provider (its ARN) a web identity
	// signed in through ("" for none), which only a Federated principal
	// (or everyone) matches.
	Federated string
	Action    string // "s3:GetObject"
	Resource  string // "arn:aws:s3:::bucket" or "arn:aws:s3:::bucket/key"
	// Context holds condition keys in lower case (aws:sourceip, s3:prefix,
	// ...); a missing key is absent from the request.
	Context map[string][]string
	// Keys gives the values of keys Context does not hold (nil: none):
	// keys of one value each that cost something to compute, so
	// computed only when a policy tests them.
	Keys Keys
	// Trace, when set, records every statement that applies (nil: no
	// record, and no cost beyond one test per applying statement).
	Trace *Trace
}

// Trace is the record of one decision: the statements that applied, in
// the order they were evaluated, each named by where its policy came
// from. It is the evaluation's own account, so an explanation drawn
// from it cannot disagree with the decision. The caller names the
// policy about to be evaluated (From); grants that are no statement
// (an ACL's, the provider's root) it adds itself (Note).
type Trace struct {
	Matches []Match
	source  string
	index   int
}

// Match is one statement (or other grant or refusal) that applied.
type Match struct {
	// Source is what held the policy, as the caller named it
	// ("identity", "bucket-policy", "acl", ...), and Index the policy's
	// place among the caller's policies of that source.
	Source string `json:"source"`
	Index  int    `json:"index"`
	// Statement is the statement's place in its policy (from 0); -1
	// for a grant or refusal that is no statement.
	Statement int    `json:"statement"`
	Sid       string `json:"sid,omitempty"`
	Allow     bool   `json:"allow"`
}

// From names the policy evaluated next: source and its index there.
func (t *Trace) From(source string, index int) { t.source, t.index = source, index }

// Note records a grant (allow) or refusal that is no statement.
func (t *Trace) Note(source string, allow bool) {
	t.Matches = append(t.Matches, Match{Source: source, Statement: -1, Allow: allow})
}

// Denied reports whether a statement denied explicitly.
func (t *Trace) Denied() bool {
	for _, m := range t.Matches {
		if !m.Allow && m.Statement >= 0 {
			return true
		}
	}
	return false
}

// Keys looks up condition keys (in lower case) of one value.
type Keys interface {
	Lookup(key string) (string, bool)
}

// value returns the request's values of a condition key (lower case);
// buf holds a single value from Keys, so that looking one up does not
// allocate.
func (r *Request) value(key string, buf *[1]string) []string {
	if v, ok := r.Context[key]; ok || r.Keys == nil {
		return v
	}
	if v, ok := r.Keys.Lookup(key); ok {
		buf[0] = v
		return buf[:]
	}
	return nil
}

// Evaluate decides r: Deny if a statement denies it, else Allow if one
// allows it, else NoMatch.
func (p *Policy) Evaluate(r Request) Decision {
	d := NoMatch
	for i := range p.Statements {
		st := &p.Statements[i]
		if !st.applies(&r) {
			continue
		}
		if t := r.Trace; t != nil {
			// Every statement that applies is told, so the first deny
			// does not end a traced evaluation; the decision is the same.
			t.Matches = append(t.Matches, Match{Source: t.source, Index: t.index, Statement: i, Sid: st.Sid, Allow: st.Allow})
			if !st.Allow {
				d = Deny
			} else if d != Deny {
				d = Allow
			}
			continue
		}
		if !st.Allow {
			return Deny
		}
		d = Allow
	}
	return d
}

func (st *Statement) applies(r *Request) bool {
	if st.Principal != nil && !st.Principal.matches(r) || st.NotPrincipal != nil && st.NotPrincipal.matches(r) {
		return false
	}
	if st.Action != nil && !anyMatch(st.Action, r.Action, true, r) || st.NotAction != nil && anyMatch(st.NotAction, r.Action, true, r) {
		return false
	}
	if st.Resource != nil && !anyMatch(st.Resource, r.Resource, false, r) || st.NotResource != nil && anyMatch(st.NotResource, r.Resource, false, r) {
		return false
	}
	for _, c := range st.Conditions {
		if !c.holds(r) {
			return false
		}
	}
	return true
}

func (p *Principal) matches(r *Request) bool {
	if r.Federated != "" {
		for _, want := range p.Federated {
			if want == r.Federated {
				return true
			}
		}
		return p.Everyone
	}
	if r.Service != "" {
		for _, want := range p.Service {
			if want == r.Service {
				return true
			}
		}
		return false
	}
	if p.Everyone {
		return true
	}
	for _, have := range r.Principals {
		have = normalAccount(have)
		for _, want := range p.AWS {
			if want == have {
				return true
			}
		}
		for _, want := range p.Canonical {
			if want == have {
				return true
			}
		}
	}
	return false
}

// anyMatch reports whether value matches one of the patterns; actions
// compare without regard to (ASCII) case, resources with it.
func anyMatch(patterns []string, value string, fold bool, r *Request) bool {
	for _, p := range patterns {
		if !fold {
			if !literalPrefix(p, value) {
				// Refused before its variables are substituted: most
				// of an identity set's resources fail here, and
				// substituting costs a string each.
				continue
			}
			var ok bool
			if p, ok = substitute(p, r, true); !ok {
				continue
			}
		}
		if matchCase(p, value, fold) {
			return true
		}
	}
	return false
}

// literalPrefix reports whether value starts as pattern p does up to
// its first wildcard or variable ("$" ends the literal part: a "${"
// may follow): a value that does not cannot match p, whatever its
// variables stand for. Resources compare with case.
func literalPrefix(p, value string) bool {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' || c == '?' || c == '$':
			return true
		case i >= len(value) || value[i] != c:
			return false
		}
	}
	return true
}

// MayAllow reports whether an Allow statement of the policy could grant
// action on bucket or an object in it ("" for an action on a bucket not
// named yet), whatever its conditions and whichever object: what a
// decision taken before a request's body is read (and so before its
// keys or contents are known) must not refuse. It errs towards true: a
// resource with a policy variable or a NotResource may match any.
func (p *Policy) MayAllow(action, bucket string) bool {
	r := &Request{Action: action}
	for i := range p.Statements {
		st := &p.Statements[i]
		if !st.Allow || st.Action != nil && !anyMatch(st.Action, action, true, r) ||
			st.NotAction != nil && anyMatch(st.NotAction, action, true, r) {
			continue
		}
		if st.Resource == nil {
			return true
		}
		for _, res := range st.Resource {
			name, _, _ := strings.Cut(strings.TrimPrefix(res, "arn:aws:s3:::"), "/")
			if res == "*" || bucket == "" || strings.Contains(name, "${") ||
				strings.HasPrefix(res, "arn:aws:s3:::") && match(name, bucket) {
				return true
			}
		}
	}
	return false
}

// IsPublic reports whether the policy is public as AWS judges it (for
// GetBucketPolicyStatus, BlockPublicPolicy and RestrictPublicBuckets):
// AWS starts from public, and a policy is not public only when each of
// its Allow statements grants to fixed principals, or is held by one of
// its conditions to fixed values of a key that pins down who or where
// the caller is (pinningKeys). "Fixed" is AWS's word: a value with a
// wildcard or a policy variable fixes nothing. So an Allow with
// Principal "*", {"AWS": "*"}, a principal with a wildcard, or a
// NotPrincipal (everyone but some) is public unless such a condition
// holds it; Deny statements never make a policy public.
func (p *Policy) IsPublic() bool {
	for i := range p.Statements {
		st := &p.Statements[i]
		if !st.Allow || !st.toEveryone() {
			continue
		}
		pinned := false
		for _, c := range st.Conditions {
			pinned = pinned || c.pins()
		}
		if !pinned {
			return true
		}
	}
	return false
}

// toEveryone reports whether an Allow statement's principals are not
// fixed: everyone, a wildcard, or all but those a NotPrincipal names.
func (st *Statement) toEveryone() bool {
	if st.NotPrincipal != nil {
		return true
	}
	if st.Principal == nil {
		return false
	}
	if st.Principal.Everyone {
		return true
	}
	for _, ids := range [][]string{st.Principal.AWS, st.Principal.Canonical, st.Principal.Service} {
		for _, id := range ids {
			if !fixed(id) {
				return true
			}
		}
	}
	return false
}

// pinningKeys are the condition keys whose fixed values make a
// statement to everyone not public, as AWS lists them: the caller's
// network (aws:SourceIp as CIDRs, aws:SourceVpc, aws:SourceVpce), the
// resource or account acting for it (aws:SourceArn, aws:SourceAccount,
// aws:SourceOwner), the principal itself (aws:PrincipalOrgID,
// aws:PrincipalAccount, aws:PrincipalArn, aws:userid), the KMS key the
// request must use, and the access point it must come through.
var pinningKeys = map[string]bool{
	"aws:sourceip": true, "aws:sourcevpc": true, "aws:sourcevpce": true,
	"aws:sourcearn": true, "aws:sourceaccount": true, "aws:sourceowner": true,
	"aws:principalorgid": true, "aws:principalaccount": true, "aws:principalarn": true, "aws:userid": true,
	"s3:x-amz-server-side-encryption-aws-kms-key-id": true,
	"s3:dataaccesspointarn":                          true, "s3:dataaccesspointaccount": true,
}

// pins reports whether a condition holds callers to fixed values of a
// pinning key. A negated operator, Null, IfExists and ForAllValues all
// let a caller through that the values do not name (or that lacks the
// key), so they pin nothing.
func (c *Condition) pins() bool {
	if !pinningKeys[c.Key] || c.IfExists || c.Set == "ForAllValues" || c.Op == "Null" || operators[c.Op].negated || len(c.Values) == 0 {
		return false
	}
	for _, v := range c.Values {
		if !fixed(v) {
			return false
		}
	}
	return true
}

// fixed reports whether a policy value is fixed in AWS's sense: no
// wildcard and no policy variable.
func fixed(v string) bool {
	return !strings.ContainsAny(v, "*?") && !strings.Contains(v, "${")
}

// substitute replaces policy variables: ${aws:username} and the like by
// the request context's value of that key, or by the default the
// variable gives (${aws:PrincipalTag/team, 'none'}: quoted, a quote
// doubled), and the escapes ${*}, ${?} and ${$}, which stay literal in a
// pattern. ok is false when a variable has neither one value nor a
// default: as AWS, an element naming such a variable matches nothing
// (a resource with ${aws:username} matches no resource for a caller
// that has no user name, rather than one with an empty name).
func substitute(s string, r *Request, pattern bool) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
	}
	if strings.HasPrefix(s, "${") && strings.IndexByte(s, '}') == len(s)-1 && !strings.ContainsAny(s, ",'") {
		// The whole value is one variable (a condition's usual
		// "${aws:userid}"): no string to build.
		switch name := s[2 : len(s)-1]; name {
		case "*", "?", "$":
		default:
			var buf [1]string
			if v := r.value(strings.ToLower(name), &buf); len(v) == 1 {
				return v[0], true
			}
			return "", false
		}
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		name, def, hasDef, n := variable(s[i+2:])
		if n < 0 {
			b.WriteString(s) // not a variable: literal text
			return b.String(), true
		}
		b.WriteString(s[:i])
		switch name {
		case "*", "?", "$":
			if pattern && name != "$" {
				b.WriteString("\x00" + name)
			} else {
				b.WriteString(name)
			}
		default:
			var buf [1]string
			switch v := r.value(strings.ToLower(name), &buf); {
			case len(v) == 1:
				b.WriteString(v[0])
			case hasDef:
				b.WriteString(def)
			default:
				return "", false
			}
		}
		s = s[i+2+n:]
	}
}

// variable reads a policy variable after its "${": the key, its
// default if it gives one, and how many bytes it took up to and with
// the closing brace (-1: not a variable). Spaces around the key and the
// default are ignored, as AWS ignores them.
func variable(s string) (name, def string, hasDef bool, n int) {
	end := strings.IndexAny(s, ",}")
	if end < 0 {
		return "", "", false, -1
	}
	name = strings.TrimSpace(s[:end])
	if s[end] == '}' {
		return name, "", false, end + 1
	}
	rest := strings.TrimLeft(s[end+1:], " ")
	off := len(s) - len(rest)
	if !strings.HasPrefix(rest, "'") {
		return "", "", false, -1
	}
	var d strings.Builder
	for k := 1; k < len(rest); k++ {
		if rest[k] != '\'' {
			d.WriteByte(rest[k])
			continue
		}
		if k+1 < len(rest) && rest[k+1] == '\'' {
			d.WriteByte('\'')
			k++
			continue
		}
		tail := strings.TrimLeft(rest[k+1:], " ")
		if !strings.HasPrefix(tail, "}") {
			return "", "", false, -1
		}
		return name, d.String(), true, off + (len(rest) - len(tail)) + 1
	}
	return "", "", false, -1
}

// match reports whether s matches pattern, where * is any run and ? any
// one character, and "\x00c" stands for a literal c. It backtracks only
// to the last star, so it takes time linear in pattern times s at worst.
func match(p, s string) bool { return matchCase(p, s, false) }

// matchCase is match, without regard to ASCII case when fold is set.
func matchCase(p, s string, fold bool) bool {
	// The usual patterns first, without the general loop: an action or
	// ARN without wildcards, "*", and a prefix ending in one star.
	switch i := wildcard(p); {
	case i < 0:
		return p == s || fold && len(p) == len(s) && equalFoldASCII(p, s)
	case i == len(p)-1 && p[i] == '*':
		return len(s) >= i && (p[:i] == s[:i] || fold && equalFoldASCII(p[:i], s[:i]))
	}
	return matchLoop(p, s, fold)
}

// wildcard returns the index of p's first wildcard ("*", "?" or an
// escape's "\x00"), -1 if none: a loop, since strings.IndexAny builds
// its set at every call.
func wildcard(p string) int {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '*' || c == '?' || c == 0 {
			return i
		}
	}
	return -1
}

// matchLoop is matchCase for any pattern.
func matchLoop(p, s string, fold bool) bool {
	eq := func(a, b byte) bool {
		return a == b || fold && lowerASCII(a) == lowerASCII(b)
	}
	px, sx := 0, 0
	starPx, starSx := -1, -1
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; {
			case c == '*':
				starPx, starSx = px, sx+1
				px++
				continue
			case c == '?' && sx < len(s):
				px, sx = px+1, sx+1
				continue
			case c == 0 && px+1 < len(p) && sx < len(s) && eq(s[sx], p[px+1]):
				px, sx = px+2, sx+1
				continue
			case c != '?' && c != 0 && sx < len(s) && eq(s[sx], c):
				px, sx = px+1, sx+1
				continue
			}
		}
		if starPx >= 0 && starSx <= len(s) {
			px, sx = starPx, starSx
			continue
		}
		return false
	}
	return true
}

// equalFoldASCII reports whether a and b, of one length, are equal
// without regard to ASCII case.
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// AWSPrincipals returns the AWS principals the policy names, in
// Principal and NotPrincipal (accounts and ARNs; "*" is not one), each
// once.
func (p *Policy) AWSPrincipals() []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range p.Statements {
		for _, pr := range []*Principal{st.Principal, st.NotPrincipal} {
			if pr == nil {
				continue
			}
			for _, a := range pr.AWS {
				if !seen[a] {
					seen[a] = true
					out = append(out, a)
				}
			}
		}
	}
	return out
}

// Bind turns the AWS principals into the canonical ids they were bound to
// when the policy was stored (ids, by principal), as AWS turns a user's
// ARN into its unique id: a principal then matches a request by id only
// (Request.Principals), so a tenant or user created later under the same
// name matches none of the old one's statements. A name bound to nothing
// matches nobody.
func (p *Policy) Bind(ids map[string]string) {
	for i := range p.Statements {
		st := &p.Statements[i]
		for _, pr := range []*Principal{st.Principal, st.NotPrincipal} {
			if pr == nil {
				continue
			}
			for _, a := range pr.AWS {
				if id := ids[a]; id != "" {
					pr.Canonical = append(pr.Canonical, id)
				}
			}
			pr.AWS = nil
		}
	}
}

// MatchAction reports whether an action pattern of a policy ("s3:Get*")
// matches action, without regard to case, as statements match them.
func MatchAction(pattern, action string) bool { return matchCase(pattern, action, true) }
