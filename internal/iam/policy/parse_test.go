package policy

import (
	"errors"
	"strings"
	"testing"
)

// stmt is a valid statement with field overrides spliced in; "-Name"
// removes a field.
func stmt(fields ...string) string {
	base := map[string]string{
		"Effect":    `"Allow"`,
		"Principal": `"*"`,
		"Action":    `"s3:GetObject"`,
		"Resource":  `"arn:aws:s3:::examplebucket/*"`,
	}
	order := []string{"Effect", "Principal", "Action", "Resource"}
	for i := 0; i+1 < len(fields); i += 2 {
		if _, ok := base[fields[i]]; !ok {
			order = append(order, fields[i])
		}
		base[fields[i]] = fields[i+1]
	}
	var parts []string
	for _, k := range order {
		if v := base[k]; v != "-" {
			parts = append(parts, `"`+k+`": `+v)
		}
	}
	return `{"Version": "2012-10-17", "Statement": [{` + strings.Join(parts, ", ") + `}]}`
}

var malformed = []struct {
	name, doc, reason string
}{
	{"empty", ``, "Policies must be valid JSON"},
	{"not an object", `["Statement"]`, "Policies must be valid JSON"},
	{"leading junk", `x{"Statement": []}`, "Policies must be valid JSON"},
	{"truncated", `{"Version": "2012-10-17", "Statement": [`, "Policies must be valid JSON"},
	{"trailing junk", stmt() + `}`, "Policies must be valid JSON"},
	{"too large", `{"Id": "` + strings.Repeat("x", MaxSize) + `"}`, "maximum allowed document size"},
	{"no statement", `{"Version": "2012-10-17"}`, "Missing required field Statement"},
	{"empty statement", `{"Version": "2012-10-17", "Statement": []}`, "Statement is empty"},
	{"statement string", `{"Statement": "all"}`, "Statement must be"},
	{"statement null", `{"Statement": null}`, "Statement must be"},
	{"statement list of strings", `{"Statement": ["x"]}`, "Statement must be an object"},
	{"unknown top field", `{"Statement": [], "Comment": "x"}`, "Unknown field Comment"},
	{"unknown statement field", stmt("Principals", `"*"`), "Unknown field Principals"},
	{"lower-case field", stmt("effect", `"Allow"`, "Effect", "-"), "Unknown field effect"},
	{"bad version", strings.Replace(stmt(), "2012-10-17", "2012-10-18", 1), "valid version"},
	{"numeric version", strings.Replace(stmt(), `"2012-10-17"`, `2012`, 1), "valid version"},
	{"numeric id", `{"Id": 1, "Statement": [{}]}`, "Id must be a string"},
	{"numeric sid", stmt("Sid", `1`), "Sid must be a string"},
	{"duplicate sid", `{"Statement": [{"Sid": "a", "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/*"},
		{"Sid": "a", "Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::examplebucket/*"}]}`, "must be unique"},
	{"missing effect", stmt("Effect", "-"), "Missing required field Effect"},
	{"bad effect", stmt("Effect", `"Allw"`), "Invalid effect: Allw"},
	{"lower-case effect", stmt("Effect", `"allow"`), "Invalid effect"},
	{"null effect", stmt("Effect", `null`), "Invalid effect"},
	{"missing principal", stmt("Principal", "-"), "Missing required field Principal"},
	{"principal and NotPrincipal", stmt("NotPrincipal", `"*"`), "both Principal and NotPrincipal"},
	{"principal bare string", stmt("Principal", `"acme"`), "Invalid principal in policy"},
	{"principal empty object", stmt("Principal", `{}`), "Invalid principal in policy"},
	{"principal empty list", stmt("Principal", `{"AWS": []}`), "Invalid principal in policy"},
	{"principal number", stmt("Principal", `{"AWS": 123456789012}`), "Invalid principal in policy"},
	{"principal federated", stmt("Principal", `{"Federated": "cognito-identity.amazonaws.com"}`), "Invalid principal in policy"},
	{"principal wildcard arn", stmt("Principal", `{"AWS": "arn:aws:iam::acme:user/*"}`), "Invalid principal in policy"},
	{"principal wildcard account", stmt("Principal", `{"AWS": "acme*"}`), "Invalid principal in policy"},
	{"principal other service arn", stmt("Principal", `{"AWS": "arn:aws:s3:::examplebucket"}`), "Invalid principal in policy"},
	{"principal bad account", stmt("Principal", `{"AWS": "ac me"}`), "Invalid principal in policy"},
	{"canonical user not hex", stmt("Principal", `{"CanonicalUser": "c-acme"}`), "Invalid principal in policy"},
	{"canonical user star", stmt("Principal", `{"CanonicalUser": "*"}`), "Invalid principal in policy"},
	{"missing action", stmt("Action", "-"), "Missing required field Action"},
	{"action and NotAction", stmt("NotAction", `"s3:PutObject"`), "both Action and NotAction"},
	{"action empty list", stmt("Action", `[]`), "Policy has invalid action"},
	{"action number", stmt("Action", `[1]`), "Policy has invalid action"},
	{"action other service", stmt("Action", `"iam:PassRole"`), "Policy has invalid action"},
	{"action no prefix", stmt("Action", `"GetObject"`), "Policy has invalid action"},
	{"action unknown", stmt("Action", `"s3:GetObjekt"`), "Policy has invalid action"},
	{"action pattern matching nothing", stmt("Action", `"s3:Frob*"`), "Policy has invalid action"},
	{"action empty name", stmt("Action", `"s3:"`), "Policy has invalid action"},
	{"missing resource", stmt("Resource", "-"), "Missing required field Resource"},
	{"resource and NotResource", stmt("NotResource", `"arn:aws:s3:::examplebucket/x"`), "both Resource and NotResource"},
	{"resource empty list", stmt("Resource", `[]`), "Policy has invalid resource"},
	{"resource star", stmt("Resource", `"*"`), "Policy has invalid resource"},
	{"resource not s3", stmt("Resource", `"arn:aws:iam::acme:user/alice"`), "Policy has invalid resource"},
	{"resource other bucket", stmt("Resource", `"arn:aws:s3:::otherbucket/*"`), "Policy resource must be within bucket"},
	{"resource bucket prefix", stmt("Resource", `"arn:aws:s3:::examplebucket2/*"`), "Policy resource must be within bucket"},
	{"resource bucket wildcard", stmt("Resource", `"arn:aws:s3:::example*"`), "Policy resource must be within bucket"},
	{"resource all buckets", stmt("Resource", `"arn:aws:s3:::*"`), "Policy resource must be within bucket"},
	{"NotResource other bucket", stmt("Resource", "-", "NotResource", `"arn:aws:s3:::other/*"`), "Policy resource must be within bucket"},
	{"object action on bucket", stmt("Resource", `"arn:aws:s3:::examplebucket"`), "Action does not apply to any resource(s) in statement"},
	{"bucket action on objects", stmt("Action", `"s3:ListBucket"`), "Action does not apply to any resource(s) in statement"},
	{"no action fits", stmt("Action", `["s3:ListBucket", "s3:GetBucketPolicy"]`), "Action does not apply to any resource(s) in statement"},
	{"account action", stmt("Action", `"s3:ListAllMyBuckets"`, "Resource", `["arn:aws:s3:::examplebucket", "arn:aws:s3:::examplebucket/*"]`), "Action does not apply to any resource(s) in statement"},
	{"condition not object", stmt("Condition", `[]`), "Invalid Condition block"},
	{"condition operator not object", stmt("Condition", `{"StringEquals": "x"}`), "Invalid Condition block"},
	{"condition operator empty", stmt("Condition", `{"StringEquals": {}}`), "Invalid Condition block"},
	{"unknown operator", stmt("Condition", `{"StringMatches": {"s3:prefix": "x"}}`), "Invalid Condition type : StringMatches"},
	{"operator case", stmt("Condition", `{"stringequals": {"s3:prefix": "x"}}`), "Invalid Condition type"},
	{"bad qualifier", stmt("Condition", `{"ForEachValue:StringEquals": {"s3:prefix": "x"}}`), "Invalid Condition type"},
	{"null with IfExists", stmt("Condition", `{"NullIfExists": {"s3:prefix": "true"}}`), "Invalid Condition type"},
	{"null with qualifier", stmt("Condition", `{"ForAnyValue:Null": {"s3:prefix": "true"}}`), "Invalid Condition type"},
	{"unknown key", stmt("Condition", `{"StringEquals": {"s3:flavour": "x"}}`), "Policy has an invalid condition key"},
	{"key other service", stmt("Condition", `{"StringEquals": {"ec2:Region": "x"}}`), "Policy has an invalid condition key"},
	{"tag key without name", stmt("Condition", `{"StringEquals": {"s3:ExistingObjectTag/": "x"}}`), "Policy has an invalid condition key"},
	{"value null", stmt("Condition", `{"StringEquals": {"s3:prefix": null}}`), "invalid condition value"},
	{"value empty list", stmt("Condition", `{"StringEquals": {"s3:prefix": []}}`), "invalid condition value"},
	{"value object", stmt("Condition", `{"StringEquals": {"s3:prefix": {"a": "b"}}}`), "invalid condition value"},
	{"bad number", stmt("Condition", `{"NumericLessThan": {"s3:max-keys": "ten"}}`), "invalid condition value"},
	{"NaN", stmt("Condition", `{"NumericLessThan": {"s3:max-keys": "NaN"}}`), "invalid condition value"},
	{"bad date", stmt("Condition", `{"DateLessThan": {"aws:CurrentTime": "tomorrow"}}`), "invalid condition value"},
	{"bad bool", stmt("Condition", `{"Bool": {"aws:SecureTransport": "yes"}}`), "invalid condition value"},
	{"bad null", stmt("Condition", `{"Null": {"s3:x-amz-acl": "1"}}`), "invalid condition value"},
	{"bad cidr", stmt("Condition", `{"IpAddress": {"aws:SourceIp": "192.0.2.0/33"}}`), "invalid condition value"},
	{"bad ip", stmt("Condition", `{"NotIpAddress": {"aws:SourceIp": "192.0.2"}}`), "invalid condition value"},
	{"unknown variable", stmt("Condition", `{"StringLike": {"s3:prefix": "home/${aws:nickname}/*"}}`), "Invalid policy variable"},
	{"unknown variable in resource", stmt("Resource", `"arn:aws:s3:::examplebucket/${user}/*"`), "Invalid policy variable"},
	{"bad variable default", stmt("Resource", `"arn:aws:s3:::examplebucket/${aws:username, guest}/*"`), "Invalid policy variable"},
}

func TestMalformed(t *testing.T) {
	for _, c := range malformed {
		p, err := Parse([]byte(c.doc), bucket)
		var pe *Error
		switch {
		case err == nil:
			t.Errorf("%s: parsed, want %q (%+v)", c.name, c.reason, p)
		case !errors.As(err, &pe):
			t.Errorf("%s: error %T, want *Error", c.name, err)
		case !strings.Contains(pe.Reason, c.reason):
			t.Errorf("%s: reason %q, want %q", c.name, pe.Reason, c.reason)
		}
	}
}

var wellFormed = []struct{ name, doc string }{
	{"minimal", stmt()},
	{"no version", `{"Statement": {"Effect": "Deny", "Principal": {"AWS": ["*"]}, "Action": "*", "Resource": "arn:aws:s3:::examplebucket"}}`},
	{"2008 version", strings.Replace(stmt(), "2012-10-17", "2008-10-17", 1)},
	{"whitespace first", "\n\t " + stmt()},
	{"action wildcards", stmt("Action", `["s3:Get*", "s3:*Object", "s3:?utObject", "S3:GETOBJECT"]`)},
	{"bucket and objects", stmt("Action", `["s3:GetObject", "s3:ListBucket"]`, "Resource", `["arn:aws:s3:::examplebucket", "arn:aws:s3:::examplebucket/*"]`)},
	{"some actions fit", stmt("Action", `["s3:GetObject", "s3:ListBucket"]`)},
	{"s3 star on bucket only", stmt("Action", `"s3:*"`, "Resource", `"arn:aws:s3:::examplebucket"`)},
	{"NotAction", stmt("Action", "-", "NotAction", `"s3:DeleteObject"`)},
	{"NotResource", stmt("Resource", "-", "NotResource", `"arn:aws:s3:::examplebucket/private/*"`)},
	{"NotPrincipal", stmt("Effect", `"Deny"`, "Principal", "-", "NotPrincipal", `{"AWS": "arn:aws:iam::acme:root"}`)},
	{"principal forms", stmt("Principal", `{"AWS": ["acme", "arn:aws:iam::acme:root", "arn:aws:iam::acme:user/a/b", "arn:aws:sts::acme:assumed-role/r/s"],
		"CanonicalUser": "`+canonical+`", "Service": "logging.s3.amazonaws.com"}`)},
	{"resource with wildcard key", stmt("Resource", `"arn:aws:s3:::examplebucket/*/photos/?.jpg"`)},
	{"resource with variable", stmt("Resource", `"arn:aws:s3:::examplebucket/home/${aws:username, 'guest'}/*"`)},
	{"unclosed variable is literal", stmt("Resource", `"arn:aws:s3:::examplebucket/${aws:username"`)},
	{"typed condition values", stmt("Condition", `{"NumericLessThan": {"s3:max-keys": [10, 2.5]}, "Bool": {"aws:SecureTransport": false},
		"DateGreaterThan": {"aws:EpochTime": 1700000000}, "IpAddress": {"aws:SourceIp": ["::1", "10.0.0.0/8", "::ffff:10.0.0.0/104"]}}`)},
	{"every operator", stmt("Condition", `{"StringEqualsIgnoreCase": {"s3:prefix": "a"}, "StringNotEqualsIgnoreCase": {"s3:prefix": "b"},
		"ArnLike": {"aws:SourceArn": "arn:aws:iam::acme:*"}, "ArnNotEquals": {"aws:PrincipalArn": "arn:aws:iam::acme:user/x"},
		"ForAllValues:NumericEqualsIfExists": {"s3:max-keys": 1}, "Null": {"aws:userid": true},
		"DateNotEquals": {"s3:object-lock-retain-until-date": "2030-01-01T00:00:00.000Z"}}`)},
	{"empty condition", stmt("Condition", `{}`)},
	{"tag keys", stmt("Condition", `{"StringEquals": {"s3:ExistingObjectTag/Project": "x", "aws:PrincipalTag/Team": "y"}}`)},
}

func TestWellFormed(t *testing.T) {
	for _, c := range wellFormed {
		if _, err := Parse([]byte(c.doc), bucket); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	doc := stmt("Sid", `"`+strings.Repeat("s", MaxSize-len(stmt("Sid", `""`)))+`"`)
	if len(doc) != MaxSize {
		t.Fatalf("test document is %d bytes", len(doc))
	}
	if _, err := Parse([]byte(doc), bucket); err != nil {
		t.Errorf("document of exactly %d bytes: %v", MaxSize, err)
	}
	if _, err := Parse([]byte(doc+" "), bucket); err == nil {
		t.Errorf("document of %d bytes parsed", MaxSize+1)
	}
}
