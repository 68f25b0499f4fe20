package postpolicy

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func b64(doc string) string { return base64.StdEncoding.EncodeToString([]byte(doc)) }

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code + ": " + e.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func TestParseErrors(t *testing.T) {
	for doc, want := range map[string]string{
		`{"conditions":[]}`:                         "InvalidPolicyDocument: Invalid Policy: Policy missing expiration.",
		`{"expiration":"2026-12-01T00:00:00Z"}`:     "InvalidPolicyDocument: Invalid Policy: Policy missing conditions.",
		`{"expiration":"tomorrow","conditions":[]}`: "InvalidPolicyDocument: Invalid Policy: Invalid 'expiration' value: 'tomorrow'",
		`not json`: "InvalidPolicyDocument: Invalid Policy: Invalid JSON.",
		`{"expiration":"2026-12-01T00:00:00Z","conditions":[["matches","$key","x"]]}`:                "InvalidPolicyDocument: Invalid Policy: Unknown condition type: matches",
		`{"expiration":"2026-12-01T00:00:00Z","conditions":[["eq","key","x"]]}`:                      "InvalidPolicyDocument: Invalid Policy: Condition field name must start with '$': key",
		`{"expiration":"2026-12-01T00:00:00Z","conditions":[["content-length-range",10,1]]}`:         "InvalidPolicyDocument: Invalid Policy: Invalid content-length-range condition.",
		`{"expiration":"2026-12-01T00:00:00Z","conditions":[["content-length-range",1]]}`:            "InvalidPolicyDocument: Invalid Policy: wrong format of a condition.",
		`{"expiration":"2026-12-01T00:00:00.000Z","conditions":[["content-length-range","1","10"]]}`: "",
	} {
		_, err := Parse(b64(doc))
		if got := code(err); got != want {
			t.Errorf("%s:\n got %q\nwant %q", doc, got, want)
		}
	}
	if _, err := Parse("%%%"); code(err) != "InvalidPolicyDocument: Invalid Policy: Invalid Policy Encoding." {
		t.Errorf("bad base64: %v", err)
	}
}

func TestCheck(t *testing.T) {
	doc := `{"expiration":"2026-11-23T13:00:00.000Z","conditions":[
		{"bucket":"photos"},
		["starts-with","$key","user/alice/"],
		{"acl":"public-read"},
		["eq","$success_action_status","201"],
		["starts-with","$Content-Type","image/"],
		["starts-with","$x-amz-meta-tag",""],
		["content-length-range",1,1048576]]}`
	p, err := Parse(b64(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasRange || p.MinSize != 1 || p.MaxSize != 1048576 {
		t.Fatalf("range %v %d %d", p.HasRange, p.MinSize, p.MaxSize)
	}
	good := func() map[string]string {
		return map[string]string{"key": "user/alice/${filename}", "acl": "public-read", "success_action_status": "201",
			"content-type": "image/png", "x-amz-meta-tag": "anything", "policy": "p", "x-amz-signature": "s", "file": "",
			"x-ignore-note": "free"}
	}
	if err := p.Check(good(), "photos", now); err != nil {
		t.Fatalf("good form: %v", err)
	}
	for name, tc := range map[string]struct {
		change func(map[string]string)
		bucket string
		at     time.Time
		want   string
	}{
		"expired":                 {func(map[string]string) {}, "photos", now.Add(2 * time.Hour), "AccessDenied: Invalid according to Policy: Policy expired."},
		"other bucket":            {func(map[string]string) {}, "videos", now, `AccessDenied: Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "photos"]`},
		"key prefix":              {func(f map[string]string) { f["key"] = "user/bob/x" }, "photos", now, `AccessDenied: Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "user/alice/"]`},
		"eq fails":                {func(f map[string]string) { f["success_action_status"] = "200" }, "photos", now, `AccessDenied: Invalid according to Policy: Policy Condition failed: ["eq", "$success_action_status", "201"]`},
		"exact fails":             {func(f map[string]string) { f["acl"] = "private" }, "photos", now, `AccessDenied: Invalid according to Policy: Policy Condition failed: ["eq", "$acl", "public-read"]`},
		"missing field":           {func(f map[string]string) { delete(f, "acl") }, "photos", now, `AccessDenied: Invalid according to Policy: Policy Condition failed: ["eq", "$acl", "public-read"]`},
		"content type list":       {func(f map[string]string) { f["content-type"] = "image/png, text/html" }, "photos", now, `AccessDenied: Invalid according to Policy: Policy Condition failed: ["starts-with", "$Content-Type", "image/"]`},
		"extra fields":            {func(f map[string]string) { f["x-amz-meta-other"] = "1"; f["cache-control"] = "no" }, "photos", now, "AccessDenied: Invalid according to Policy: Extra input fields: cache-control, x-amz-meta-other"},
		"starts-with any, absent": {func(f map[string]string) { delete(f, "x-amz-meta-tag") }, "photos", now, ""},
	} {
		f := good()
		tc.change(f)
		if got := code(p.Check(f, tc.bucket, tc.at)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, tc.want)
		}
	}
	// The x-amz-credential of a SigV4 form is not exempt: a policy must
	// name it, as AWS requires.
	f := good()
	f["x-amz-credential"] = "AK/20261123/us-east-1/s3/aws4_request"
	if got := code(p.Check(f, "photos", now)); !strings.Contains(got, "Extra input fields: x-amz-credential") {
		t.Errorf("credential: %s", got)
	}
}

// No policy document, however malformed, panics the checker.
func FuzzParseCheck(f *testing.F) {
	f.Add(`{"expiration":"2026-12-01T00:00:00Z","conditions":[{"bucket":"b"},["starts-with","$key",""],["content-length-range",1,2]]}`, "key", "v")
	f.Add(`{"expiration":"2026-12-01T00:00:00Z","conditions":[["eq","$a"],[1,2,3],{"k":1},null,"x"]}`, "a", "")
	f.Fuzz(func(t *testing.T, doc, name, value string) {
		p, err := Parse(b64(doc))
		if err != nil {
			return
		}
		_ = p.Check(map[string]string{name: value}, "b", now)
	})
}

// The form of AWS's worked SigV4 example ("Example: Browser-Based Upload
// using HTTP POST (Using AWS Signature Version 4)") meets its policy,
// and the policy expires when the page says.
func TestAWSExample(t *testing.T) {
	p, err := Parse("eyAiZXhwaXJhdGlvbiI6ICIyMDE1LTEyLTMwVDEyOjAwOjAwLjAwMFoiLA0KICAiY29uZGl0aW9ucyI6IFsNCiAgICB7ImJ1Y2tldCI6ICJzaWd2NGV4YW1wbGVidWNrZXQifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAidXNlci91c2VyMS8iXSwNCiAgICB7ImFjbCI6ICJwdWJsaWMtcmVhZCJ9LA0KICAgIHsic3VjY2Vzc19hY3Rpb25fcmVkaXJlY3QiOiAiaHR0cDovL3NpZ3Y0ZXhhbXBsZWJ1Y2tldC5zMy5hbWF6b25hd3MuY29tL3N1Y2Nlc3NmdWxfdXBsb2FkLmh0bWwifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRDb250ZW50LVR5cGUiLCAiaW1hZ2UvIl0sDQogICAgeyJ4LWFtei1tZXRhLXV1aWQiOiAiMTQzNjUxMjM2NTEyNzQifSwNCiAgICB7IngtYW16LXNlcnZlci1zaWRlLWVuY3J5cHRpb24iOiAiQUVTMjU2In0sDQogICAgWyJzdGFydHMtd2l0aCIsICIkeC1hbXotbWV0YS10YWciLCAiIl0sDQoNCiAgICB7IngtYW16LWNyZWRlbnRpYWwiOiAiQUtJQUlPU0ZPRE5ON0VYQU1QTEUvMjAxNTEyMjkvdXMtZWFzdC0xL3MzL2F3czRfcmVxdWVzdCJ9LA0KICAgIHsieC1hbXotYWxnb3JpdGhtIjogIkFXUzQtSE1BQy1TSEEyNTYifSwNCiAgICB7IngtYW16LWRhdGUiOiAiMjAxNTEyMjlUMDAwMDAwWiIgfQ0KICBdDQp9")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{
		"key": "user/user1/${filename}", "acl": "public-read",
		"success_action_redirect": "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html",
		"content-type":            "image/jpeg", "x-amz-meta-uuid": "14365123651274", "x-amz-server-side-encryption": "AES256",
		"x-amz-credential": "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request", "x-amz-algorithm": "AWS4-HMAC-SHA256",
		"x-amz-date": "20151229T000000Z", "x-amz-meta-tag": "", "policy": "p", "x-amz-signature": "s",
	}
	if err := p.Check(fields, "sigv4examplebucket", time.Date(2015, 12, 29, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(fields, "sigv4examplebucket", time.Date(2015, 12, 30, 12, 0, 0, 0, time.UTC)); code(err) != "AccessDenied: Invalid according to Policy: Policy expired." {
		t.Fatalf("at expiration: %v", err)
	}
}
