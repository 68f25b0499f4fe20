package policy

import (
	"errors"
	"testing"
)

const bucket = "examplebucket"

const (
	bucketARN = "arn:aws:s3:::examplebucket"
	alice     = "arn:aws:iam::acme:user/alice"
	admin     = "arn:aws:iam::acme:user/admin"
	bob       = "arn:aws:iam::globex:user/bob"
	canonical = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
)

func obj(key string) string { return bucketARN + "/" + key }

// req builds a request; ctx alternates keys and values, a key repeated adds a value.
func req(who []string, action, resource string, ctx ...string) Request {
	r := Request{Principals: who, Anonymous: len(who) == 0, Action: action, Resource: resource}
	if len(ctx) > 0 {
		r.Context = map[string][]string{}
		for i := 0; i+1 < len(ctx); i += 2 {
			r.Context[ctx[i]] = append(r.Context[ctx[i]], ctx[i+1])
		}
	}
	return r
}

var (
	anon     []string
	aliceIDs = []string{alice, "acme"}
	adminIDs = []string{admin, "acme"}
	bobIDs   = []string{bob, "globex"}
)

type check struct {
	name string
	r    Request
	want Decision
}

// examples are AWS's documented bucket-policy examples, adapted to the
// bucket and to this gateway's account ids (tenant names).
var examples = []struct {
	name   string
	doc    string
	checks []check
}{
	{"public read", `{
	  "Version": "2012-10-17",
	  "Statement": [{"Sid": "PublicRead", "Effect": "Allow", "Principal": "*",
	    "Action": ["s3:GetObject", "s3:GetObjectVersion"],
	    "Resource": ["arn:aws:s3:::examplebucket/*"]}]}`, []check{
		{"anonymous get", req(anon, "s3:GetObject", obj("photo.jpg")), Allow},
		{"user get", req(aliceIDs, "s3:GetObject", obj("a/b/c")), Allow},
		{"action case-insensitive", req(anon, "S3:getobject", obj("photo.jpg")), Allow},
		{"put not granted", req(anon, "s3:PutObject", obj("photo.jpg")), NoMatch},
		{"bucket not an object", req(anon, "s3:ListBucket", bucketARN), NoMatch},
		{"other bucket", req(anon, "s3:GetObject", "arn:aws:s3:::otherbucket/photo.jpg"), NoMatch},
		{"bucket name prefix", req(anon, "s3:GetObject", "arn:aws:s3:::examplebucket2/x"), NoMatch},
	}},
	{"source ip", `{
	  "Version": "2012-10-17", "Id": "S3PolicyId1",
	  "Statement": [
	    {"Sid": "IPAllow", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
	     "Resource": ["arn:aws:s3:::examplebucket", "arn:aws:s3:::examplebucket/*"],
	     "Condition": {"NotIpAddress": {"aws:SourceIp": ["192.0.2.0/24", "2001:DB8:1234:5678::/64"]}}},
	    {"Sid": "Acme", "Effect": "Allow", "Principal": {"AWS": "acme"}, "Action": "s3:GetObject",
	     "Resource": "arn:aws:s3:::examplebucket/*"}]}`, []check{
		{"inside v4 range", req(aliceIDs, "s3:GetObject", obj("k"), "aws:sourceip", "192.0.2.7"), Allow},
		{"outside v4 range", req(aliceIDs, "s3:GetObject", obj("k"), "aws:sourceip", "203.0.113.1"), Deny},
		{"inside v6 range", req(aliceIDs, "s3:GetObject", obj("k"), "aws:sourceip", "2001:db8:1234:5678::9"), Allow},
		{"outside v6 range", req(aliceIDs, "s3:GetObject", obj("k"), "aws:sourceip", "2001:db8::9"), Deny},
		{"v4-mapped v6", req(aliceIDs, "s3:GetObject", obj("k"), "aws:sourceip", "::ffff:192.0.2.8"), Allow},
		{"no source ip", req(aliceIDs, "s3:GetObject", obj("k")), Deny},
		{"anonymous inside range", req(anon, "s3:GetObject", obj("k"), "aws:sourceip", "192.0.2.7"), NoMatch},
		{"anonymous outside range", req(anon, "s3:ListBucket", bucketARN, "aws:sourceip", "10.0.0.1"), Deny},
	}},
	{"secure transport", `{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Sid": "AllowSSLRequestsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
	     "Resource": ["arn:aws:s3:::examplebucket", "arn:aws:s3:::examplebucket/*"],
	     "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
	    {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/*"}]}`, []check{
		{"https", req(anon, "s3:GetObject", obj("k"), "aws:securetransport", "true"), Allow},
		{"http", req(anon, "s3:GetObject", obj("k"), "aws:securetransport", "false"), Deny},
		{"http other action", req(aliceIDs, "s3:DeleteObject", obj("k"), "aws:securetransport", "false"), Deny},
		{"key missing", req(anon, "s3:GetObject", obj("k")), Allow},
	}},
	{"home prefix", `{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Sid": "AllowListingOfUserFolder", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::acme:root"},
	     "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::examplebucket",
	     "Condition": {"StringLike": {"s3:prefix": ["home/${aws:username}/*", "home/${aws:username}"]}}},
	    {"Sid": "AllowAllS3ActionsInUserFolder", "Effect": "Allow", "Principal": {"AWS": "acme"},
	     "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
	     "Resource": "arn:aws:s3:::examplebucket/home/${aws:username}/*"}]}`, []check{
		{"list own", req(aliceIDs, "s3:ListBucket", bucketARN, "aws:username", "alice", "s3:prefix", "home/alice/"), Allow},
		{"list own folder", req(aliceIDs, "s3:ListBucket", bucketARN, "aws:username", "alice", "s3:prefix", "home/alice"), Allow},
		{"list other", req(aliceIDs, "s3:ListBucket", bucketARN, "aws:username", "alice", "s3:prefix", "home/bob/"), NoMatch},
		{"list without prefix", req(aliceIDs, "s3:ListBucket", bucketARN, "aws:username", "alice"), NoMatch},
		{"get own", req(aliceIDs, "s3:GetObject", obj("home/alice/doc"), "aws:username", "alice"), Allow},
		{"get other", req(aliceIDs, "s3:GetObject", obj("home/bob/doc"), "aws:username", "alice"), NoMatch},
		{"user name is literal", req(aliceIDs, "s3:GetObject", obj("home/bob/doc"), "aws:username", "*"), NoMatch},
		{"other account", req(bobIDs, "s3:GetObject", obj("home/bob/doc"), "aws:username", "bob"), NoMatch},
		{"anonymous", req(anon, "s3:GetObject", obj("home//doc")), NoMatch},
	}},
	{"deny delete by NotPrincipal", `{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Sid": "DenyDeleteButAdmin", "Effect": "Deny", "NotPrincipal": {"AWS": "arn:aws:iam::acme:user/admin"},
	     "Action": ["s3:DeleteObject", "s3:DeleteObjectVersion"], "Resource": "arn:aws:s3:::examplebucket/*"},
	    {"Effect": "Allow", "Principal": {"AWS": "acme"}, "Action": "s3:*",
	     "Resource": ["arn:aws:s3:::examplebucket", "arn:aws:s3:::examplebucket/*"]}]}`, []check{
		{"user delete", req(aliceIDs, "s3:DeleteObject", obj("k")), Deny},
		{"user get", req(aliceIDs, "s3:GetObject", obj("k")), Allow},
		{"admin delete", req(adminIDs, "s3:DeleteObject", obj("k")), Allow},
		{"anonymous delete", req(anon, "s3:DeleteObjectVersion", obj("k")), Deny},
		{"other account delete", req(bobIDs, "s3:DeleteObject", obj("k")), Deny},
		{"other account get", req(bobIDs, "s3:GetObject", obj("k")), NoMatch},
	}},
	{"bucket-owner-full-control", `{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Sid": "AllowPut", "Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::globex:root"]},
	     "Action": "s3:PutObject", "Resource": "arn:aws:s3:::examplebucket/*",
	     "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}}},
	    {"Sid": "RequireAcl", "Effect": "Deny", "Principal": "*", "Action": "s3:PutObject",
	     "Resource": "arn:aws:s3:::examplebucket/*",
	     "Condition": {"StringNotEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}}}]}`, []check{
		{"with acl", req(bobIDs, "s3:PutObject", obj("k"), "s3:x-amz-acl", "bucket-owner-full-control"), Allow},
		{"wrong acl", req(bobIDs, "s3:PutObject", obj("k"), "s3:x-amz-acl", "public-read"), Deny},
		{"acl case matters", req(bobIDs, "s3:PutObject", obj("k"), "s3:x-amz-acl", "Bucket-Owner-Full-Control"), Deny},
		{"no acl", req(bobIDs, "s3:PutObject", obj("k")), Deny},
		{"get untouched", req(bobIDs, "s3:GetObject", obj("k")), NoMatch},
		{"owner with acl", req(aliceIDs, "s3:PutObject", obj("k"), "s3:x-amz-acl", "bucket-owner-full-control"), NoMatch},
	}},
	{"current time window", `{
	  "Version": "2012-10-17",
	  "Statement": [{"Effect": "Allow", "Principal": {"AWS": "acme"}, "Action": "s3:GetObject",
	    "Resource": "arn:aws:s3:::examplebucket/*",
	    "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01T00:00:00Z"},
	                  "DateLessThan": {"aws:CurrentTime": "2020-06-30T00:00:00Z"}}}]}`, []check{
		{"inside", req(aliceIDs, "s3:GetObject", obj("k"), "aws:currenttime", "2020-03-01T12:00:00Z"), Allow},
		{"inside other zone", req(aliceIDs, "s3:GetObject", obj("k"), "aws:currenttime", "2020-06-30T01:00:00+02:00"), Allow},
		{"after", req(aliceIDs, "s3:GetObject", obj("k"), "aws:currenttime", "2021-01-01T00:00:00Z"), NoMatch},
		{"before", req(aliceIDs, "s3:GetObject", obj("k"), "aws:currenttime", "2019-12-31T23:59:59Z"), NoMatch},
		{"missing", req(aliceIDs, "s3:GetObject", obj("k")), NoMatch},
		{"garbage", req(aliceIDs, "s3:GetObject", obj("k"), "aws:currenttime", "soon"), NoMatch},
	}},
	{"tag key sets", `{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Effect": "Allow", "Principal": {"AWS": "acme"}, "Action": "s3:PutObject",
	     "Resource": "arn:aws:s3:::examplebucket/*",
	     "Condition": {"ForAllValues:StringLike": {"s3:RequestObjectTagKeys": ["Owner", "Creation*"]}}},
	    {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::examplebucket/*",
	     "Condition": {"ForAnyValue:StringEquals": {"s3:RequestObjectTagKeys": "Project"}}}]}`, []check{
		{"one allowed key", req(aliceIDs, "s3:PutObject", obj("k"), "s3:requestobjecttagkeys", "Owner"), Allow},
		{"all allowed keys", req(aliceIDs, "s3:PutObject", obj("k"), "s3:requestobjecttagkeys", "Owner", "s3:requestobjecttagkeys", "CreationDate"), Allow},
		{"one key not allowed", req(aliceIDs, "s3:PutObject", obj("k"), "s3:requestobjecttagkeys", "Owner", "s3:requestobjecttagkeys", "Color"), NoMatch},
		{"no tags: ForAllValues holds", req(aliceIDs, "s3:PutObject", obj("k")), Allow},
		{"denied key among others", req(aliceIDs, "s3:PutObject", obj("k"), "s3:requestobjecttagkeys", "Owner", "s3:requestobjecttagkeys", "Project"), Deny},
	}},
	{"principal forms", `{
	  "Version": "2012-10-17",
	  "Statement": [
	    {"Sid": "Account", "Effect": "Allow", "Principal": {"AWS": "acme"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/acme/*"},
	    {"Sid": "Root", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::globex:root"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/globex/*"},
	    {"Sid": "User", "Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::acme:user/admin"]}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/admin/*"},
	    {"Sid": "Canonical", "Effect": "Allow", "Principal": {"CanonicalUser": "0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/canon/*"},
	    {"Sid": "Everyone", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/pub/*"},
	    {"Sid": "Logs", "Effect": "Allow", "Principal": {"Service": "logging.s3.amazonaws.com"}, "Action": "s3:PutObject", "Resource": "arn:aws:s3:::examplebucket/logs/*"}]}`, []check{
		{"account id", req(aliceIDs, "s3:GetObject", obj("acme/k")), Allow},
		{"caller names its root arn", req([]string{"arn:aws:iam::acme:root"}, "s3:GetObject", obj("acme/k")), Allow},
		{"root arn grants account users", req(bobIDs, "s3:GetObject", obj("globex/k")), Allow},
		{"account from user arn", req([]string{alice}, "s3:GetObject", obj("acme/k")), Allow},
		{"account from role session", req([]string{"arn:aws:sts::globex:assumed-role/r/s"}, "s3:GetObject", obj("globex/k")), Allow},
		{"account does not cross", req(bobIDs, "s3:GetObject", obj("acme/k")), NoMatch},
		{"user arn", req(adminIDs, "s3:GetObject", obj("admin/k")), Allow},
		{"other user of account", req(aliceIDs, "s3:GetObject", obj("admin/k")), NoMatch},
		{"canonical id", req([]string{canonical}, "s3:GetObject", obj("canon/k")), Allow},
		{"AWS star includes anonymous", req(anon, "s3:GetObject", obj("pub/k")), Allow},
		{"anonymous flag wins", Request{Principals: []string{"acme"}, Anonymous: true, Action: "s3:GetObject", Resource: obj("acme/k")}, NoMatch},
		{"service never matches", req([]string{"logging.s3.amazonaws.com"}, "s3:PutObject", obj("logs/k")), NoMatch},
	}},
}

func TestExamples(t *testing.T) {
	for _, ex := range examples {
		p, err := Parse([]byte(ex.doc), bucket)
		if err != nil {
			t.Fatalf("%s: Parse: %v", ex.name, err)
		}
		for _, c := range ex.checks {
			if got := p.Evaluate(c.r); got != c.want {
				t.Errorf("%s / %s: Evaluate = %v, want %v", ex.name, c.name, got, c.want)
			}
		}
	}
}

func TestErrorType(t *testing.T) {
	_, err := Parse([]byte(`[]`), bucket)
	var pe *Error
	if !errors.As(err, &pe) || pe.Reason == "" {
		t.Fatalf("Parse error = %#v, want *Error with a reason", err)
	}
	if _, err := Parse([]byte(examples[0].doc), bucket); err != nil {
		t.Fatalf("valid policy: %v", err)
	}
}

func TestParsedFields(t *testing.T) {
	p, err := Parse([]byte(examples[1].doc), bucket)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != Version2012 || p.ID != "S3PolicyId1" || len(p.Statements) != 2 {
		t.Fatalf("policy = %+v", p)
	}
	s := p.Statements[0]
	if s.Sid != "IPAllow" || s.Effect != EffectDeny || s.Principal == nil || !s.Principal.Wildcard ||
		len(s.Action) != 1 || len(s.Resource) != 2 || len(s.Condition) != 1 {
		t.Fatalf("statement = %+v", s)
	}
	c := s.Condition[0]
	if c.Operator != "NotIpAddress" || c.Key != "aws:sourceip" || len(c.Values) != 2 {
		t.Fatalf("condition = %+v", c)
	}
	if got := p.Statements[1].Principal.AWS; len(got) != 1 || got[0] != "acme" {
		t.Fatalf("principal = %v", got)
	}
}

func TestHandBuiltPolicy(t *testing.T) {
	p := &Policy{Version: Version2012, Statements: []Statement{
		{Effect: EffectAllow, Principal: &Principal{Wildcard: true}, Action: []string{"s3:Get*"},
			Resource: []string{obj("*")}, Condition: []Condition{{Operator: "StringEquals", Key: "AWS:UserName", Values: []string{"alice"}}}},
		{Effect: "Maybe", Principal: &Principal{Wildcard: true}, Action: []string{"s3:*"}, Resource: []string{obj("*")}},
	}}
	if got := p.Evaluate(req(aliceIDs, "s3:GetObject", obj("k"), "aws:username", "alice")); got != Allow {
		t.Errorf("hand-built allow = %v", got)
	}
	if got := p.Evaluate(req(aliceIDs, "s3:GetObject", obj("k"))); got != NoMatch {
		t.Errorf("hand-built without user = %v", got)
	}
	if got := (*Policy)(nil).Evaluate(req(anon, "s3:GetObject", obj("k"))); got != NoMatch {
		t.Errorf("nil policy = %v", got)
	}
	if Deny.String() != "Deny" || Decision(7).String() != "Decision(7)" {
		t.Errorf("Decision.String")
	}
}
