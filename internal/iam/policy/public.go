package policy

import "strings"

// IsPublic reports whether the policy grants access to everyone, as
// GetBucketPolicyStatus.IsPublic in AWS: some Allow statement names the "*"
// principal (or allows everyone but a NotPrincipal list) and no condition
// pins the grant to fixed source addresses, accounts, ARNs or networks.
func (p *Policy) IsPublic() bool {
	if p == nil {
		return false
	}
	for i := range p.Statements {
		s := &p.Statements[i]
		c := p.statement(s)
		if c == nil || s.Effect != EffectAllow || !c.everyone() {
			continue
		}
		restricted := false
		for _, k := range c.conds {
			if restricted = k.restricts(); restricted {
				break
			}
		}
		if !restricted {
			return true
		}
	}
	return false
}

// everyone reports whether the statement's principal covers anyone at all.
func (c *compiled) everyone() bool {
	return c.principals.any != c.notPrincipal
}

// fixedKeys are the keys AWS accepts as making a "*" grant non-public when
// tested against fixed values: they tie the request to a known account,
// principal, network or key rather than to anybody.
var fixedKeys = map[string]bool{
	"aws:sourcearn": true, "aws:sourcevpc": true, "aws:sourcevpce": true,
	"aws:sourceowner": true, "aws:sourceaccount": true, "aws:userid": true,
	"aws:principalaccount": true, "aws:principalarn": true,
	"aws:principalorgid": true, "aws:principalorgpaths": true,
	"aws:sourceorgid": true, "aws:sourceorgpaths": true,
	"s3:x-amz-server-side-encryption-aws-kms-key-id": true,
	"s3:dataaccesspointarn":                          true, "s3:dataaccesspointaccount": true,
}

// restricts reports whether the condition alone keeps a grant from being
// public. Negated operators, IfExists and ForAllValues all hold for a request
// that lacks the key, so they never restrict.
func (k *cond) restricts() bool {
	if k.ifExists || k.qual == qualAll || k.op.negate {
		return false
	}
	if k.key == "aws:sourceip" {
		if k.op.kind != opIP {
			return false
		}
		for _, n := range k.nets {
			// AWS publishes no bound; a range wider than a /8 (IPv4) or a
			// /32 (IPv6) is taken here to mean "the internet".
			if n.Addr().Is4() && n.Bits() < 8 || !n.Addr().Is4() && n.Bits() < 32 {
				return false
			}
		}
		return true
	}
	switch k.op.kind {
	case opString, opStringIC, opStringLike, opArn:
	default:
		return false
	}
	if !fixedKeys[k.key] {
		return false
	}
	for _, t := range k.tmpls {
		for _, p := range t {
			if p.key != "" || !p.escape && strings.ContainsAny(p.text, "*?") {
				return false
			}
		}
	}
	return true
}
