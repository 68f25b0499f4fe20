package policy

import "strings"

// compiled is a statement in the form evaluation needs.
type compiled struct {
	principals   *principalSet
	notPrincipal bool
	actions      []glob // lower-cased: action names are case-insensitive
	notAction    bool
	resources    []template
	notResource  bool
	conds        []*cond
}

type principalSet struct {
	any bool
	ids map[string]bool // normalised with normPrincipal
}

// compile checks a statement's contents and builds its matching form. vars
// enables policy variables (Version 2012-10-17).
func compile(s *Statement, vars bool) (*compiled, *Error) {
	if s.Effect != EffectAllow && s.Effect != EffectDeny {
		return nil, errorf("Invalid effect: %s", s.Effect)
	}
	c := &compiled{}
	p := s.Principal
	if p == nil {
		p, c.notPrincipal = s.NotPrincipal, true
	}
	if p == nil || s.Principal != nil && s.NotPrincipal != nil {
		return nil, errPrincipal
	}
	var err *Error
	if c.principals, err = compilePrincipal(p); err != nil {
		return nil, err
	}
	acts := s.Action
	if c.notAction = len(acts) == 0; c.notAction {
		acts = s.NotAction
	}
	if len(acts) == 0 || len(s.Action) > 0 && len(s.NotAction) > 0 {
		return nil, errorf("Policy has invalid action")
	}
	for _, a := range acts {
		a = strings.ToLower(a)
		if _, ok := validAction(a); !ok {
			return nil, errorf("Policy has invalid action")
		}
		c.actions = append(c.actions, compileGlob(a))
	}
	res := s.Resource
	if c.notResource = len(res) == 0; c.notResource {
		res = s.NotResource
	}
	if len(res) == 0 || len(s.Resource) > 0 && len(s.NotResource) > 0 {
		return nil, errorf("Policy has invalid resource")
	}
	for _, r := range res {
		t, err := parseTemplate(r, vars)
		if err != nil {
			return nil, err
		}
		c.resources = append(c.resources, t)
	}
	for _, cd := range s.Condition {
		k, err := compileCondition(cd, vars)
		if err != nil {
			return nil, err
		}
		c.conds = append(c.conds, k)
	}
	return c, nil
}

func compilePrincipal(p *Principal) (*principalSet, *Error) {
	ps := &principalSet{any: p.Wildcard, ids: map[string]bool{}}
	if !p.Wildcard && len(p.AWS)+len(p.CanonicalUser)+len(p.Service) == 0 {
		return nil, errPrincipal
	}
	for _, id := range p.AWS {
		switch {
		case id == "*":
			ps.any = true
		case validAWSPrincipal(id):
			ps.ids[normPrincipal(id)] = true
		default:
			return nil, errPrincipal
		}
	}
	for _, id := range p.CanonicalUser {
		if !isHex64(id) {
			return nil, errPrincipal
		}
		ps.ids[strings.ToLower(id)] = true
	}
	for _, id := range p.Service {
		if id == "" || strings.ContainsAny(id, "*? ") {
			return nil, errPrincipal
		}
	}
	return ps, nil
}

// validAWSPrincipal accepts an account id (here a tenant name) or an IAM or
// STS ARN. AWS allows no wildcards in principals other than "*" itself.
func validAWSPrincipal(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return false
	}
	if !strings.HasPrefix(s, "arn:") {
		return validAccount(s)
	}
	f := strings.SplitN(s, ":", 6)
	return len(f) == 6 && f[1] == "aws" && (f[2] == "iam" || f[2] == "sts") &&
		f[3] == "" && validAccount(f[4]) && f[5] != ""
}

func validAccount(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// normPrincipal maps an account's root ARN to the bare account id, since AWS
// reads both as "the account" (anyone in it), and canonical ids to lower case.
func normPrincipal(s string) string {
	if isHex64(s) {
		return strings.ToLower(s)
	}
	f := strings.SplitN(s, ":", 6)
	if len(f) == 6 && f[0] == "arn" && f[2] == "iam" && f[3] == "" && f[5] == "root" {
		return f[4]
	}
	return s
}

func (ps *principalSet) matches(r Request) bool {
	if ps.any {
		return true
	}
	if r.Anonymous {
		return false
	}
	for _, id := range r.Principals {
		if ps.ids[normPrincipal(id)] || ps.ids[accountOf(id)] {
			return true
		}
	}
	return false
}

// accountOf is the account an IAM or STS ARN belongs to, so that a grant to
// an account reaches its users even when the caller lists only its own ARN.
func accountOf(id string) string {
	f := strings.SplitN(id, ":", 6)
	if len(f) == 6 && f[0] == "arn" && (f[2] == "iam" || f[2] == "sts") && f[3] == "" {
		return f[4]
	}
	return ""
}

// checkScope applies the checks that depend on the bucket: resources must lie
// in it, and some action must fit one of the statement's resources.
func checkScope(s *Statement, bucket string) *Error {
	var kinds [3]bool
	for _, r := range append(s.Resource[:len(s.Resource):len(s.Resource)], s.NotResource...) {
		rest, ok := strings.CutPrefix(r, "arn:aws:s3:::")
		switch {
		case !ok:
			return errorf("Policy has invalid resource")
		case rest == bucket:
			kinds[resBucket] = true
		case strings.HasPrefix(rest, bucket+"/"):
			kinds[resObject] = true
		default:
			return errorf("Policy resource must be within bucket")
		}
	}
	if len(s.NotResource) > 0 {
		return nil // what NotResource leaves is not worth second-guessing
	}
	// AWS accepts a statement in which only some actions fit (the common
	// ["s3:ListBucket", "s3:GetObject"] on "bucket/*" loads, and ListBucket
	// then never matches); it refuses one in which none does.
	if len(s.Action) == 0 {
		return nil
	}
	for _, a := range s.Action {
		acts, _ := validAction(strings.ToLower(a))
		if acts[resBucket] && kinds[resBucket] || acts[resObject] && kinds[resObject] {
			return nil
		}
	}
	return errorf("Action does not apply to any resource(s) in statement")
}

// statement returns the compiled form of s: Parse's, or a fresh one for a
// statement built by hand (nil if it is invalid, and then it never applies).
func (p *Policy) statement(s *Statement) *compiled {
	if s.c != nil {
		return s.c
	}
	c, _ := compile(s, p.Version == Version2012)
	return c
}

func (c *compiled) applies(r Request) bool {
	if c.principals.matches(r) == c.notPrincipal {
		return false
	}
	action := strings.ToLower(r.Action)
	matched := false
	for _, g := range c.actions {
		if matched = g.match(action); matched {
			break
		}
	}
	if matched == c.notAction {
		return false
	}
	matched = false
	for _, t := range c.resources {
		// A variable the request lacks leaves the resource matching nothing.
		if g, ok := t.glob(r.Context); ok && g.match(r.Resource) {
			matched = true
			break
		}
	}
	if matched == c.notResource {
		return false
	}
	for _, k := range c.conds {
		if !k.eval(r.Context) {
			return false
		}
	}
	return true
}

// Evaluate returns Deny if any statement denies, else Allow if any allows,
// else NoMatch (explicit deny wins).
func (p *Policy) Evaluate(r Request) Decision {
	if p == nil {
		return NoMatch
	}
	d := NoMatch
	for i := range p.Statements {
		s := &p.Statements[i]
		c := p.statement(s)
		if c == nil || !c.applies(r) {
			continue
		}
		if s.Effect == EffectDeny {
			return Deny
		}
		d = Allow
	}
	return d
}
