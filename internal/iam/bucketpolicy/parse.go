// Package bucketpolicy is the AWS access policy language: a document is
// parsed and validated once (Parse for a bucket's policy, ParseIdentity
// for the identity-based policies of users, groups, roles and sessions)
// and then evaluated against requests as a pure function (Evaluate),
// explicit deny winning. Both kinds share one grammar and one
// evaluation; they differ only in what they may name.
package bucketpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// MaxSize is the largest policy S3 accepts (20 KiB).
const MaxSize = 20 << 10

// Error is a malformed policy, with the reason S3's MalformedPolicy gives.
type Error struct{ Reason string }

func (e *Error) Error() string { return "bucketpolicy: " + e.Reason }

func malformed(format string, args ...any) *Error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

// Policy is a parsed bucket policy.
type Policy struct {
	Version    string
	ID         string
	Statements []Statement
}

// Statement is one statement. Exactly one of each pair (Principal or
// NotPrincipal, Action or NotAction, Resource or NotResource) is set.
type Statement struct {
	Sid          string
	Allow        bool
	Principal    *Principal
	NotPrincipal *Principal
	Action       []string
	NotAction    []string
	Resource     []string
	NotResource  []string
	Conditions   []Condition
}

// Principal is who a statement is about.
type Principal struct {
	Everyone  bool     // "*" or {"AWS": "*"}
	AWS       []string // account ids or ARNs
	Canonical []string
	// Service names AWS service principals; only the logging service
	// (logging.s3.amazonaws.com) acts here, delivering access logs.
	Service []string
	// Federated names identity providers (their ARNs) whose users
	// sign in through a role's trust policy (AssumeRoleWithWebIdentity).
	Federated []string
}

// Condition is one operator applied to one key.
type Condition struct {
	Op       string // the operator without qualifiers or IfExists
	Set      string // "", "ForAnyValue" or "ForAllValues"
	IfExists bool
	Key      string // lower case
	Values   []string
	// nets are Values parsed, for IpAddress and NotIpAddress (whose
	// values are never variables): parsed once with the policy rather
	// than at each request.
	nets []netip.Prefix
}

var statementFields = map[string]bool{"Sid": true, "Effect": true, "Principal": true, "NotPrincipal": true,
	"Action": true, "NotAction": true, "Resource": true, "NotResource": true, "Condition": true}

// Parse parses and validates a bucket policy for bucket.
func Parse(doc []byte, bucket string) (*Policy, error) {
	return parse(doc, bucket, false)
}

// ParseIdentity parses and validates an identity-based policy: one
// attached to a user, group or role, or passed for a session. As IAM's,
// it names no Principal (the principal is whoever it is attached to);
// its actions may be of any service (s3:, iam:, sts:, or "*"), and its
// resources any ARN or "*". A refusal's Reason is the message of IAM's
// MalformedPolicyDocument.
func ParseIdentity(doc []byte) (*Policy, error) {
	return parse(doc, "", true)
}

func parse(doc []byte, bucket string, identity bool) (*Policy, error) {
	if len(doc) > MaxSize {
		return nil, malformed("Policy exceeds the maximum allowed document size.")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, malformed("Policies must be valid JSON and the first byte must be '{'")
	}
	p := &Policy{}
	for k, v := range top {
		switch k {
		case "Version":
			if err := json.Unmarshal(v, &p.Version); err != nil || p.Version != "2012-10-17" && p.Version != "2008-10-17" {
				return nil, malformed("The policy must contain a valid version string")
			}
		case "Id":
			if json.Unmarshal(v, &p.ID) != nil {
				return nil, malformed("Id must be a string")
			}
		case "Statement":
		default:
			return nil, malformed("Unknown field %s", k)
		}
	}
	raw, ok := top["Statement"]
	if !ok {
		return nil, malformed("Missing required field Statement")
	}
	var stmts []map[string]json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		var one map[string]json.RawMessage
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, malformed("Statement must be an object or a list of objects")
		}
		stmts = []map[string]json.RawMessage{one}
	} else if err := json.Unmarshal(raw, &stmts); err != nil {
		return nil, malformed("Statement must be an object or a list of objects")
	}
	if len(stmts) == 0 {
		return nil, malformed("Could not parse the policy: Statement is empty!")
	}
	for _, m := range stmts {
		st, err := parseStatement(m, bucket, identity)
		if err != nil {
			return nil, err
		}
		p.Statements = append(p.Statements, st)
	}
	return p, nil
}

func parseStatement(m map[string]json.RawMessage, bucket string, identity bool) (Statement, error) {
	var st Statement
	for k := range m {
		if !statementFields[k] {
			return st, malformed("Unknown field %s", k)
		}
	}
	if v, ok := m["Sid"]; ok && json.Unmarshal(v, &st.Sid) != nil {
		return st, malformed("Statement IDs (SID) must be strings")
	}
	var effect string
	if json.Unmarshal(m["Effect"], &effect) != nil || effect != "Allow" && effect != "Deny" {
		return st, malformed("Invalid effect: %s", effect)
	}
	st.Allow = effect == "Allow"
	var err error
	if st.Principal, st.NotPrincipal, err = pair(m, "Principal", parsePrincipal); err != nil {
		return st, err
	}
	switch none := st.Principal == nil && st.NotPrincipal == nil; {
	case identity && !none:
		return st, malformed("Policy document should not specify a principal.")
	case !identity && none:
		return st, malformed("Missing required field Principal")
	}
	if st.Action, st.NotAction, err = pairStrings(m, "Action"); err != nil {
		return st, err
	}
	for _, a := range append(st.Action, st.NotAction...) {
		switch {
		case identity && !serviceAction(a):
			return st, malformed("Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.")
		case !identity && a != "*" && !strings.HasPrefix(strings.ToLower(a), "s3:"):
			return st, malformed("Policy has invalid action")
		}
	}
	if st.Resource, st.NotResource, err = pairStrings(m, "Resource"); err != nil {
		return st, err
	}
	lowerVariables(st.Resource)
	lowerVariables(st.NotResource)
	for _, r := range append(st.Resource, st.NotResource...) {
		switch {
		case identity && !anyARN(r):
			return st, malformed("Resource %s must be in ARN format or \"*\".", r)
		case !identity && !inBucket(r, bucket):
			return st, malformed("Policy has invalid resource")
		}
	}
	if v, ok := m["Condition"]; ok {
		if st.Conditions, err = parseConditions(v); err != nil {
			return st, err
		}
	}
	return st, nil
}

// inBucket reports whether a resource ARN names the bucket or objects in
// it; a policy may not reach beyond its own bucket.
func inBucket(arn, bucket string) bool {
	const prefix = "arn:aws:s3:::"
	if arn == "*" {
		return true
	}
	if !strings.HasPrefix(arn, prefix) {
		return false
	}
	rest := arn[len(prefix):]
	name, _, _ := strings.Cut(rest, "/")
	return match(name, bucket) || name == bucket
}

// lowerVariables writes the keys of the policy variables in values in
// lower case, as condition keys are kept, so that evaluation looks them
// up as they are: ${aws:PrincipalAccount} as ${aws:principalaccount}.
// Defaults keep their case.
func lowerVariables(values []string) {
	for i, v := range values {
		var b strings.Builder
		for {
			j := strings.Index(v, "${")
			if j < 0 {
				break
			}
			end := strings.IndexAny(v[j:], ",}")
			if end < 0 {
				break
			}
			b.WriteString(v[:j+2])
			b.WriteString(strings.ToLower(v[j+2 : j+end]))
			v = v[j+end:]
		}
		if b.Len() > 0 {
			b.WriteString(v)
			values[i] = b.String()
		}
	}
}

// serviceAction reports whether an identity policy's action is "*" or
// names a service: "s3:GetObject", "iam:*", "sts:Get*".
func serviceAction(a string) bool {
	if a == "*" {
		return true
	}
	service, name, ok := strings.Cut(a, ":")
	if !ok || service == "" || name == "" || strings.Contains(name, ":") {
		return false
	}
	for _, c := range service {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// anyARN reports whether an identity policy's resource is "*" or an ARN
// (arn:partition:service:region:account:resource, the last part
// perhaps with more colons or wildcards).
func anyARN(r string) bool {
	return r == "*" || strings.HasPrefix(r, "arn:") && strings.Count(r, ":") >= 5
}

// pair reads a field and its Not- form, of which at most one may be set.
func pair[T any](m map[string]json.RawMessage, name string, parse func(json.RawMessage) (T, error)) (T, T, error) {
	var yes, no T
	v, okYes := m[name]
	nv, okNo := m["Not"+name]
	var err error
	switch {
	case okYes && okNo:
		return yes, no, malformed("Statement has both %s and Not%s", name, name)
	case okYes:
		yes, err = parse(v)
	case okNo:
		no, err = parse(nv)
	}
	return yes, no, err
}

func pairStrings(m map[string]json.RawMessage, name string) ([]string, []string, error) {
	yes, no, err := pair(m, name, func(v json.RawMessage) ([]string, error) {
		ss, err := strings1(v)
		if err != nil || len(ss) == 0 {
			return nil, malformed("%s must be a string or a list of strings", name)
		}
		return ss, nil
	})
	if err == nil && yes == nil && no == nil {
		return nil, nil, malformed("Missing required field %s", name)
	}
	return yes, no, err
}

// strings1 reads a string or a list of strings.
func strings1(v json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(v, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	err := json.Unmarshal(v, &many)
	return many, err
}

func parsePrincipal(v json.RawMessage) (*Principal, error) {
	var star string
	if json.Unmarshal(v, &star) == nil {
		if star != "*" {
			return nil, malformed("Invalid principal in policy")
		}
		return &Principal{Everyone: true}, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil || len(m) == 0 {
		return nil, malformed("Invalid principal in policy")
	}
	p := &Principal{}
	for k, raw := range m {
		ids, err := strings1(raw)
		if err != nil || len(ids) == 0 {
			return nil, malformed("Invalid principal in policy")
		}
		switch k {
		case "AWS":
			for _, id := range ids {
				if id == "*" {
					p.Everyone = true
					continue
				}
				p.AWS = append(p.AWS, normalAccount(id))
			}
		case "CanonicalUser":
			p.Canonical = append(p.Canonical, ids...)
		case "Service":
			p.Service = append(p.Service, ids...)
		case "Federated":
			// Only a web identity sign-in (Request.Federated) matches it.
			p.Federated = append(p.Federated, ids...)
		default:
			return nil, malformed("Invalid principal in policy")
		}
	}
	return p, nil
}

// normalAccount turns an account root ARN into the bare account id, as
// AWS treats "arn:aws:iam::ACCOUNT:root" and "ACCOUNT" alike.
func normalAccount(id string) string {
	if strings.HasPrefix(id, "arn:aws:iam::") && strings.HasSuffix(id, ":root") {
		return strings.TrimSuffix(strings.TrimPrefix(id, "arn:aws:iam::"), ":root")
	}
	return id
}

func parseConditions(v json.RawMessage) ([]Condition, error) {
	var ops map[string]map[string]json.RawMessage
	if err := json.Unmarshal(v, &ops); err != nil {
		return nil, malformed("Condition must map operators to keys and values")
	}
	var out []Condition
	names := make([]string, 0, len(ops))
	for name := range ops {
		names = append(names, name)
	}
	sort.Strings(names) // a stable order keeps evaluation deterministic
	for _, name := range names {
		c := Condition{Op: name}
		if set, op, ok := strings.Cut(name, ":"); ok {
			if set != "ForAnyValue" && set != "ForAllValues" {
				return nil, malformed("Invalid Condition type : %s", name)
			}
			c.Set, c.Op = set, op
		}
		if strings.HasSuffix(c.Op, "IfExists") && c.Op != "Null" {
			c.Op, c.IfExists = strings.TrimSuffix(c.Op, "IfExists"), true
		}
		if operators[c.Op] == nil {
			return nil, malformed("Invalid Condition type : %s", name)
		}
		for key, raw := range ops[name] {
			vals, err := condValues(raw)
			if err != nil {
				return nil, malformed("Invalid value for condition key %s", key)
			}
			cc := c
			lowerVariables(vals)
			cc.Key, cc.Values = strings.ToLower(key), vals
			if err := operators[c.Op].check(cc.Values); err != nil {
				return nil, malformed("Invalid value for condition key %s: %v", key, err)
			}
			if c.Op == "IpAddress" || c.Op == "NotIpAddress" {
				for _, v := range vals {
					n, _ := parsePrefix(v) // checked above
					cc.nets = append(cc.nets, n)
				}
			}
			out = append(out, cc)
		}
	}
	return out, nil
}

// condValues reads a condition's value(s): strings, numbers or booleans,
// alone or in a list, all as strings.
func condValues(raw json.RawMessage) ([]string, error) {
	var any1 any
	if err := json.Unmarshal(raw, &any1); err != nil {
		return nil, err
	}
	list, ok := any1.([]any)
	if !ok {
		list = []any{any1}
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case bool:
			out = append(out, strconv.FormatBool(v))
		case float64:
			out = append(out, strconv.FormatFloat(v, 'f', -1, 64))
		default:
			return nil, fmt.Errorf("unsupported value %v", v)
		}
	}
	return out, nil
}
