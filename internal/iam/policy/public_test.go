package policy

import "testing"

func TestIsPublic(t *testing.T) {
	star := func(cond string) string { return stmt("Condition", cond) }
	cases := []struct {
		name, doc string
		want      bool
	}{
		{"star principal", stmt(), true},
		{"AWS star", stmt("Principal", `{"AWS": ["acme", "*"]}`), true},
		{"account principal", stmt("Principal", `{"AWS": "acme"}`), false},
		{"canonical principal", stmt("Principal", `{"CanonicalUser": "`+canonical+`"}`), false},
		{"deny only", stmt("Effect", `"Deny"`), false},
		{"allow all but one", stmt("Principal", "-", "NotPrincipal", `{"AWS": "acme"}`), true},
		{"NotPrincipal star", stmt("Principal", "-", "NotPrincipal", `"*"`), false},
		{"source ip range", star(`{"IpAddress": {"aws:SourceIp": ["192.0.2.0/24", "2001:db8::/32"]}}`), false},
		{"source ip everywhere", star(`{"IpAddress": {"aws:SourceIp": "0.0.0.0/0"}}`), true},
		{"source ip /4", star(`{"IpAddress": {"aws:SourceIp": ["192.0.2.0/24", "0.0.0.0/4"]}}`), true},
		{"source ip v6 everywhere", star(`{"IpAddress": {"aws:SourceIp": "::/0"}}`), true},
		{"source ip excluded", star(`{"NotIpAddress": {"aws:SourceIp": "192.0.2.0/24"}}`), true},
		{"source ip if exists", star(`{"IpAddressIfExists": {"aws:SourceIp": "192.0.2.0/24"}}`), true},
		{"principal account", star(`{"StringEquals": {"aws:PrincipalAccount": "acme"}}`), false},
		{"principal account any value", star(`{"ForAnyValue:StringEquals": {"aws:PrincipalAccount": ["acme", "globex"]}}`), false},
		{"principal account all values", star(`{"ForAllValues:StringEquals": {"aws:PrincipalAccount": "acme"}}`), true},
		{"principal account wildcard", star(`{"StringLike": {"aws:PrincipalAccount": "ac*"}}`), true},
		{"principal arn fixed", star(`{"ArnEquals": {"aws:PrincipalArn": "arn:aws:iam::acme:user/alice"}}`), false},
		{"source arn variable", star(`{"ArnLike": {"aws:SourceArn": "arn:aws:iam::acme:user/${aws:username}"}}`), true},
		{"source vpce", star(`{"StringEquals": {"aws:SourceVpce": "vpce-1a2b3c4d"}}`), false},
		{"source vpce negated", star(`{"StringNotEquals": {"aws:SourceVpce": "vpce-1a2b3c4d"}}`), true},
		{"acl only", star(`{"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}}`), true},
		{"secure transport only", star(`{"Bool": {"aws:SecureTransport": "true"}}`), true},
		{"restricted among others", star(`{"Bool": {"aws:SecureTransport": "true"}, "IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}`), false},
		{"source ip as string", star(`{"StringEquals": {"aws:SourceIp": "10.0.0.1"}}`), true},
		{"one public statement of two", `{"Version": "2012-10-17", "Statement": [
			{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/*",
			 "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}},
			{"Effect": "Allow", "Principal": "*", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::examplebucket"}]}`, true},
	}
	for _, c := range cases {
		p, err := Parse([]byte(c.doc), bucket)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := p.IsPublic(); got != c.want {
			t.Errorf("%s: IsPublic = %v, want %v", c.name, got, c.want)
		}
	}
	wantPublic := map[string]bool{"public read": true, "secure transport": true, "principal forms": true,
		"bucket-owner-full-control": false, "source ip": false, "home prefix": false}
	for _, ex := range examples {
		want, ok := wantPublic[ex.name]
		if !ok {
			continue
		}
		p, err := Parse([]byte(ex.doc), bucket)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.IsPublic(); got != want {
			t.Errorf("example %s: IsPublic = %v, want %v", ex.name, got, want)
		}
	}
	if (*Policy)(nil).IsPublic() {
		t.Error("nil policy is public")
	}
}
