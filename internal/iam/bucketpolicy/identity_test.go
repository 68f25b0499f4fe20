package bucketpolicy

import (
	"errors"
	"testing"
)

// Identity-based policies share the grammar; they name no Principal,
// and may name any service's actions and any ARN, as IAM's. Refusals
// carry IAM's MalformedPolicyDocument messages.
func TestParseIdentity(t *testing.T) {
	for doc, reason := range map[string]string{
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"]}]}`: "",
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:*","Resource":"arn:aws:iam::acme:user/${aws:username}"}}`:                         "",
		`{"Statement":[{"Effect":"Deny","NotAction":"s3:Get*","NotResource":"arn:aws:s3:::b/*"}]}`:                                                             "",
		`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}]}`:                                   "",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`:                                                                    "Policy document should not specify a principal.",
		`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"acme"},"Action":"s3:*","Resource":"*"}]}`:                                                      "Policy document should not specify a principal.",
		`{"Statement":[{"Effect":"Allow","Action":"GetObject","Resource":"*"}]}`:                                                                               "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.",
		`{"Statement":[{"Effect":"Allow","Action":"s3:Get:Object","Resource":"*"}]}`:                                                                           "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.",
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"bucket/*"}]}`:                                                                     `Resource bucket/* must be in ARN format or "*".`,
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject"}]}`:                                                                                           "Missing required field Resource",
		`{"Statement":[{"Effect":"Maybe","Action":"s3:GetObject","Resource":"*"}]}`:                                                                            "Invalid effect: Maybe",
	} {
		_, err := ParseIdentity([]byte(doc))
		var pe *Error
		switch {
		case reason == "" && err != nil:
			t.Errorf("%s: %v", doc, err)
		case reason != "" && (!errors.As(err, &pe) || pe.Reason != reason):
			t.Errorf("%s: %v, want %q", doc, err, reason)
		}
	}
	// A bucket policy still needs its Principal and its own bucket.
	if _, err := Parse([]byte(`{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`), "b"); err == nil {
		t.Error("a bucket policy without Principal was accepted")
	}
}

// Policy variables: values from the request, defaults when it has none,
// the escapes, and no match at all for a variable without either.
func TestSubstitute(t *testing.T) {
	r := &Request{Context: map[string][]string{"aws:username": {"cy"}, "aws:principaltag/team": {"red"}, "multi": {"a", "b"}}}
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"home/${aws:username}/*", "home/cy/*", true},
		{"home/${aws:UserName}/*", "home/cy/*", true},
		{"${aws:PrincipalTag/team}-${aws:username}", "red-cy", true},
		{"home/${aws:userid}/*", "", false},
		{"home/${aws:userid, 'nobody'}/*", "home/nobody/*", true},
		{"home/${ aws:userid ,  'it''s' }/*", "home/it's/*", true},
		{"home/${aws:username, 'nobody'}/*", "home/cy/*", true},
		{"${multi}", "", false}, // a key of many values is no variable's value
		{"a${*}b${?}c${$}", "a\x00*b\x00?c$", true},
		{"no variable", "no variable", true},
		{"unclosed ${aws:username", "unclosed ${aws:username", true},
	} {
		got, ok := substitute(c.in, r, true)
		if got != c.want || ok != c.ok {
			t.Errorf("substitute(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// MayAllow looks past conditions and keys, never past actions or the
// bucket a resource names.
func TestMayAllow(t *testing.T) {
	p, err := ParseIdentity([]byte(`{"Statement":[
		{"Effect":"Allow","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::shared/${aws:username}/*","Condition":{"Bool":{"aws:SecureTransport":"true"}}},
		{"Effect":"Allow","Action":"s3:PutObjectTagging","Resource":"arn:aws:s3:::tagged/*"},
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::${aws:username}-*/*"},
		{"Effect":"Allow","Action":"s3:CreateBucket","Resource":"arn:aws:s3:::team-*"},
		{"Effect":"Deny","Action":"s3:PutBucketAcl","Resource":"*"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		action, bucket string
		want           bool
	}{
		{"s3:DeleteObject", "shared", true},
		{"s3:DeleteObject", "other", false},
		{"s3:GetObject", "cy-logs", true}, // a variable may name any bucket
		{"s3:PutObjectTagging", "tagged", true},
		{"s3:PutObjectTagging", "other", false},
		{"s3:CreateBucket", "", true},
		{"s3:PutBucketAcl", "tagged", false},
		{"s3:PutBucketPolicy", "tagged", false},
	} {
		if got := p.MayAllow(c.action, c.bucket); got != c.want {
			t.Errorf("MayAllow(%s, %q) = %v, want %v", c.action, c.bucket, got, c.want)
		}
	}
}
