package bucketpolicy

import (
	"errors"
	"strings"
	"testing"
)

// Trust policies share the grammar with identity policies and differ
// where IAM's MalformedPolicyDocument says they do; the statement's
// principal is kept, the Resource it may not have is not invented.
func TestParseTrust(t *testing.T) {
	const (
		identity = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","iam:*"],"Resource":["arn:aws:s3:::b/${aws:username}/*","*"]}]}`
		trust    = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/ann"},"Action":"sts:AssumeRole"}}`
	)
	if p, err := ParseIdentity([]byte(identity)); err != nil || len(p.Statements) != 1 || len(p.Statements[0].Action) != 2 {
		t.Fatalf("identity policy: %+v %v", p, err)
	}
	if p, err := ParseTrust([]byte(trust)); err != nil || p.Statements[0].Principal == nil || p.Statements[0].Principal.AWS[0] != "arn:aws:iam::acme:user/ann" || p.Statements[0].Resource != nil {
		t.Fatalf("trust policy: %+v %v", p, err)
	}
	for name, c := range map[string]struct {
		doc   string
		trust bool
		want  string
	}{
		"principal in identity": {doc: trust, want: "should not specify a principal"},
		"no principal in trust": {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sts:AssumeRole"}}`, trust: true, want: "Missing required field Principal"},
		"resource in trust":     {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"sts:AssumeRole","Resource":"*"}}`, trust: true, want: "prohibited field Resource"},
		"s3 action in trust":    {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject"}}`, trust: true, want: "only specify STS"},
		"action without vendor": {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"GetObject","Resource":"*"}}`, want: "prefaced by a vendor"},
		"resource not an ARN":   {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"bucket"}}`, want: "ARN format"},
		"no resource":           {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*"}}`, want: "Missing required field Resource"},
		"bad effect":            {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Perhaps","Action":"s3:*","Resource":"*"}}`, want: "Invalid effect"},
		"bad trust condition":   {doc: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sts:AssumeRole","Condition":{"Nope":{"sts:ExternalId":"a"}}}]}`, trust: true, want: "Invalid Condition type"},
		"bad trust principal":   {doc: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"me","Action":"sts:AssumeRole"}]}`, trust: true, want: "Invalid principal"},
		"bad condition":         {doc: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"Nope":{"aws:username":"a"}}}}`, want: "Invalid Condition type"},
		"not JSON":              {doc: `Version: 1`, want: "valid JSON"},
	} {
		parse := ParseIdentity
		if c.trust {
			parse = ParseTrust
		}
		_, err := parse([]byte(c.doc))
		var perr *Error
		if !errors.As(err, &perr) || !strings.Contains(perr.Reason, c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
	// A bucket policy is as strict as before: no Principal is refused.
	if _, err := Parse([]byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`), "b"); err == nil {
		t.Fatal("a bucket policy without Principal was accepted")
	}
}

// A Federated principal matches only a web identity sign-in through that
// provider; such a sign-in matches no AWS principal, the account's
// included, and a user matches no Federated principal.
func TestTrustFederated(t *testing.T) {
	const prov = "arn:aws:iam::acme:oidc-provider/idp.example.com"
	p, err := ParseTrust([]byte(`{"Version":"2012-10-17","Statement":[
	  {"Effect":"Allow","Principal":{"Federated":"` + prov + `"},"Action":"sts:AssumeRoleWithWebIdentity",
	   "Condition":{"StringEquals":{"idp.example.com:aud":"app"}}},
	  {"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:root"},"Action":"sts:AssumeRole"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	web := func(provider, aud string) Request {
		return Request{Federated: provider, Action: "sts:AssumeRoleWithWebIdentity", Resource: "*",
			Context: map[string][]string{"idp.example.com:aud": {aud}}}
	}
	for name, c := range map[string]struct {
		r    Request
		want Decision
	}{
		"the provider, right aud":    {web(prov, "app"), Allow},
		"the provider, wrong aud":    {web(prov, "other"), NoMatch},
		"another provider":           {web("arn:aws:iam::acme:oidc-provider/evil.example.com", "app"), NoMatch},
		"a user, for the web action": {Request{Principals: []string{"acme", prov}, Action: "sts:AssumeRoleWithWebIdentity", Resource: "*", Context: map[string][]string{"idp.example.com:aud": {"app"}}}, NoMatch},
		"the account's user":         {Request{Principals: []string{"acme"}, Action: "sts:AssumeRole", Resource: "*"}, Allow},
		"a web identity, AssumeRole": {Request{Federated: prov, Action: "sts:AssumeRole", Resource: "*"}, NoMatch},
	} {
		if got := p.Evaluate(c.r); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
