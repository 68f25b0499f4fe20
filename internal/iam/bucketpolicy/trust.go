package bucketpolicy

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ParseTrust parses and validates a role's trust policy (who may assume
// the role): each statement names a Principal, actions of STS
// ("sts:AssumeRole", ...) and no Resource, as IAM's. It is the one
// grammar: what trust policies add (the principal) is read by the
// bucket policies' parsePrincipal, and the rest of each statement
// (effect, actions, conditions) by ParseIdentity.
func ParseTrust(doc []byte) (*Policy, error) {
	if len(doc) > MaxSize {
		return nil, malformed("Policy exceeds the maximum allowed document size.")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, malformed("Policies must be valid JSON and the first byte must be '{'")
	}
	raw := top["Statement"]
	single := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
	var stmts []map[string]json.RawMessage
	if single {
		var one map[string]json.RawMessage
		if json.Unmarshal(raw, &one) != nil {
			return nil, malformed("Statement must be an object or a list of objects")
		}
		stmts = []map[string]json.RawMessage{one}
	} else if len(raw) > 0 && json.Unmarshal(raw, &stmts) != nil {
		return nil, malformed("Statement must be an object or a list of objects")
	}
	// Each statement loses its principal (kept aside) and gains a
	// Resource, so that ParseIdentity checks what remains.
	principals := make([][2]*Principal, len(stmts))
	for i, m := range stmts {
		for _, f := range []string{"Resource", "NotResource"} {
			if _, ok := m[f]; ok {
				return nil, malformed("Has prohibited field %s", f)
			}
		}
		p, np, err := pair(m, "Principal", parsePrincipal)
		if err != nil {
			return nil, err
		}
		if p == nil && np == nil {
			return nil, malformed("Missing required field Principal")
		}
		principals[i] = [2]*Principal{p, np}
		if acts, nacts, err := pairStrings(m, "Action"); err == nil {
			for _, a := range append(acts, nacts...) {
				if service, _, _ := strings.Cut(a, ":"); a != "*" && !strings.EqualFold(service, "sts") {
					return nil, malformed("AssumeRole policy may only specify STS AssumeRole actions.")
				}
			}
		}
		delete(m, "Principal")
		delete(m, "NotPrincipal")
		m["Resource"] = json.RawMessage(`"*"`)
	}
	if len(stmts) > 0 {
		var err error
		if single {
			top["Statement"], err = json.Marshal(stmts[0])
		} else {
			top["Statement"], err = json.Marshal(stmts)
		}
		if err != nil {
			return nil, malformed("Statement must be an object or a list of objects")
		}
	}
	rewritten, err := json.Marshal(top)
	if err != nil {
		return nil, malformed("Policies must be valid JSON and the first byte must be '{'")
	}
	p, err := ParseIdentity(rewritten)
	if err != nil {
		return nil, err
	}
	for i := range p.Statements {
		p.Statements[i].Principal, p.Statements[i].NotPrincipal = principals[i][0], principals[i][1]
		p.Statements[i].Resource = nil
	}
	return p, nil
}
