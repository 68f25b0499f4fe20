package policy

import (
	"fmt"
	"testing"
)

// holds reports whether a statement allowing everything under condition
// block cond applies to a request with context ctx.
func holds(t *testing.T, version, cond string, ctx map[string][]string) bool {
	t.Helper()
	doc := fmt.Sprintf(`{"Version": %q, "Statement": {"Effect": "Allow", "Principal": "*",
		"Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/*", "Condition": %s}}`, version, cond)
	p, err := Parse([]byte(doc), bucket)
	if err != nil {
		t.Fatalf("Parse(%s): %v", cond, err)
	}
	return p.Evaluate(Request{Anonymous: true, Action: "s3:GetObject", Resource: obj("k"), Context: ctx}) == Allow
}

type ctx = map[string][]string

var conditionCases = []struct {
	cond string
	ctx  ctx
	want bool
}{
	// Strings.
	{`{"StringEquals": {"aws:UserName": "alice"}}`, ctx{"aws:username": {"alice"}}, true},
	{`{"StringEquals": {"aws:UserName": "alice"}}`, ctx{"aws:username": {"Alice"}}, false},
	{`{"StringEquals": {"aws:UserName": "alice"}}`, nil, false},
	{`{"StringEquals": {"aws:UserName": ["bob", "alice"]}}`, ctx{"aws:username": {"alice"}}, true},
	{`{"StringNotEquals": {"aws:UserName": ["bob", "alice"]}}`, ctx{"aws:username": {"alice"}}, false},
	{`{"StringNotEquals": {"aws:UserName": "bob"}}`, ctx{"aws:username": {"alice"}}, true},
	{`{"StringNotEquals": {"aws:UserName": "bob"}}`, nil, true},
	{`{"StringEqualsIgnoreCase": {"aws:UserName": "ALICE"}}`, ctx{"aws:username": {"alice"}}, true},
	{`{"StringNotEqualsIgnoreCase": {"aws:UserName": "ALICE"}}`, ctx{"aws:username": {"alice"}}, false},
	{`{"StringLike": {"s3:prefix": "home/?/*"}}`, ctx{"s3:prefix": {"home/a/x"}}, true},
	{`{"StringLike": {"s3:prefix": "home/?/*"}}`, ctx{"s3:prefix": {"home/ab/x"}}, false},
	{`{"StringLike": {"s3:prefix": "home/é/*"}}`, ctx{"s3:prefix": {"home/é/x"}}, true},
	{`{"StringLike": {"s3:prefix": "a${*}b"}}`, ctx{"s3:prefix": {"a*b"}}, true},
	{`{"StringLike": {"s3:prefix": "a${*}b"}}`, ctx{"s3:prefix": {"axb"}}, false},
	{`{"StringNotLike": {"s3:prefix": ["tmp/*", "cache/*"]}}`, ctx{"s3:prefix": {"tmp/x"}}, false},
	{`{"StringNotLike": {"s3:prefix": ["tmp/*", "cache/*"]}}`, ctx{"s3:prefix": {"data/x"}}, true},
	{`{"StringEquals": {"s3:delimiter": "/"}}`, ctx{"s3:delimiter": {"/"}}, true},
	// Numbers: the context value is on the left of the comparison.
	{`{"NumericLessThanEquals": {"s3:max-keys": "10"}}`, ctx{"s3:max-keys": {"10"}}, true},
	{`{"NumericLessThan": {"s3:max-keys": 10}}`, ctx{"s3:max-keys": {"10"}}, false},
	{`{"NumericGreaterThan": {"s3:max-keys": "10"}}`, ctx{"s3:max-keys": {"11"}}, true},
	{`{"NumericGreaterThanEquals": {"s3:max-keys": "10.5"}}`, ctx{"s3:max-keys": {"10"}}, false},
	{`{"NumericEquals": {"s3:max-keys": "100"}}`, ctx{"s3:max-keys": {"1e2"}}, true},
	{`{"NumericNotEquals": {"s3:max-keys": "100"}}`, ctx{"s3:max-keys": {"5"}}, true},
	{`{"NumericNotEquals": {"s3:max-keys": "100"}}`, nil, true},
	{`{"NumericEquals": {"s3:max-keys": "100"}}`, ctx{"s3:max-keys": {"many"}}, false},
	// Dates, in ISO 8601 or epoch seconds on either side.
	{`{"DateLessThan": {"aws:EpochTime": "1700000000"}}`, ctx{"aws:epochtime": {"1699999999"}}, true},
	{`{"DateGreaterThanEquals": {"aws:CurrentTime": "2023-11-14T22:13:20Z"}}`, ctx{"aws:currenttime": {"1700000000"}}, true},
	{`{"DateEquals": {"aws:CurrentTime": "2024-01-01"}}`, ctx{"aws:currenttime": {"2024-01-01T00:00:00Z"}}, true},
	{`{"DateNotEquals": {"aws:CurrentTime": "2024-01-01T00:00:00Z"}}`, ctx{"aws:currenttime": {"2024-01-01T00:00:01Z"}}, true},
	{`{"DateLessThanEquals": {"aws:CurrentTime": "2024-01-01T00:00:00Z"}}`, ctx{"aws:currenttime": {"2024-01-01T00:00:00.5Z"}}, false},
	// Booleans.
	{`{"Bool": {"aws:SecureTransport": true}}`, ctx{"aws:securetransport": {"true"}}, true},
	{`{"Bool": {"aws:SecureTransport": "true"}}`, ctx{"aws:securetransport": {"TRUE"}}, true},
	{`{"Bool": {"aws:SecureTransport": "true"}}`, ctx{"aws:securetransport": {"false"}}, false},
	{`{"Bool": {"aws:SecureTransport": "false"}}`, nil, false},
	// Addresses.
	{`{"IpAddress": {"aws:SourceIp": "203.0.113.5"}}`, ctx{"aws:sourceip": {"203.0.113.5"}}, true},
	{`{"IpAddress": {"aws:SourceIp": "203.0.113.5"}}`, ctx{"aws:sourceip": {"203.0.113.6"}}, false},
	{`{"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}`, ctx{"aws:sourceip": {"not-an-ip"}}, false},
	{`{"IpAddress": {"aws:SourceIp": "2001:db8::/32"}}`, ctx{"aws:sourceip": {"2001:db8:ffff::1"}}, true},
	{`{"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}`, nil, false},
	{`{"NotIpAddress": {"aws:SourceIp": "203.0.113.0/24"}}`, ctx{"aws:sourceip": {"198.51.100.1"}}, true},
	{`{"NotIpAddress": {"aws:SourceIp": "203.0.113.0/24"}}`, ctx{"aws:sourceip": {"203.0.113.1"}}, false},
	// Presence.
	{`{"Null": {"s3:x-amz-acl": "true"}}`, nil, true},
	{`{"Null": {"s3:x-amz-acl": "true"}}`, ctx{"s3:x-amz-acl": {"private"}}, false},
	{`{"Null": {"s3:x-amz-acl": false}}`, ctx{"s3:x-amz-acl": {"private"}}, true},
	{`{"Null": {"s3:x-amz-acl": "false"}}`, ctx{"s3:x-amz-acl": {}}, false},
	// ARNs, component by component.
	{`{"ArnLike": {"aws:SourceArn": "arn:aws:iam::acme:user/*"}}`, ctx{"aws:sourcearn": {"arn:aws:iam::acme:user/alice"}}, true},
	{`{"ArnEquals": {"aws:SourceArn": "arn:aws:iam::*:user/alice"}}`, ctx{"aws:sourcearn": {"arn:aws:iam::globex:user/alice"}}, true},
	{`{"ArnLike": {"aws:SourceArn": "arn:aws:iam::acme*"}}`, ctx{"aws:sourcearn": {"arn:aws:iam::acme:user/alice"}}, false},
	{`{"ArnLike": {"aws:SourceArn": "arn:aws:s3:::b/*"}}`, ctx{"aws:sourcearn": {"arn:aws:s3:::b/x:y"}}, true},
	{`{"ArnNotLike": {"aws:SourceArn": "arn:aws:iam::acme:*"}}`, ctx{"aws:sourcearn": {"arn:aws:iam::globex:user/bob"}}, true},
	{`{"ArnNotEquals": {"aws:SourceArn": "arn:aws:iam::acme:user/alice"}}`, ctx{"aws:sourcearn": {"arn:aws:iam::acme:user/alice"}}, false},
	{`{"ArnLike": {"aws:SourceArn": "arn:aws:iam::acme:user/*"}}`, ctx{"aws:sourcearn": {"alice"}}, false},
	// IfExists.
	{`{"StringEqualsIfExists": {"s3:x-amz-acl": "private"}}`, nil, true},
	{`{"StringEqualsIfExists": {"s3:x-amz-acl": "private"}}`, ctx{"s3:x-amz-acl": {"public-read"}}, false},
	{`{"NumericLessThanIfExists": {"s3:max-keys": "10"}}`, ctx{"s3:max-keys": {"5"}}, true},
	{`{"NotIpAddressIfExists": {"aws:SourceIp": "10.0.0.0/8"}}`, ctx{"aws:sourceip": {"10.1.2.3"}}, false},
	// Set qualifiers.
	{`{"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}`, ctx{"aws:tagkeys": {"x", "b"}}, true},
	{`{"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}`, ctx{"aws:tagkeys": {"x", "y"}}, false},
	{`{"ForAnyValue:StringEquals": {"aws:TagKeys": ["a", "b"]}}`, nil, false},
	{`{"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}`, ctx{"aws:tagkeys": {"a", "b"}}, true},
	{`{"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}`, ctx{"aws:tagkeys": {"a", "c"}}, false},
	{`{"ForAllValues:StringEquals": {"aws:TagKeys": ["a", "b"]}}`, nil, true},
	{`{"ForAnyValue:StringNotEquals": {"aws:TagKeys": "a"}}`, ctx{"aws:tagkeys": {"a", "b"}}, true},
	{`{"ForAllValues:StringNotEquals": {"aws:TagKeys": "a"}}`, ctx{"aws:tagkeys": {"a", "b"}}, false},
	{`{"ForAllValues:StringNotEquals": {"aws:TagKeys": "a"}}`, ctx{"aws:tagkeys": {"b", "c"}}, true},
	{`{"ForAnyValue:StringLikeIfExists": {"aws:TagKeys": "a*"}}`, nil, true},
	// Unqualified operators on multi-valued keys.
	{`{"StringEquals": {"aws:TagKeys": "a"}}`, ctx{"aws:tagkeys": {"b", "a"}}, true},
	{`{"StringNotEquals": {"aws:TagKeys": "a"}}`, ctx{"aws:tagkeys": {"b", "a"}}, false},
	// Keys are ANDed within and across operators; names are case-insensitive.
	{`{"StringEquals": {"aws:UserName": "alice", "s3:x-amz-acl": "private"}}`, ctx{"aws:username": {"alice"}}, false},
	{`{"StringEquals": {"aws:UserName": "alice", "s3:x-amz-acl": "private"}}`, ctx{"aws:username": {"alice"}, "s3:x-amz-acl": {"private"}}, true},
	{`{"StringEquals": {"aws:UserName": "alice"}, "Bool": {"aws:SecureTransport": "true"}}`, ctx{"aws:username": {"alice"}}, false},
	{`{"StringEquals": {"AWS:USERNAME": "alice"}}`, ctx{"aws:username": {"alice"}}, true},
	{`{"StringEquals": {"aws:username": "alice"}}`, ctx{"AWS:UserName": {"alice"}}, true},
	{`{"StringEquals": {"s3:ExistingObjectTag/Project": "x"}}`, ctx{"s3:existingobjecttag/project": {"x"}}, true},
	{`{}`, nil, true},
	// Policy variables.
	{`{"StringEquals": {"s3:prefix": "home/${aws:username}/"}}`, ctx{"aws:username": {"alice"}, "s3:prefix": {"home/alice/"}}, true},
	{`{"StringEquals": {"s3:prefix": "home/${aws:username}/"}}`, ctx{"s3:prefix": {"home//"}}, false},
	{`{"StringEquals": {"s3:prefix": "home/${aws:username, 'guest'}/"}}`, ctx{"s3:prefix": {"home/guest/"}}, true},
	{`{"StringLike": {"s3:prefix": "${aws:userid}:*"}}`, ctx{"aws:userid": {"AID1"}, "s3:prefix": {"AID1:x"}}, true},
	{`{"StringLike": {"s3:prefix": "${aws:userid}"}}`, ctx{"aws:userid": {"A?"}, "s3:prefix": {"AB"}}, false},
	{`{"StringEquals": {"s3:prefix": "${$}{${?}}"}}`, ctx{"s3:prefix": {"${?}"}}, true},
}

func TestConditions(t *testing.T) {
	for _, c := range conditionCases {
		if got := holds(t, Version2012, c.cond, c.ctx); got != c.want {
			t.Errorf("%s with %v = %v, want %v", c.cond, c.ctx, got, c.want)
		}
	}
}

// Under the 2008 language, and with no Version, AWS reads ${...} literally.
func TestVariablesNeedVersion2012(t *testing.T) {
	cond := `{"StringEquals": {"s3:prefix": "${aws:username}"}}`
	literal := ctx{"aws:username": {"alice"}, "s3:prefix": {"${aws:username}"}}
	expanded := ctx{"aws:username": {"alice"}, "s3:prefix": {"alice"}}
	if !holds(t, Version2008, cond, literal) || holds(t, Version2008, cond, expanded) {
		t.Error("2008-10-17 expanded a variable")
	}
	if holds(t, Version2012, cond, literal) || !holds(t, Version2012, cond, expanded) {
		t.Error("2012-10-17 did not expand a variable")
	}
	doc := `{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
		"Resource": "arn:aws:s3:::examplebucket/${aws:username}/*"}}`
	p, err := Parse([]byte(doc), bucket)
	if err != nil {
		t.Fatal(err)
	}
	r := req(anon, "s3:GetObject", obj("alice/k"), "aws:username", "alice")
	if p.Evaluate(r) != NoMatch {
		t.Error("no Version expanded a variable in Resource")
	}
	if r.Resource = obj("${aws:username}/k"); p.Evaluate(r) != Allow {
		t.Error("no Version: literal resource did not match")
	}
}

func TestGlob(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true}, {"", "a", false}, {"*", "", true}, {"*", "abc", true},
		{"a*c", "abbbc", true}, {"a*c", "abbbd", false}, {"a?c", "abc", true},
		{"a?c", "ac", false}, {"*a*b*c*", "xxaxxbxxcxx", true}, {"*a*b*c*", "xxcxxbxxa", false},
		{"**a", "ba", true}, {"a*b*", "ab", true}, {"*ab", "aab", true}, {"a**?", "a", false},
		{"日本?", "日本語", true}, {"*.jpg", "x.jpeg", false},
	}
	for _, c := range cases {
		if got := compileGlob(c.pattern).match(c.s); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}
