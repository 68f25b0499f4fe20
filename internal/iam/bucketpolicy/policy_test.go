package bucketpolicy

import (
	"strings"
	"testing"
)

func mustParse(t *testing.T, doc string) *Policy {
	t.Helper()
	p, err := Parse([]byte(doc), "examplebucket")
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	return p
}

// Policies from AWS's documented bucket-policy examples, each with
// requests it must allow, deny, or leave undecided.
func TestAWSExamples(t *testing.T) {
	alice := []string{"acme", "arn:aws:iam::acme:user/alice"}
	ctx := func(kv ...string) map[string][]string {
		m := map[string][]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = append(m[kv[i]], kv[i+1])
		}
		return m
	}
	cases := []struct {
		name string
		doc  string
		reqs []struct {
			r    Request
			want Decision
		}
	}{
		{"public read of objects", `{"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow","Principal":"*",
			"Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":["arn:aws:s3:::examplebucket/*"]}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/a/b.jpg"}, Allow},
				{Request{Anonymous: true, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/a"}, NoMatch},
				{Request{Anonymous: true, Action: "s3:ListBucket", Resource: "arn:aws:s3:::examplebucket"}, NoMatch},
			}},
		{"deny outside an IP range", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::examplebucket","arn:aws:s3:::examplebucket/*"],
			 "Condition":{"NotIpAddress":{"aws:SourceIp":["192.0.2.0/24","2001:db8::/32"]}}},
			{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:root"},"Action":"s3:*","Resource":"arn:aws:s3:::examplebucket/*"}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:sourceip", "192.0.2.7")}, Allow},
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:sourceip", "2001:db8::1")}, Allow},
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:sourceip", "203.0.113.9")}, Deny},
				{Request{Principals: []string{"beta"}, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:sourceip", "192.0.2.7")}, NoMatch},
			}},
		{"deny unless TLS", `{"Statement":[{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"s3:*","Resource":"arn:aws:s3:::examplebucket/*",
			"Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:securetransport", "false")}, Deny},
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:securetransport", "true")}, NoMatch},
			}},
		{"a home folder per user", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Principal":{"AWS":"acme"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::examplebucket",
			 "Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*","home/${aws:username}"]}}},
			{"Effect":"Allow","Principal":{"AWS":"acme"},"Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::examplebucket/home/${aws:username}/*"}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Principals: alice, Action: "s3:ListBucket", Resource: "arn:aws:s3:::examplebucket", Context: ctx("aws:username", "alice", "s3:prefix", "home/alice/docs")}, Allow},
				{Request{Principals: alice, Action: "s3:ListBucket", Resource: "arn:aws:s3:::examplebucket", Context: ctx("aws:username", "alice", "s3:prefix", "home/bob/")}, NoMatch},
				{Request{Principals: alice, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/home/alice/x", Context: ctx("aws:username", "alice")}, Allow},
				{Request{Principals: alice, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/home/bob/x", Context: ctx("aws:username", "alice")}, NoMatch},
			}},
		{"nobody but one user deletes", `{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::acme:user/alice"},
			"Action":"s3:DeleteObject","Resource":"arn:aws:s3:::examplebucket/*"}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Principals: alice, Action: "s3:DeleteObject", Resource: "arn:aws:s3:::examplebucket/k"}, NoMatch},
				{Request{Principals: []string{"acme", "arn:aws:iam::acme:user/bob"}, Action: "s3:DeleteObject", Resource: "arn:aws:s3:::examplebucket/k"}, Deny},
				{Request{Anonymous: true, Action: "s3:DeleteObject", Resource: "arn:aws:s3:::examplebucket/k"}, Deny},
			}},
		{"writers must give the bucket owner full control", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":["beta"]},
			"Action":"s3:PutObject","Resource":"arn:aws:s3:::examplebucket/*",
			"Condition":{"StringEquals":{"s3:x-amz-acl":"bucket-owner-full-control"}}}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Principals: []string{"beta"}, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("s3:x-amz-acl", "bucket-owner-full-control")}, Allow},
				{Request{Principals: []string{"beta"}, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("s3:x-amz-acl", "public-read")}, NoMatch},
				{Request{Principals: []string{"beta"}, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/k"}, NoMatch},
			}},
		{"until a date", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*",
			"Condition":{"DateLessThan":{"aws:CurrentTime":"2026-12-31T00:00:00Z"},"NumericLessThanEquals":{"s3:max-keys":"10"}}}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:currenttime", "2026-11-22T10:00:00Z", "s3:max-keys", "5")}, Allow},
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:currenttime", "2027-01-01T00:00:00Z", "s3:max-keys", "5")}, NoMatch},
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:currenttime", "2026-11-22T10:00:00Z", "s3:max-keys", "11")}, NoMatch},
			}},
		{"set operators on tags", `{"Statement":[
			{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*",
			 "Condition":{"ForAnyValue:StringEquals":{"s3:existingobjecttag/team":["red","blue"]}}},
			{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::examplebucket/*",
			 "Condition":{"ForAllValues:StringLike":{"aws:tagkeys":["dept*","cost*"]}, "Null":{"aws:tagkeys":"false"}}}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("s3:existingobjecttag/team", "blue")}, Allow},
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("s3:existingobjecttag/team", "green")}, NoMatch},
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k"}, NoMatch},
				{Request{Anonymous: true, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:tagkeys", "dept", "aws:tagkeys", "costcenter")}, Deny},
				{Request{Anonymous: true, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:tagkeys", "dept", "aws:tagkeys", "owner")}, NoMatch},
				{Request{Anonymous: true, Action: "s3:PutObject", Resource: "arn:aws:s3:::examplebucket/k"}, NoMatch},
			}},
		{"IfExists and negation on a missing key", `{"Statement":[
			{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*",
			 "Condition":{"StringNotEqualsIfExists":{"aws:userid":"trusted"}}},
			{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*"}]}`,
			[]struct {
				r    Request
				want Decision
			}{
				// AWS: "If the key is not present, evaluate the condition
				// element as true", so the deny applies.
				{Request{Anonymous: true, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k"}, Deny},
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:userid", "trusted")}, Allow},
				{Request{Principals: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::examplebucket/k", Context: ctx("aws:userid", "other")}, Deny},
			}},
	}
	for _, c := range cases {
		p := mustParse(t, c.doc)
		for i, q := range c.reqs {
			if got := p.Evaluate(q.r); got != q.want {
				t.Errorf("%s, request %d (%s %s %v): %v, want %v", c.name, i, q.r.Action, q.r.Resource, q.r.Context, got, q.want)
			}
		}
	}
}

func TestMalformedPolicies(t *testing.T) {
	cases := map[string]string{
		`not json`:                 "valid JSON",
		`{"Version":"2012-10-17"}`: "Missing required field Statement",
		`{"Version":"2011-01-01","Statement":[]}`: "valid version",
		`{"Statement":[],"Extra":1}`:              "Unknown field Extra",
		`{"Statement":[]}`:                        "Statement is empty",
		`{"Statement":[{"Effect":"Maybe","Principal":"*","Action":"s3:*","Resource":"*"}]}`:                                                         "Invalid effect",
		`{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`:                                                                         "Missing required field Principal",
		`{"Statement":[{"Effect":"Allow","Principal":"me","Action":"s3:*","Resource":"*"}]}`:                                                        "Invalid principal",
		`{"Statement":[{"Effect":"Allow","Principal":{"Nobody":"x"},"Action":"s3:*","Resource":"*"}]}`:                                              "Invalid principal",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"ec2:RunInstances","Resource":"*"}]}`:                                             "invalid action",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Resource":"*"}]}`:                                                                         "Missing required field Action",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","NotAction":"s3:Get*","Resource":"*"}]}`:                                   "both Action and NotAction",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::otherbucket/*"}]}`:                                "invalid resource",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*","Condition":{"StringSorta":{"a":"b"}}}]}`:                   "Invalid Condition type",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"nope"}}}]}`:       "Invalid value",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"soon"}}}]}`: "Invalid value",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*","Unknown":1}]}`:                                             "Unknown field Unknown",
	}
	for doc, reason := range cases {
		_, err := Parse([]byte(doc), "examplebucket")
		e, ok := err.(*Error)
		if !ok || !strings.Contains(e.Reason, reason) {
			t.Errorf("Parse(%s) = %v, want a reason with %q", doc, err, reason)
		}
	}
	big := `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*","Sid":"` + strings.Repeat("x", MaxSize) + `"}]}`
	if _, err := Parse([]byte(big), "examplebucket"); err == nil {
		t.Error("a policy over 20 KiB was accepted")
	}
}

func TestIsPublic(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*"}]}`:                                 true,
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:GetObject","Resource":"*"}]}`:                                                    true,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`:    false,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`: true,
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"acme"},"Action":"s3:*","Resource":"*"}]}`:                                                         false,
		`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"*"}]}`:                                                                     false,
		// AWS's rules ("The meaning of public" in its user guide): values
		// with a wildcard or a policy variable are not fixed, so they pin
		// nothing; nor does a condition a caller without the key passes.
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"*","Condition":{"StringLike":{"aws:SourceVpc":"vpc-*"}}}]}`:                                                                       true,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"*","Condition":{"StringEquals":{"aws:SourceVpc":"vpc-91237329"}}}]}`:                                                              false,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"aws:SourceAccount":"${aws:username}"}}}]}`:                                                       true,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"StringEqualsIfExists":{"aws:SourceVpc":"vpc-1"}}}]}`:                                                             true,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"ForAllValues:StringEquals":{"aws:SourceVpc":"vpc-1"}}}]}`:                                                        true,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:cloudfront::*:distribution/*"}}}]}`:                                           true,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"aws:SourceOwner":"123456789012"}}}]}`:                                                            false,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"*","Condition":{"StringEquals":{"s3:x-amz-server-side-encryption-aws-kms-key-id":"arn:aws:kms:us-east-1:123456789012:key/k"}}}]}`: false,
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"StringLike":{"aws:userid":"AROLEID:*"}}}]}`:                                                                      true,
		// A condition on a key that says nothing of who asks pins nothing.
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"s3:prefix":"docs/"}}}]}`: true,
		// Everyone but one, and principals with wildcards, are not fixed.
		`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"acme"},"Action":"s3:GetObject","Resource":"*"}]}`:             true,
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::*:root"},"Action":"s3:GetObject","Resource":"*"}]}`: true,
		`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"acme"},"Action":"s3:*","Resource":"*"}]}`:                      false,
	} {
		if got := mustParse(t, doc).IsPublic(); got != want {
			t.Errorf("IsPublic(%s) = %v, want %v", doc, got, want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"a*", "abc", true}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"*b*", "abc", true}, {"*x*", "abc", false}, {"a\x00*c", "a*c", true}, {"a\x00*c", "abc", false},
		{strings.Repeat("*a", 20) + "b", strings.Repeat("a", 200), false}, // no exponential backtracking
	} {
		if got := match(c.p, c.s); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
}

// The patterns matchCase decides without its general loop (no
// wildcard, one trailing star) are decided as the loop decides them,
// with and without case.
func TestMatchShortcuts(t *testing.T) {
	patterns := []string{"", "*", "s3:GetObject", "s3:Get*", "S3:get*", "arn:aws:s3:::b/*", "arn:aws:s3:::b", "a", "a*", "ab*"}
	values := []string{"", "a", "A", "ab", "s3:GetObject", "s3:getobject", "S3:GETOBJECTACL", "s3:Ge", "arn:aws:s3:::b", "arn:aws:s3:::b/", "arn:aws:s3:::B/k"}
	for _, p := range patterns {
		for _, v := range values {
			for _, fold := range []bool{false, true} {
				if got, want := matchCase(p, v, fold), matchLoop(p, v, fold); got != want {
					t.Errorf("matchCase(%q, %q, %v) = %v, the general loop says %v", p, v, fold, got, want)
				}
			}
		}
	}
	// A resource is refused by its literal start before its variables
	// are substituted, and only then.
	r := &Request{Context: map[string][]string{"aws:username": {"bob"}}}
	for _, c := range []struct {
		p, v string
		want bool
	}{
		{"arn:aws:s3:::b/home/${aws:username}/*", "arn:aws:s3:::b/home/bob/k", true},
		{"arn:aws:s3:::b/home/${aws:username}/*", "arn:aws:s3:::b/home/eve/k", false},
		{"arn:aws:s3:::b/home/${aws:username}/*", "arn:aws:s3:::c/home/bob/k", false},
		{"arn:aws:s3:::b/${*}/*", "arn:aws:s3:::b/*/k", true},
		{"arn:aws:s3:::b/${*}/*", "arn:aws:s3:::b/x/k", false},
		{"arn:aws:s3:::b/$x", "arn:aws:s3:::b/$x", true},
	} {
		if got := anyMatch([]string{c.p}, c.v, false, r); got != c.want {
			t.Errorf("resource %q for %q: %v, want %v", c.p, c.v, got, c.want)
		}
	}
}

// Evaluating an identity-based policy allocates nothing, whatever its
// statements test (variables in resources and conditions, tags, IP
// ranges), so that a principal's many statements cost every request
// only their comparisons.
func TestEvaluateDoesNotAllocate(t *testing.T) {
	p, err := ParseIdentity([]byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bench/home/${aws:username}/*"},
		{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::bench","Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*"]}}},
		{"Effect":"Allow","Action":["s3:Get*","s3:Put*"],"Resource":"arn:aws:s3:::team-${aws:PrincipalTag/team}/*"},
		{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::bench/*","Condition":{"StringEquals":{"aws:PrincipalTag/project":"x"}}},
		{"Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"NotIpAddress":{"aws:SourceIp":["127.0.0.0/8","10.0.0.0/8"]}}},
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.1.0.0/16"}}},
		{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bench/*","Condition":{"StringEquals":{"aws:PrincipalTag/team":"storage"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Action: "s3:GetObject", Resource: "arn:aws:s3:::bench/obj-000001", Context: map[string][]string{
		"aws:username": {"bob"}, "aws:principaltag/team": {"storage"}, "aws:sourceip": {"127.0.0.1"}}}
	if d := p.Evaluate(r); d != Allow {
		t.Fatalf("decision %v, want Allow by the last statement", d)
	}
	if n := testing.AllocsPerRun(100, func() { p.Evaluate(r) }); n != 0 {
		t.Errorf("Evaluate allocates %v times per call, want none", n)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*"}]}`, "s3:GetObject", "arn:aws:s3:::examplebucket/k", "1.2.3.4")
	f.Add(`{"Statement":{"Effect":"Deny","NotPrincipal":{"AWS":["acme"]},"NotAction":"s3:List*","NotResource":"arn:aws:s3:::examplebucket/${aws:username}/*","Condition":{"ForAllValues:StringLikeIfExists":{"s3:prefix":["a*","${*}"]},"Null":{"x":"true"}}}}`, "s3:ListBucket", "arn:aws:s3:::examplebucket", "::1")
	f.Add(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*","Condition":{"NumericGreaterThan":{"s3:max-keys":1},"DateEquals":{"aws:CurrentTime":"2020-01-01"},"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`, "s3:GetObject", "x", "10.1.1.1")
	f.Fuzz(func(t *testing.T, doc, action, resource, ip string) {
		p, err := Parse([]byte(doc), "examplebucket")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		ctx := map[string][]string{"aws:sourceip": {ip}, "s3:prefix": {resource}, "aws:username": {action}, "s3:max-keys": {ip}, "aws:currenttime": {ip}}
		for _, anon := range []bool{true, false} {
			p.Evaluate(Request{Principals: []string{"acme"}, Anonymous: anon, Action: action, Resource: resource, Context: ctx})
		}
		p.IsPublic()
	})
}
