package iamcheck_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/iam/iamcheck"
)

// Each problem is placed where it is in the text, so an editor can show
// it beside the line.
func TestValidatePlacesProblems(t *testing.T) {
	for _, c := range []struct {
		name, doc          string
		severity, contains string
		line, column       int
	}{
		{"bad JSON", "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\"Effect\": \"Allow\" \"Action\": \"s3:GetObject\"}\n  ]\n}",
			"error", "not valid JSON", 4, 24},
		{"unknown operator", "{\"Version\": \"2012-10-17\",\n \"Statement\": {\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\",\n  \"Condition\": {\"StringEqualz\": {\"aws:username\": \"cy\"}}}}",
			"error", "Invalid Condition type : StringEqualz", 3, 17},
		{"resource no ARN", "{\"Version\": \"2012-10-17\",\n \"Statement\": {\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\",\n  \"Resource\": \"my-bucket/*\"}}",
			"error", "Resource my-bucket/* must be in ARN format", 3, 15},
		{"bad effect", "{\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Alow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\"}]}",
			"error", "Invalid effect: Alow", 1, 52},
		{"unknown action", "{\"Version\": \"2012-10-17\",\n \"Statement\": {\"Effect\": \"Allow\",\n  \"Action\": [\"s3:GetObject\", \"s3:GetObjekt\"], \"Resource\": \"*\"}}",
			"warning", "s3:GetObjekt is not an action of S3", 3, 30},
		{"unknown service", "{\"Version\": \"2012-10-17\", \"Statement\": {\"Effect\": \"Allow\", \"Action\": \"ec2:RunInstances\", \"Resource\": \"*\"}}",
			"warning", "the service ec2 is not served here", 1, 70},
	} {
		ps := iamcheck.Validate(iamcheck.Identity, c.doc)
		if len(ps) != 1 {
			t.Errorf("%s: %+v, want one problem", c.name, ps)
			continue
		}
		p := ps[0]
		if p.Severity != c.severity || !strings.Contains(p.Message, c.contains) || p.Line != c.line || p.Column != c.column {
			t.Errorf("%s: %+v, want %s %q at %d:%d", c.name, p, c.severity, c.contains, c.line, c.column)
		}
	}
}

// What parses and names real actions (patterns too) has no problem; a
// trust policy is read by the trust grammar.
func TestValidateAcceptsGoodDocuments(t *testing.T) {
	good := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:Get*","s3:listbucket","iam:CreateUser","sts:AssumeRole"],"Resource":"*"}]}`
	if ps := iamcheck.Validate(iamcheck.Identity, good); len(ps) != 0 {
		t.Fatalf("good identity policy: %+v", ps)
	}
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":"sts:AssumeRole"}]}`
	if ps := iamcheck.Validate(iamcheck.Trust, trust); len(ps) != 0 {
		t.Fatalf("good trust policy: %+v", ps)
	}
	if ps := iamcheck.Validate(iamcheck.Identity, trust); len(ps) != 1 || ps[0].Severity != "error" {
		t.Fatalf("a trust policy as an identity policy: %+v, want the principal refused", ps)
	}
	if ps := iamcheck.Validate(iamcheck.Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:Put*Tagging","Resource":"*"}}`); len(ps) != 0 {
		t.Fatalf("pattern: %+v", ps)
	}
	if ps := iamcheck.Validate(iamcheck.Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:Frob*","Resource":"*"}}`); len(ps) != 1 || ps[0].Severity != "warning" {
		t.Fatalf("pattern matching nothing: %+v", ps)
	}
}

// The shared checks answer as IAM does.
func TestDocumentAndNames(t *testing.T) {
	var ce *iamcheck.Error
	if err := iamcheck.Document("policyDocument", iamcheck.Identity, strings.Repeat(" ", 3000), iamcheck.UserPolicySize); err == nil || !asErr(err, &ce) || ce.Code != iamcheck.CodeLimitExceeded {
		t.Fatalf("oversized: %v", err)
	}
	if err := iamcheck.Document("policyDocument", iamcheck.Identity, `{"Version":"2012-10-17"}`, iamcheck.UserPolicySize); !asErr(err, &ce) || ce.Code != iamcheck.CodeMalformedPolicy {
		t.Fatalf("no statement: %v", err)
	}
	if err := iamcheck.Name("userName", "bad name", 64); !asErr(err, &ce) || ce.Code != iamcheck.CodeValidation {
		t.Fatalf("bad name: %v", err)
	}
	if err := iamcheck.Path("path", "/a/b/"); err != nil {
		t.Fatalf("good path: %v", err)
	}
	if _, err := iamcheck.OIDCProvider("acme", "http://idp.example", nil, nil, time.Time{}); !asErr(err, &ce) {
		t.Fatalf("plain http issuer: %v", err)
	}
}

func asErr(err error, ce **iamcheck.Error) bool { return errors.As(err, ce) }
