package why

import "testing"

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
