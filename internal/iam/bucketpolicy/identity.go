package bucketpolicy

import (
	"encoding/json"
	"strings"
)

// ParseIdentity parses and validates an identity-based policy (a user's,
// group's or role's, inline or managed) in the bucket policy grammar,
// with IAM's rules: no Principal, actions of any service
// ("service:Action", wildcards allowed), resources as ARNs or "*".
func ParseIdentity(doc []byte) (*Policy, error) {
	return parse(doc, "", identityPolicy)
}

// ParseTrust parses and validates a role's trust policy (who may assume
// it): a Principal, actions of STS, no Resource.
func ParseTrust(doc []byte) (*Policy, error) {
	return parse(doc, "", trustPolicy)
}

// parseOther finishes a statement of an identity or trust policy; st
// has its Sid, Effect and principals read.
func parseOther(m map[string]json.RawMessage, st Statement, kind docKind) (Statement, error) {
	hasPrincipal := st.Principal != nil || st.NotPrincipal != nil
	switch {
	case kind == identityPolicy && hasPrincipal:
		return st, malformed("Policy document should not specify a principal.")
	case kind == trustPolicy && !hasPrincipal:
		return st, malformed("Missing required field Principal")
	}
	var err error
	if st.Action, st.NotAction, err = pairStrings(m, "Action"); err != nil {
		return st, err
	}
	for _, a := range append(st.Action, st.NotAction...) {
		service, name, ok := strings.Cut(a, ":")
		if a == "*" {
			continue
		}
		if !ok || service == "" || name == "" || strings.ContainsAny(service, "*?") || kind == trustPolicy && !strings.EqualFold(service, "sts") {
			return st, malformed("Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.")
		}
	}
	if kind == trustPolicy {
		if _, ok := m["Resource"]; ok {
			return st, malformed("Has prohibited field Resource")
		}
		if _, ok := m["NotResource"]; ok {
			return st, malformed("Has prohibited field NotResource")
		}
		return st, parseCondition(m, &st)
	}
	if st.Resource, st.NotResource, err = pairStrings(m, "Resource"); err != nil {
		return st, err
	}
	for _, r := range append(st.Resource, st.NotResource...) {
		if r != "*" && !strings.HasPrefix(r, "arn:") {
			return st, malformed("Resource %s must be in ARN format or \"*\".", r)
		}
	}
	return st, parseCondition(m, &st)
}
