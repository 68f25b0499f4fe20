package why

import (
	"testing"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// A statement is cut out of its document as written, placed where it is,
// from a list of statements or a single one.
func TestCut(t *testing.T) {
	doc := "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"},\n    {\"Sid\": \"B\",\n     \"Effect\": \"Deny\", \"Action\": \"s3:*\", \"Resource\": \"*\"}\n  ]\n}"
	text, start, end := cut(doc, 1)
	if text != "{\"Sid\": \"B\",\n     \"Effect\": \"Deny\", \"Action\": \"s3:*\", \"Resource\": \"*\"}" || start != (Position{5, 5}) || end != (Position{6, 57}) {
		t.Fatalf("statement 1: %q %v %v", text, start, end)
	}
	one := `{"Statement": {"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}, "Version": "2012-10-17"}`
	if text, start, _ := cut(one, 0); text != `{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}` || start != (Position{1, 15}) {
		t.Fatalf("single statement: %q %v", text, start)
	}
	if text, _, _ := cut(one, 1); text != "" {
		t.Fatalf("no statement 1: %q", text)
	}
}

// A bucket policy whose text is withheld (another tenant's) is named
// with neither its statement's text nor its Sid; one that is given
// shows both.
func TestDescribeWithheldBucketPolicy(t *testing.T) {
	doc := `{"Version":"2012-10-17","Statement":[{"Sid":"DenyBobFromOffice","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"*"}]}`
	e := iam.Explanation{Matches: []bucketpolicy.Match{{Source: iam.SourceBucketPolicy, Sid: "DenyBobFromOffice", Statement: 0}}}
	got := Describe(e, nil, Context{Bucket: "theirs"})
	if len(got) != 1 || got[0].Sid != "" || got[0].Text != "" || got[0].From.ID != "theirs" {
		t.Errorf("withheld policy described as %+v", got)
	}
	got = Describe(e, nil, Context{Bucket: "ours", BucketPolicy: doc})
	if len(got) != 1 || got[0].Sid != "DenyBobFromOffice" || got[0].Text == "" {
		t.Errorf("given policy described as %+v", got)
	}
}
