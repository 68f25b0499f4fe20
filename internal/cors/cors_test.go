package cors

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

func intp(n int) *int { return &n }

func TestValidate(t *testing.T) {
	ok := Rule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}}
	many := make([]Rule, MaxRules+1)
	for i := range many {
		many[i] = ok
	}
	for _, tc := range []struct {
		name string
		c    Config
		code string // "" valid; MalformedXML via ErrMalformed
	}{
		{"one rule", Config{Rules: []Rule{ok}}, ""},
		{"100 rules", Config{Rules: many[:MaxRules]}, ""},
		{"empty origin is accepted, as AWS", Config{Rules: []Rule{{AllowedOrigins: []string{""}, AllowedMethods: []string{"PUT"}}}}, ""},
		{"no rules", Config{}, "MalformedXML"},
		{"101 rules", Config{Rules: many}, "InvalidRequest"},
		{"no origin", Config{Rules: []Rule{{AllowedMethods: []string{"GET"}}}}, "MalformedXML"},
		{"no method", Config{Rules: []Rule{{AllowedOrigins: []string{"*"}}}}, "MalformedXML"},
		{"OPTIONS", Config{Rules: []Rule{{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"OPTIONS"}}}}, "InvalidRequest"},
		{"lower case method", Config{Rules: []Rule{{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"get"}}}}, "InvalidRequest"},
		{"two wildcards in an origin", Config{Rules: []Rule{{AllowedOrigins: []string{"*example*.com"}, AllowedMethods: []string{"GET"}}}}, "InvalidRequest"},
		{"two wildcards in a header", Config{Rules: []Rule{{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}, AllowedHeaders: []string{"x-*-*"}}}}, "InvalidRequest"},
		{"long ID", Config{Rules: []Rule{{ID: strings.Repeat("i", 256), AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}}}}, "InvalidArgument"},
		{"negative max age", Config{Rules: []Rule{{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}, MaxAgeSeconds: intp(-1)}}}, "MalformedXML"},
	} {
		err := tc.c.Validate()
		var ce *Error
		got := ""
		switch {
		case err == nil:
		case errors.Is(err, ErrMalformed):
			got = "MalformedXML"
		case errors.As(err, &ce):
			got = ce.Code
		default:
			got = err.Error()
		}
		if got != tc.code {
			t.Errorf("%s: got %q (%v), want %q", tc.name, got, err, tc.code)
		}
	}
}

// The origin patterns of ceph s3-tests' test_cors_origin_response, which
// AWS passes: '*' matches any run, the empty one included, and a pattern
// is anchored at both ends.
func TestMatchOrigins(t *testing.T) {
	c := Config{Rules: []Rule{
		{AllowedOrigins: []string{"*suffix"}, AllowedMethods: []string{"GET"}},
		{AllowedOrigins: []string{"start*end"}, AllowedMethods: []string{"GET"}},
		{AllowedOrigins: []string{"prefix*"}, AllowedMethods: []string{"GET"}},
		{AllowedOrigins: []string{"*.put"}, AllowedMethods: []string{"PUT"}},
	}}
	for origin, want := range map[string]bool{
		"foo.suffix": true, "startend": true, "start1end": true, "start12end": true, "prefix": true, "prefix.suffix": true,
		"foo.bar": false, "foo.suffix.get": false, "0start12end": false, "bla.prefix": false, "foo.put": false,
		"FOO.SUFFIX": false, // case kept, as S3
	} {
		if _, got := c.Match(Request{Origin: origin, Method: "GET"}); got != want {
			t.Errorf("GET from %s: %v, want %v", origin, got, want)
		}
	}
	if r, ok := c.Match(Request{Origin: "foo.put", Method: "PUT"}); !ok || r != &c.Rules[3] {
		t.Fatalf("PUT from foo.put: %v %v", r, ok)
	}
	// start*end must not match "startend" twice over: "startXend" needs
	// at least the prefix and the suffix, not overlapping.
	if wildcard("ab*ba", "aba") {
		t.Fatal("prefix and suffix overlap")
	}
}

func TestMatchHeadersAndFirstRule(t *testing.T) {
	c := Config{Rules: []Rule{
		{ID: "narrow", AllowedOrigins: []string{"https://app.example"}, AllowedMethods: []string{"PUT"},
			AllowedHeaders: []string{"x-amz-*", "Content-Type"}},
		{ID: "any", AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET", "PUT"}, AllowedHeaders: []string{"*"}},
	}}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{"https://app.example", "PUT", ParseHeaderList("X-Amz-Meta-A, content-type")}, "narrow"},
		{Request{"https://app.example", "PUT", ParseHeaderList("authorization")}, "any"},
		{Request{"https://other.example", "PUT", nil}, "any"},
		{Request{"https://other.example", "DELETE", nil}, ""},
	} {
		r, ok := c.Match(tc.req)
		got := ""
		if ok {
			got = r.ID
		}
		if got != tc.want {
			t.Errorf("%+v: rule %q, want %q", tc.req, got, tc.want)
		}
	}
	// A rule without AllowedHeader allows no requested header.
	bare := Config{Rules: []Rule{{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}}}}
	if _, ok := bare.Match(Request{"o", "GET", []string{"x-amz-date"}}); ok {
		t.Fatal("header allowed by a rule with none")
	}
}

func TestParseHeaderList(t *testing.T) {
	got := ParseHeaderList(" X-Amz-Date,,content-TYPE ,")
	if strings.Join(got, "|") != "x-amz-date|content-type" {
		t.Fatalf("%q", got)
	}
}

// The headers of LocalStack's recording of S3 (test_cors_match_origins):
// an echoed origin with credentials, the rule's methods, the max age and
// Vary; "*" for a rule of any origin, without credentials.
func TestSetHeaders(t *testing.T) {
	r := Rule{AllowedOrigins: []string{"https://localhost:4200"}, AllowedMethods: []string{"GET", "PUT"},
		AllowedHeaders: []string{"*"}, ExposeHeaders: []string{"ETag", "x-amz-request-id"}, MaxAgeSeconds: intp(3000)}
	h := http.Header{}
	r.SetHeaders(h, Request{Origin: "https://localhost:4200", Method: "PUT", Headers: []string{"x-amz-date", "content-type"}})
	want := map[string]string{
		"Access-Control-Allow-Origin":      "https://localhost:4200",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods":     "GET, PUT",
		"Access-Control-Allow-Headers":     "x-amz-date, content-type",
		"Access-Control-Expose-Headers":    "ETag, x-amz-request-id",
		"Access-Control-Max-Age":           "3000",
		"Vary":                             Vary,
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, h.Get(k), v)
		}
	}
	any := Rule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}}
	h = http.Header{}
	any.SetHeaders(h, Request{Origin: "http://random:1234", Method: "GET"})
	if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Credentials") != "" ||
		h.Get("Access-Control-Max-Age") != "" || h.Get("Access-Control-Allow-Headers") != "" {
		t.Fatalf("any origin: %v", h)
	}
}
