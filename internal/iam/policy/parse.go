package policy

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

var errNotJSON = &Error{Reason: "Policies must be valid JSON and the first byte must be '{'"}

// Parse parses and validates a bucket policy document for bucket. Errors are
// *Error. The checks are AWS's: a policy S3 would refuse is refused, so that
// one written against the gateway also loads in AWS and the reverse.
func Parse(doc []byte, bucket string) (*Policy, error) {
	p, err := parse(doc, bucket)
	if err != nil {
		return nil, err // keep a nil *Error from becoming a non-nil error
	}
	return p, nil
}

func parse(doc []byte, bucket string) (*Policy, *Error) {
	if len(doc) > MaxSize {
		return nil, errorf("Policy exceeds the maximum allowed document size of %d bytes", MaxSize)
	}
	if d := bytes.TrimLeft(doc, " \t\r\n"); len(d) == 0 || d[0] != '{' {
		return nil, errNotJSON
	}
	top, err := object(doc)
	if err != nil {
		return nil, errNotJSON
	}
	p := &Policy{}
	var stmts []json.RawMessage
	for _, k := range sortedKeys(top) {
		raw := top[k]
		var ok bool
		switch k {
		case "Version":
			p.Version, ok = str(raw)
			if !ok || (p.Version != Version2012 && p.Version != Version2008) {
				return nil, errorf("The policy must contain a valid version string")
			}
		case "Id":
			if p.ID, ok = str(raw); !ok {
				return nil, errorf("Policy Id must be a string")
			}
		case "Statement":
			switch first(raw) {
			case '{':
				stmts = []json.RawMessage{raw}
			case '[':
				if json.Unmarshal(raw, &stmts) != nil {
					return nil, errNotJSON
				}
			default:
				return nil, errorf("Statement must be an object or an array of objects")
			}
			if len(stmts) == 0 {
				return nil, errorf("Could not parse the policy: Statement is empty!")
			}
		default:
			return nil, errorf("Unknown field %s", k)
		}
	}
	if stmts == nil {
		return nil, errorf("Missing required field Statement")
	}
	vars := p.Version == Version2012
	sids := map[string]bool{}
	for _, raw := range stmts {
		s, err := parseStatement(raw)
		if err != nil {
			return nil, err
		}
		if s.Sid != "" {
			if sids[s.Sid] {
				return nil, errorf("Statement IDs (SID) in a single policy must be unique")
			}
			sids[s.Sid] = true
		}
		if s.c, err = compile(&s, vars); err != nil {
			return nil, err
		}
		if err := checkScope(&s, bucket); err != nil {
			return nil, err
		}
		p.Statements = append(p.Statements, s)
	}
	return p, nil
}

var statementFields = []string{"Sid", "Effect", "Principal", "NotPrincipal",
	"Action", "NotAction", "Resource", "NotResource", "Condition"}

// parseStatement reads a statement's JSON into its exported fields; compile
// checks their contents.
func parseStatement(raw json.RawMessage) (Statement, *Error) {
	var s Statement
	if first(raw) != '{' {
		return s, errorf("Statement must be an object")
	}
	m, jerr := object(raw)
	if jerr != nil {
		return s, errNotJSON
	}
	var err *Error
	for _, k := range sortedKeys(m) {
		if !slices.Contains(statementFields, k) {
			return s, errorf("Unknown field %s", k)
		}
	}
	if raw, ok := m["Sid"]; ok {
		if s.Sid, ok = str(raw); !ok {
			return s, errorf("Statement Sid must be a string")
		}
	}
	raw, ok := m["Effect"]
	if !ok {
		return s, errorf("Missing required field Effect")
	}
	e, ok := str(raw)
	if !ok {
		e = string(raw)
	}
	if s.Effect = Effect(e); s.Effect != EffectAllow && s.Effect != EffectDeny {
		return s, errorf("Invalid effect: %s", e)
	}
	if s.Principal, s.NotPrincipal, err = principals(m); err != nil {
		return s, err
	}
	if s.Action, s.NotAction, err = pair(m, "Action", "Policy has invalid action"); err != nil {
		return s, err
	}
	if s.Resource, s.NotResource, err = pair(m, "Resource", "Policy has invalid resource"); err != nil {
		return s, err
	}
	if raw, ok := m["Condition"]; ok {
		if s.Condition, err = conditions(raw); err != nil {
			return s, err
		}
	}
	return s, nil
}

// pair reads a required element that has a Not form (Action, Resource):
// exactly one of the two must be there, as a string or non-empty list.
func pair(m map[string]json.RawMessage, name, invalid string) (pos, neg []string, err *Error) {
	rawPos, hasPos := m[name]
	rawNeg, hasNeg := m["Not"+name]
	switch {
	case hasPos && hasNeg:
		return nil, nil, errorf("Statement cannot contain both %s and Not%s", name, name)
	case !hasPos && !hasNeg:
		return nil, nil, errorf("Missing required field %s", name)
	}
	raw, out := rawPos, &pos
	if hasNeg {
		raw, out = rawNeg, &neg
	}
	list, ok := strs(raw)
	if !ok || len(list) == 0 {
		return nil, nil, &Error{Reason: invalid}
	}
	*out = list
	return pos, neg, nil
}

func principals(m map[string]json.RawMessage) (pos, neg *Principal, err *Error) {
	rawPos, hasPos := m["Principal"]
	rawNeg, hasNeg := m["NotPrincipal"]
	switch {
	case hasPos && hasNeg:
		return nil, nil, errorf("Statement cannot contain both Principal and NotPrincipal")
	case !hasPos && !hasNeg:
		// Unlike identity policies, a bucket policy must say whom it is about.
		return nil, nil, errorf("Missing required field Principal")
	case hasPos:
		pos, err = principal(rawPos)
	default:
		neg, err = principal(rawNeg)
	}
	return pos, neg, err
}

var errPrincipal = &Error{Reason: "Invalid principal in policy"}

func principal(raw json.RawMessage) (*Principal, *Error) {
	if s, ok := str(raw); ok {
		if s != "*" {
			return nil, errPrincipal
		}
		return &Principal{Wildcard: true}, nil
	}
	if first(raw) != '{' {
		return nil, errPrincipal
	}
	m, err := object(raw)
	if err != nil || len(m) == 0 {
		return nil, errPrincipal
	}
	p := &Principal{}
	for k, v := range m {
		list, ok := strs(v)
		if !ok || len(list) == 0 {
			return nil, errPrincipal
		}
		switch k {
		case "AWS":
			p.AWS = list
		case "CanonicalUser":
			p.CanonicalUser = list
		case "Service":
			p.Service = list
		default:
			return nil, errPrincipal
		}
	}
	return p, nil
}

// conditions flattens a Condition block into one Condition per operator and
// key, ordered so that a policy always parses to the same value.
func conditions(raw json.RawMessage) ([]Condition, *Error) {
	bad := errorf("Invalid Condition block")
	if first(raw) != '{' {
		return nil, bad
	}
	ops, err := object(raw)
	if err != nil {
		return nil, bad
	}
	var out []Condition
	for _, op := range sortedKeys(ops) {
		if first(ops[op]) != '{' {
			return nil, bad
		}
		keys, err := object(ops[op])
		if err != nil || len(keys) == 0 {
			return nil, bad
		}
		for _, k := range sortedKeys(keys) {
			vals, ok := condValues(keys[k])
			if !ok {
				return nil, errorf("Policy has an invalid condition value for %s", op)
			}
			out = append(out, Condition{Operator: op, Key: strings.ToLower(k), Values: vals})
		}
	}
	return out, nil
}

// condValues accepts what AWS does: a string, number or boolean, or a
// non-empty list of them; numbers keep their JSON spelling.
func condValues(raw json.RawMessage) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	if len(list) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		switch e := e.(type) {
		case string:
			out = append(out, e)
		case json.Number:
			out = append(out, e.String())
		case bool:
			out = append(out, map[bool]string{true: "true", false: "false"}[e])
		default:
			return nil, false
		}
	}
	return out, true
}

func object(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	return m, json.Unmarshal(raw, &m)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// first is the first significant byte of a JSON value, so that null is
// never read as an empty string or list.
func first(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func str(raw json.RawMessage) (string, bool) {
	var s string
	if first(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strs reads a string or a list of strings.
func strs(raw json.RawMessage) ([]string, bool) {
	if s, ok := str(raw); ok {
		return []string{s}, true
	}
	var items []json.RawMessage
	if first(raw) != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := str(it)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}
