package iam

import (
	"encoding/json"
	"strings"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// A bucket policy names tenants (accounts) and users by name, but names
// are reused: a user deleted and created again is another principal. So,
// as AWS turns a user's ARN into the user's unique id when it stores a
// policy, the policy is stored with the canonical id of every principal
// it names at that moment (storedPolicy), and is evaluated against those
// ids only (bucketpolicy.Policy.Bind). GetBucketPolicy returns the
// document as it was given.
type storedPolicy struct {
	Document   string            `json:"ostium-policy-document"`
	Principals map[string]string `json:"ostium-policy-principals"`
}

// EncodePolicy is what the catalog keeps of a policy document whose AWS
// principals (bucketpolicy.Policy.AWSPrincipals) resolved to ids.
func EncodePolicy(doc []byte, ids map[string]string) string {
	b, err := json.Marshal(storedPolicy{Document: string(doc), Principals: ids})
	if err != nil {
		panic("iam: encode policy: " + err.Error()) // strings only: cannot fail
	}
	return string(b)
}

// DecodePolicy returns the document of a stored policy and the ids its
// principals were bound to; ids is nil for a policy stored before
// principals were bound (a bare document).
func DecodePolicy(stored string) (doc []byte, ids map[string]string) {
	var sp storedPolicy
	if strings.Contains(stored, `"ostium-policy-document"`) && json.Unmarshal([]byte(stored), &sp) == nil && sp.Document != "" {
		if sp.Principals == nil {
			sp.Principals = map[string]string{}
		}
		return []byte(sp.Document), sp.Principals
	}
	return []byte(stored), nil
}

// PolicyPrincipal reads an AWS principal of a bucket policy as a tenant
// (an account: "acme", or "arn:aws:iam::acme:root" as the parser leaves
// it) or a user ("arn:aws:iam::acme:user/cy"); ok is false for anything
// else (roles, paths, other partitions), which names nobody here.
func PolicyPrincipal(p string) (tenant, user string, ok bool) {
	const arn = "arn:aws:iam::"
	if !strings.HasPrefix(p, arn) {
		return p, "", p != "" && !strings.ContainsAny(p, ":/*?")
	}
	tenant, res, found := strings.Cut(p[len(arn):], ":")
	user, isUser := strings.CutPrefix(res, "user/")
	if !found || !isUser || tenant == "" || user == "" || strings.ContainsAny(tenant+user, ":/*?") {
		return "", "", false
	}
	return tenant, user, true
}

// legacyBinding binds the principals of a policy stored before
// principals were bound to the ids tenants and users had then, which
// were derived from their names: the principals the policy meant, and
// never one created since (those have random ids).
func legacyBinding(p *bucketpolicy.Policy) map[string]string {
	ids := map[string]string{}
	for _, name := range p.AWSPrincipals() {
		switch tenant, user, ok := PolicyPrincipal(name); {
		case !ok:
		case user == "":
			ids[name] = legacyCanonicalID("tenant:" + tenant)
		default:
			ids[name] = legacyCanonicalID("user:" + tenant + "/" + user)
		}
	}
	return ids
}
