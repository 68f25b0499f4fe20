// Package cors is a bucket's cross-origin resource sharing configuration
// as S3 defines it: the rules, their validation, and the matcher that
// finds the rule a browser's request falls under (a preflight OPTIONS, or
// an actual request with an Origin header) and the headers that rule
// answers with. It knows nothing of buckets or storage; package objects
// keeps a bucket's configuration and package s3 applies it.
package cors

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// S3's limits on a configuration.
const (
	MaxRules    = 100
	MaxIDLength = 255
)

// Methods are the methods a rule may allow, as S3 accepts them.
var Methods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodHead}

// Rule is one CORSRule.
type Rule struct {
	ID             string   `json:"id,omitempty"`
	AllowedOrigins []string `json:"origins"`
	AllowedMethods []string `json:"methods"`
	AllowedHeaders []string `json:"headers,omitempty"`
	ExposeHeaders  []string `json:"expose,omitempty"`
	// MaxAgeSeconds is how long a browser may cache a preflight's answer;
	// nil: the rule does not say (no Access-Control-Max-Age).
	MaxAgeSeconds *int `json:"max_age,omitempty"`
}

// Config is a bucket's CORSConfiguration: its rules, the first matching
// one deciding.
type Config struct {
	Rules []Rule `json:"rules"`
}

// Error is a configuration S3 refuses: its code (MalformedXML,
// InvalidRequest) and message, as AWS words them.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return "cors: " + e.Code + ": " + e.Message }

// ErrMalformed is what a configuration missing what S3's schema requires
// wraps (S3's MalformedXML).
var ErrMalformed = errors.New("cors: configuration does not validate against the schema")

func malformed(msg string) error { return fmt.Errorf("%w: %s", ErrMalformed, msg) }

func invalid(msg string) error { return &Error{Code: "InvalidRequest", Message: msg} }

// Validate checks c as S3 does: 1 to 100 rules, each with an origin and a
// method, methods among Methods, at most one '*' in an origin or an
// allowed header, an ID of at most 255 characters, a max age not below 0.
func (c Config) Validate() error {
	switch {
	case len(c.Rules) == 0:
		return malformed("a CORSConfiguration needs at least one CORSRule")
	case len(c.Rules) > MaxRules:
		return invalid("The number of CORS rules should not exceed allowed limit of 100 rules.")
	}
	for _, r := range c.Rules {
		if len(r.AllowedOrigins) == 0 || len(r.AllowedMethods) == 0 {
			return malformed("each CORSRule needs an AllowedOrigin and an AllowedMethod")
		}
		for _, m := range r.AllowedMethods {
			if !slices.Contains(Methods, m) {
				return invalid("Found unsupported HTTP method in CORS config. Unsupported method is " + m)
			}
		}
		for _, o := range r.AllowedOrigins {
			if strings.Count(o, "*") > 1 {
				return invalid(`AllowedOrigin "` + o + `" can not have more than one wildcard.`)
			}
		}
		for _, h := range r.AllowedHeaders {
			if strings.Count(h, "*") > 1 {
				return invalid(`AllowedHeader "` + h + `" can not have more than one wildcard.`)
			}
		}
		if len(r.ID) > MaxIDLength {
			return &Error{Code: "InvalidArgument", Message: "The ID of a CORSRule can not be longer than 255 characters."}
		}
		if r.MaxAgeSeconds != nil && *r.MaxAgeSeconds < 0 {
			return malformed("MaxAgeSeconds must not be negative")
		}
	}
	return nil
}

// Request is what a rule is matched against: the Origin, the method (of a
// preflight, its Access-Control-Request-Method) and the headers the
// request says it will send (Access-Control-Request-Headers).
type Request struct {
	Origin  string
	Method  string
	Headers []string
}

// ParseHeaderList splits an Access-Control-Request-Headers value into
// lower-cased names, dropping empty list elements (RFC 9110 §5.6.1), in
// the order given.
func ParseHeaderList(v string) []string {
	var out []string
	for _, h := range strings.Split(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, strings.ToLower(h))
		}
	}
	return out
}

// Match returns the first rule that allows req: its origin matches one
// of the rule's origins (case kept: an origin is serialized lower case,
// and S3 compares it as sent), its method is one of the rule's, and each
// header it names matches one of the rule's allowed headers (case
// ignored). A pattern holds at most one '*', which stands for any run of
// characters, the empty one included.
func (c Config) Match(req Request) (*Rule, bool) {
	for i := range c.Rules {
		r := &c.Rules[i]
		if r.allows(req) {
			return r, true
		}
	}
	return nil, false
}

func (r *Rule) allows(req Request) bool {
	if _, ok := r.origin(req.Origin); !ok || !slices.Contains(r.AllowedMethods, req.Method) {
		return false
	}
	for _, h := range req.Headers {
		if !slices.ContainsFunc(r.AllowedHeaders, func(p string) bool { return wildcard(strings.ToLower(p), h) }) {
			return false
		}
	}
	return true
}

// origin finds the first of r's origins matching o; its answer is "*"
// for the pattern "*" (any origin, so no credentials), else o itself.
func (r *Rule) origin(o string) (string, bool) {
	for _, p := range r.AllowedOrigins {
		if wildcard(p, o) {
			if p == "*" {
				return "*", true
			}
			return o, true
		}
	}
	return "", false
}

// wildcard matches s against pattern, whose one '*' (if any) stands for
// any run of characters; the rest must match exactly, at both ends.
func wildcard(pattern, s string) bool {
	before, after, ok := strings.Cut(pattern, "*")
	if !ok {
		return pattern == s
	}
	return len(s) >= len(before)+len(after) && strings.HasPrefix(s, before) && strings.HasSuffix(s, after)
}

// Vary is what every answer under a rule varies by, as S3 says it: a
// cache must not give one origin's answer to another.
const Vary = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"

// SetHeaders writes the answer of rule r to req into h, as S3 does for a
// preflight and for an actual request alike: Access-Control-Allow-Origin
// (the origin, with Allow-Credentials, or "*" for a rule of any origin),
// -Allow-Methods (the rule's), -Allow-Headers (those requested, lower
// case), -Expose-Headers, -Max-Age, and Vary.
func (r *Rule) SetHeaders(h http.Header, req Request) {
	allow, _ := r.origin(req.Origin)
	h.Set("Access-Control-Allow-Origin", allow)
	if allow != "*" {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(r.AllowedMethods, ", "))
	if len(req.Headers) > 0 {
		h.Set("Access-Control-Allow-Headers", strings.Join(req.Headers, ", "))
	}
	if len(r.ExposeHeaders) > 0 {
		h.Set("Access-Control-Expose-Headers", strings.Join(r.ExposeHeaders, ", "))
	}
	if r.MaxAgeSeconds != nil {
		h.Set("Access-Control-Max-Age", strconv.Itoa(*r.MaxAgeSeconds))
	}
	h.Add("Vary", Vary)
}
